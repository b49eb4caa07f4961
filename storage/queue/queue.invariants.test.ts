/**
 * The invariant checks can fail: each class's checkInvariants holds on a sound instance and
 * throws once its state is damaged the way a bug would damage it (through the testing-only
 * hooks), so the property tests that call it after every step would catch that bug.
 */
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { segmentsForTesting } from '../log/log.js';
import { LogQueue, logOfQueueForTesting } from './log-queue.js';
import { SlotFileQueue, freeSlotsForTesting } from './slot-file.js';
import { asOffset, asPosition } from '../units.js';

const newDir = tempDirs('invariants');

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
