/**
 * The invariant checks can fail: each class's checkInvariants holds on a sound instance and
 * throws once its state is damaged the way a bug would damage it (through the testing-only
 * hooks), so the property tests that call it after every step would catch that bug.
 */
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import { BatchedLog, batchedSegmentsForTesting } from './batched-log.js';
import { Log, segmentsForTesting } from './log.js';
import { LogQueue, logOfQueueForTesting } from './log-queue.js';
import { SlotFileQueue, freeSlotsForTesting } from './slot-file.js';
import { asOffset, asPosition } from './units.js';

const newDir = tempDirs('invariants');

/** A log of at least three segments, indexed every record. */
function logOfSegments(): Log {
  const log = Log.open(newDir(), { segmentBytes: 1024, indexIntervalBytes: 0 });
  while (log.segments().length < 3) log.appendNoWait(Buffer.alloc(100, 7));
  return log;
}

describe('Log.checkInvariants', () => {
  it('fails when a sealed segment no longer ends where the next one begins', async () => {
    const log = logOfSegments();
    log.checkInvariants();
    const [first, second] = segmentsForTesting(log);
    first!.activate(asPosition(first!.sizeBytes), asOffset(second!.baseOffset - 1));
    expect(() => log.checkInvariants()).toThrow(/ends where the next begins/);
    await log.close();
  });

  it('fails when a segment is cut short of an index entry it still holds', async () => {
    const log = logOfSegments();
    const first = segmentsForTesting(log)[0]!;
    const index = first.offsetIndex();
    first.endDataAt(index.positionAt(index.entries - 1));
    expect(() => log.checkInvariants()).toThrow(/the last entry is in the data/);
    await log.close();
  });
});

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

describe('SlotFileQueue.checkInvariants', () => {
  it('fails when a slot that holds a message is also listed free', async () => {
    const queue = SlotFileQueue.open(newDir(), { slotBytes: 256, chunkSlots: 4 });
    await queue.send(Buffer.from('kept'));
    queue.checkInvariants();
    const free = freeSlotsForTesting(queue);
    const heldSlot = [0, 1, 2, 3].find((slot) => !free.list.includes(slot))!;
    free.release(heldSlot);
    expect(() => queue.checkInvariants()).toThrow(/holds one message and is not free/);
    await queue.close();
  });
});

describe('LogQueue.checkInvariants', () => {
  it("fails when the queue's log is damaged", async () => {
    const queue = LogQueue.open(newDir(), { segmentBytes: 1024 });
    for (let i = 0; i < 30; i++) await queue.send(Buffer.alloc(100, i));
    queue.checkInvariants();
    const [first, second] = segmentsForTesting(logOfQueueForTesting(queue));
    first!.activate(asPosition(first!.sizeBytes), asOffset(second!.baseOffset + 1));
    expect(() => queue.checkInvariants()).toThrow(/ends where the next begins/);
    await queue.close();
  });
});
