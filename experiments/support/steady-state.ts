/**
 * A log brought to its steady state under retention before it is timed: appending into a
 * recycled segment file (storage/log/log.ts, segment reuse), laid out as fio's file and the plain
 * loops' files are. A new log zero-fills each extent of its first segments ahead of the appends,
 * and the sync after it writes the extent (about 2-3% of synced appends per second on this lab's
 * disk); with retention that happens once per log, and the byte ledger's noRetention figures
 * show it where it never stops.
 */
import type { Log } from '../../storage/index.js';
import { assert } from '../../storage/testing/index.js';
import { dropSealedSegments } from './settled-retention.js';

const BATCH_RECORDS = 256;

/**
 * Fills and drops two segments, so that the active one is a recycled file, or a laid-out one
 * (storage/log/spare-segment.ts) when a layout finished before retention's removal: either way a
 * file of the segment size that the appends write into without zero-filling it.
 */
export async function recycleToSteadyState(log: Log, body: Uint8Array): Promise<void> {
  const batch = Array.from({ length: BATCH_RECORDS }, () => body);
  for (let roll = 0; roll < 2; roll++) {
    const segments = log.segments().length;
    while (log.segments().length === segments) await log.appendBatch(batch);
    await dropSealedSegments(log);
  }
  assert(
    log.segmentsReused + log.segmentsLaidOut > 0,
    `the log in ${log.dir} appends into a recycled or laid-out segment`,
  );
}
