/**
 * The invariant checks can fail: each class's checkInvariants holds on a sound instance and
 * throws once its state is damaged the way a bug would damage it (through the testing-only
 * hooks), so the property tests that call it after every step would catch that bug.
 */
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { BatchedLog, batchedSegmentsForTesting } from './batched-log.js';
import { asOffset, asPosition } from '../units.js';

const newDir = tempDirs('invariants');

describe('BatchedLog.checkInvariants', () => {
  it('fails when a sealed segment no longer ends where the next one begins', async () => {
    const log = BatchedLog.open(newDir(), { segmentBytes: 1024, indexIntervalBytes: 0 });
    const batch = [{ value: Buffer.alloc(200, 3) }, { value: Buffer.alloc(200, 4) }];
    while (log.segments().length < 2) await log.appendBatch(batch);
    log.checkInvariants();
    const [first, second] = batchedSegmentsForTesting(log);
    first!.endAt(asPosition(first!.sizeBytes), asOffset(second!.baseOffset + 1));
    expect(() => log.checkInvariants()).toThrow(/ends where the next begins/);
    await log.close();
  });
});
