/**
 * Retention between a benchmark's rounds, finished before the next round is timed. A log frees
 * a removed segment's blocks on the thread pool after `deleteSegmentsBelow` returns (storage/
 * log-retention.ts), and the journal commits that freeing with whichever sync comes next: a
 * synced append right after a removal of three 64 MiB segments waited up to 25 ms for it here.
 * Waiting for the closes and fsyncing the directory leaves nothing of the removal for the next
 * round to pay.
 */
import * as fs from 'node:fs';
import type { Log } from '../../storage/index.js';

/** Removes every sealed segment, as a consumer that kept up would, and settles the removal. */
export async function dropSealedSegments(log: Log): Promise<void> {
  log.deleteSegmentsBelow(log.endOffset);
  await log.removalsSettled();
  const fd = fs.openSync(log.dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
