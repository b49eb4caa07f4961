/**
 * The benches' logs with direct writes (storage/io/direct-write.ts), measured beside the defaults: a
 * system may refuse them, and then the log's figures are the page cache's, which must not be
 * printed under a direct name.
 */
import type { LabContext } from '../../lab/experiment.js';
import type { Log } from '../../storage/index.js';

/** Whether `log`, opened with direct writes, wrote directly; else a note that `what` is left out. */
export function wroteDirectly(ctx: LabContext, log: Log, what: string): boolean {
  if (log.directWrites === 'on') return true;
  ctx.note(
    `${what} left out: the system refused direct writes (${log.directWritesRefusal}), so the log wrote through the page cache.`,
  );
  return false;
}
