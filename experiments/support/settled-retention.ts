/**
 * Retention between a benchmark's rounds, finished before the next round is timed. A log frees
 * a removed segment's blocks on the thread pool after `deleteSegmentsBelow` returns (storage/
 * log-retention.ts), and the journal commits that freeing with whichever sync comes next: a
 * synced append right after a removal of three 64 MiB segments waited up to 25 ms for it here.
 * Waiting for the closes and fsyncing the directory leaves nothing of the removal for the next
 * round to pay.
 */
import { type Log, NodeFileIO } from '../../storage/index.js';

/** Waits for the closes of what retention removed, then commits their freeing. */
export async function settleRemovals(log: Log): Promise<void> {
  await log.removalsSettled();
  // A FileIO of its own: the log's counts only what the log itself did.
  new NodeFileIO().fsyncDir(log.dir);
}

/** Removes every sealed segment, as a consumer that kept up would, and settles the removal. */
export async function dropSealedSegments(log: Log): Promise<void> {
  log.deleteSegmentsBelow(log.endOffset);
  await settleRemovals(log);
}
