/**
 * One conformance suite, run against both designs: the same contract, equally serious.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import type { DurabilityPolicy } from './durability.js';
import { LogQueue } from './log-queue.js';
import type { Queue, QueueClock } from './queue.js';
import { SlotFileQueue } from './slot-file.js';

class FakeClock implements QueueClock {
  ms = 1_700_000_000_000;
  nowMs(): number {
    return this.ms;
  }
}

interface Design {
  readonly name: string;
  readonly open: (dir: string, clock: QueueClock, durability?: DurabilityPolicy) => Queue;
  /** Does a delete made just before a restart survive it? */
  readonly deletesSurviveRestart: boolean;
}

const designs: Design[] = [
  {
    name: 'design A (slot file)',
    open: (dir, clock, durability = 'none') => SlotFileQueue.open(join(dir, 'slots'), { clock, durability, chunkSlots: 16 }),
    deletesSurviveRestart: true,
  },
  {
    name: 'design B (log queue)',
    open: (dir, clock, durability = 'none') =>
      LogQueue.open(dir, { clock, durability, segmentBytes: 4096, checkpointEveryDeletes: 1_000_000, checkpointIntervalMs: 1e9 }),
    deletesSurviveRestart: false,
  },
];

const newDir = tempDirs('queue');
const text = (message: { body: Buffer } | null): string | null => (message === null ? null : message.body.toString());

for (const design of designs) {
  describe(design.name, () => {
    it('delivers sent messages in order and returns null when empty', async () => {
      const queue = design.open(newDir(), new FakeClock());
      expect(queue.receive({ visibilityTimeoutMs: 1000 })).toBeNull();
      for (const body of ['a', 'b', 'c']) await queue.send(Buffer.from(body));
      const received = [1, 2, 3].map(() => queue.receive({ visibilityTimeoutMs: 1000 }));
      expect(received.map(text)).toEqual(['a', 'b', 'c']);
      expect(received.map((m) => m!.attempt)).toEqual([1, 1, 1]);
      expect(queue.receive({ visibilityTimeoutMs: 1000 })).toBeNull();
      expect(queue.stats()).toMatchObject({ ready: 0, inFlight: 3, delayed: 0 });
      await queue.close();
    });

    it('deletes a received message exactly once', async () => {
      const queue = design.open(newDir(), new FakeClock());
      const id = await queue.send(Buffer.from('x'));
      const message = queue.receive({ visibilityTimeoutMs: 1000 })!;
      expect(message.id).toBe(id);
      await queue.delete(id);
      expect(queue.stats()).toMatchObject({ ready: 0, inFlight: 0 });
      await expect(queue.delete(id)).rejects.toMatchObject({ code: 'UNKNOWN_MESSAGE', context: { reason: 'already deleted' } });
      await expect(queue.delete(id + 100)).rejects.toMatchObject({ code: 'UNKNOWN_MESSAGE' });
      expect(queue.receive({ visibilityTimeoutMs: 1000 })).toBeNull();
      await queue.close();
    });

    it('refuses to delete a message that was never received, changing nothing', async () => {
      const queue = design.open(newDir(), new FakeClock());
      const id = await queue.send(Buffer.from('x'));
      const before = queue.stats();
      await expect(queue.delete(id)).rejects.toMatchObject({ code: 'UNKNOWN_MESSAGE', context: { reason: 'never received' } });
      expect(queue.stats()).toEqual(before);
      expect(text(queue.receive({ visibilityTimeoutMs: 10 }))).toBe('x');
      await queue.close();
    });

    it('redelivers after the visibility timeout with a higher attempt count', async () => {
      const clock = new FakeClock();
      const queue = design.open(newDir(), clock);
      await queue.send(Buffer.from('first'));
      await queue.send(Buffer.from('second'));
      const first = queue.receive({ visibilityTimeoutMs: 30_000 })!;
      expect(first.deadlineMs).toBe(clock.ms + 30_000);
      clock.ms += 29_999;
      expect(text(queue.receive({ visibilityTimeoutMs: 30_000 }))).toBe('second');
      expect(queue.receive({ visibilityTimeoutMs: 30_000 })).toBeNull();
      clock.ms += 1;
      const again = queue.receive({ visibilityTimeoutMs: 30_000 })!;
      expect([again.id, text(again), again.attempt]).toEqual([first.id, 'first', 2]);
      clock.ms += 30_000;
      expect(queue.receive({ visibilityTimeoutMs: 30_000 })!.attempt).toBeGreaterThanOrEqual(2);
      expect(queue.receive({ visibilityTimeoutMs: 30_000 })!.attempt).toBe(3);
      await queue.close();
    });

    it('lets a late worker delete a message that is ready again', async () => {
      const clock = new FakeClock();
      const queue = design.open(newDir(), clock);
      const id = await queue.send(Buffer.from('slow'));
      queue.receive({ visibilityTimeoutMs: 10 });
      clock.ms += 20;
      expect(queue.stats()).toMatchObject({ inFlight: 1 });
      queue.receive({ visibilityTimeoutMs: 10 });
      await queue.delete(id);
      clock.ms += 20;
      expect(queue.receive({ visibilityTimeoutMs: 10 })).toBeNull();
      expect(queue.stats()).toMatchObject({ ready: 0, inFlight: 0 });
      await queue.close();
    });

    it('holds a delayed message until its due time', async () => {
      const clock = new FakeClock();
      const queue = design.open(newDir(), clock);
      await queue.send(Buffer.from('later'), { delayMs: 5_000 });
      await queue.send(Buffer.from('now'));
      const now = queue.receive({ visibilityTimeoutMs: 1000 })!;
      expect(text(now)).toBe('now');
      await queue.delete(now.id);
      expect(queue.receive({ visibilityTimeoutMs: 1000 })).toBeNull();
      expect(queue.stats().delayed).toBe(1);
      clock.ms += 5_000;
      const later = queue.receive({ visibilityTimeoutMs: 1000 })!;
      expect([text(later), later.attempt]).toEqual(['later', 1]);
      await queue.close();
    });

    it('refuses to delete a delayed message nobody received, and still delivers it', async () => {
      const clock = new FakeClock();
      const queue = design.open(newDir(), clock);
      const later = await queue.send(Buffer.from('later'), { delayMs: 5_000 });
      const now = queue.receive({ visibilityTimeoutMs: 60_000 });
      expect(now).toBeNull();
      await queue.send(Buffer.from('now'));
      expect(text(queue.receive({ visibilityTimeoutMs: 60_000 }))).toBe('now');
      await expect(queue.delete(later)).rejects.toMatchObject({ code: 'UNKNOWN_MESSAGE', context: { reason: 'never received' } });
      clock.ms += 5_000;
      expect(text(queue.receive({ visibilityTimeoutMs: 60_000 }))).toBe('later');
      await queue.close();
    });

    it('refuses a visibility timeout or delay that is not a finite number of ms, keeping every deadline', async () => {
      const clock = new FakeClock();
      const queue = design.open(newDir(), clock);
      await queue.send(Buffer.from('a'));
      await queue.send(Buffer.from('b'));
      const invalid = { code: 'INVALID_CONFIG' };
      expect(() => queue.receive({ visibilityTimeoutMs: Number.NaN })).toThrow(expect.objectContaining(invalid));
      await expect(queue.send(Buffer.from('c'), { delayMs: Number.POSITIVE_INFINITY })).rejects.toMatchObject(invalid);
      expect(text(queue.receive({ visibilityTimeoutMs: 1000 }))).toBe('a');
      clock.ms += 1000;
      expect(text(queue.receive({ visibilityTimeoutMs: 1000 }))).toBe('a'); // its deadline passed
      await queue.close();
    });

    it('keeps a delayed message delayed across a restart', async () => {
      const clock = new FakeClock();
      const dir = newDir();
      const queue = design.open(dir, clock);
      await queue.send(Buffer.from('later'), { delayMs: 5_000 });
      await queue.close();
      const reopened = design.open(dir, clock);
      expect(reopened.receive({ visibilityTimeoutMs: 1000 })).toBeNull();
      clock.ms += 5_000;
      expect(text(reopened.receive({ visibilityTimeoutMs: 1000 }))).toBe('later');
      await reopened.close();
    });

    it('loses nothing acknowledged across a restart; in-flight messages are ready again', async () => {
      const clock = new FakeClock();
      const dir = newDir();
      const queue = design.open(dir, clock, 'always');
      const ids: number[] = [];
      for (let i = 0; i < 40; i++) ids.push(await queue.send(Buffer.from(`m${i}`)));
      for (let i = 0; i < 10; i++) queue.receive({ visibilityTimeoutMs: 60_000 });
      for (const id of ids.slice(0, 5)) await queue.delete(id);
      await queue.close();
      const reopened = design.open(dir, clock, 'always');
      const bodies: string[] = [];
      for (let m = reopened.receive({ visibilityTimeoutMs: 60_000 }); m !== null; m = reopened.receive({ visibilityTimeoutMs: 60_000 })) {
        bodies.push(text(m)!);
      }
      expect(bodies.slice(-35)).toEqual(Array.from({ length: 35 }, (_, i) => `m${i + 5}`));
      if (design.deletesSurviveRestart) expect(bodies).toHaveLength(35);
      else expect(bodies.length).toBeGreaterThanOrEqual(35);
      await reopened.close();
    });

    it('acknowledges a send under group commit', async () => {
      const queue = design.open(newDir(), new FakeClock(), 'group');
      const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => queue.send(Buffer.from(`g${i}`))));
      expect(new Set(ids).size).toBe(20);
      const message = queue.receive({ visibilityTimeoutMs: 100 })!;
      await queue.delete(message.id);
      await queue.close();
    });
  });
}

describe('design A specifics', () => {
  it('refuses a body that does not fit the slot, naming both sizes', async () => {
    const queue = SlotFileQueue.open(join(newDir(), 'slots'), { slotBytes: 128 });
    await expect(queue.send(Buffer.alloc(109))).rejects.toThrow(/109 bytes does not fit a 128-byte slot, which holds 108 bytes/);
    await queue.send(Buffer.alloc(108));
    await queue.close();
  });

  it('reuses freed slots instead of growing the file', async () => {
    const queue = SlotFileQueue.open(join(newDir(), 'slots'), { chunkSlots: 4 });
    for (let round = 0; round < 10; round++) {
      const id = await queue.send(Buffer.from('x'));
      queue.receive({ visibilityTimeoutMs: 1000 });
      await queue.delete(id);
    }
    expect(queue.stats().diskBytes).toBe(5 * 1024);
    await queue.close();
  });
});
