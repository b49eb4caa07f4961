/**
 * One conformance suite, run against both designs: the same contract, equally serious — the
 * same way to open, the same options and limits, the same codes, counters and waiting receive.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rejectionOf } from '../../test/fixtures/storage-error.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import type { DurabilityPolicy } from '../io/durability.js';
import { ioError } from '../errors.js';
import { NodeFileIO } from '../io/node-file-io.js';
import { DelegatingFileIO } from '../io/delegating-file-io.js';
import { LogQueue } from './log-queue.js';
import {
  DEFAULT_VISIBILITY_TIMEOUT_MS,
  type Queue,
  type QueueClock,
  type QueueOptions,
} from './queue.js';
import { SimDisk } from '../sim/sim-disk.js';
import { SlotFileQueue } from './slot-file.js';
import { ManualTimerClock } from '../testing/manual-clock.js';

interface Design {
  readonly name: string;
  /** Opens with this suite's small layout (segments, growth chunks) and `options`. */
  readonly openWith: (dir: string, options: QueueOptions) => Queue;
  /** Does a delete made just before a restart survive it? */
  readonly deletesSurviveRestart: boolean;
}

const designs: Design[] = [
  {
    name: 'design A (slot file)',
    openWith: (dir, options) => SlotFileQueue.open(dir, { chunkSlots: 16, ...options }),
    deletesSurviveRestart: true,
  },
  {
    name: 'design B (log queue)',
    openWith: (dir, options) =>
      LogQueue.open(dir, {
        segmentBytes: 4096,
        checkpointEveryDeletes: 1_000_000,
        checkpointIntervalMs: 1e9,
        ...options,
      }),
    deletesSurviveRestart: false,
  },
];

function openOn(
  design: Design,
  dir: string,
  clock: QueueClock,
  durability: DurabilityPolicy = 'none',
): Queue {
  return design.openWith(dir, { clock, durability });
}

const newDir = tempDirs('queue');
const text = (message: { body: Buffer } | null): string | null =>
  message === null ? null : message.body.toString();

for (const design of designs) {
  describe(design.name, () => {
    it('delivers sent messages in order and returns null when empty', async () => {
      const queue = openOn(design, newDir(), new ManualTimerClock());
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
      const queue = openOn(design, newDir(), new ManualTimerClock());
      const id = await queue.send(Buffer.from('x'));
      const message = queue.receive({ visibilityTimeoutMs: 1000 })!;
      expect(message.id).toBe(id);
      await queue.delete(id);
      expect(queue.stats()).toMatchObject({ ready: 0, inFlight: 0 });
      await expect(queue.delete(id)).rejects.toMatchObject({
        code: 'UNKNOWN_MESSAGE',
        context: { reason: 'already deleted' },
      });
      await expect(queue.delete(id + 100)).rejects.toMatchObject({ code: 'UNKNOWN_MESSAGE' });
      expect(queue.receive({ visibilityTimeoutMs: 1000 })).toBeNull();
      await queue.close();
    });

    it('refuses to delete a message that was never received, changing nothing', async () => {
      const queue = openOn(design, newDir(), new ManualTimerClock());
      const id = await queue.send(Buffer.from('x'));
      const before = queue.stats();
      await expect(queue.delete(id)).rejects.toMatchObject({
        code: 'UNKNOWN_MESSAGE',
        context: { reason: 'never received' },
      });
      expect(queue.stats()).toEqual(before);
      expect(text(queue.receive({ visibilityTimeoutMs: 10 }))).toBe('x');
      await queue.close();
    });

    it('redelivers after the visibility timeout with a higher attempt count', async () => {
      const clock = new ManualTimerClock();
      const queue = openOn(design, newDir(), clock);
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
      const clock = new ManualTimerClock();
      const queue = openOn(design, newDir(), clock);
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
      const clock = new ManualTimerClock();
      const queue = openOn(design, newDir(), clock);
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
      const clock = new ManualTimerClock();
      const queue = openOn(design, newDir(), clock);
      const later = await queue.send(Buffer.from('later'), { delayMs: 5_000 });
      const now = queue.receive({ visibilityTimeoutMs: 60_000 });
      expect(now).toBeNull();
      await queue.send(Buffer.from('now'));
      expect(text(queue.receive({ visibilityTimeoutMs: 60_000 }))).toBe('now');
      await expect(queue.delete(later)).rejects.toMatchObject({
        code: 'UNKNOWN_MESSAGE',
        context: { reason: 'never received' },
      });
      clock.ms += 5_000;
      expect(text(queue.receive({ visibilityTimeoutMs: 60_000 }))).toBe('later');
      await queue.close();
    });

    it('refuses a visibility timeout or delay that is not a finite number of ms, keeping every deadline', async () => {
      const clock = new ManualTimerClock();
      const queue = openOn(design, newDir(), clock);
      await queue.send(Buffer.from('a'));
      await queue.send(Buffer.from('b'));
      const invalid = { code: 'INVALID_CONFIG' };
      expect(() => queue.receive({ visibilityTimeoutMs: Number.NaN })).toThrow(
        expect.objectContaining(invalid),
      );
      await expect(
        queue.send(Buffer.from('c'), { delayMs: Number.POSITIVE_INFINITY }),
      ).rejects.toMatchObject(invalid);
      expect(text(queue.receive({ visibilityTimeoutMs: 1000 }))).toBe('a');
      clock.ms += 1000;
      expect(text(queue.receive({ visibilityTimeoutMs: 1000 }))).toBe('a'); // its deadline passed
      await queue.close();
    });

    it('keeps a delayed message delayed across a restart', async () => {
      const clock = new ManualTimerClock();
      const dir = newDir();
      const queue = openOn(design, dir, clock);
      await queue.send(Buffer.from('later'), { delayMs: 5_000 });
      await queue.close();
      const reopened = openOn(design, dir, clock);
      expect(reopened.receive({ visibilityTimeoutMs: 1000 })).toBeNull();
      clock.ms += 5_000;
      expect(text(reopened.receive({ visibilityTimeoutMs: 1000 }))).toBe('later');
      await reopened.close();
    });

    it('loses nothing acknowledged across a restart; in-flight messages are ready again', async () => {
      const clock = new ManualTimerClock();
      const dir = newDir();
      const queue = openOn(design, dir, clock, 'always');
      const ids: number[] = [];
      for (let i = 0; i < 40; i++) ids.push(await queue.send(Buffer.from(`m${i}`)));
      for (let i = 0; i < 10; i++) queue.receive({ visibilityTimeoutMs: 60_000 });
      for (const id of ids.slice(0, 5)) await queue.delete(id);
      await queue.close();
      const reopened = openOn(design, dir, clock, 'always');
      const bodies: string[] = [];
      for (
        let m = reopened.receive({ visibilityTimeoutMs: 60_000 });
        m !== null;
        m = reopened.receive({ visibilityTimeoutMs: 60_000 })
      ) {
        bodies.push(text(m)!);
      }
      expect(bodies.slice(-35)).toEqual(Array.from({ length: 35 }, (_, i) => `m${i + 5}`));
      if (design.deletesSurviveRestart) expect(bodies).toHaveLength(35);
      else expect(bodies.length).toBeGreaterThanOrEqual(35);
      await reopened.close();
    });

    it('acknowledges a send under group commit', async () => {
      const queue = openOn(design, newDir(), new ManualTimerClock(), 'group');
      const ids = await Promise.all(
        Array.from({ length: 20 }, (_, i) => queue.send(Buffer.from(`g${i}`))),
      );
      expect(new Set(ids).size).toBe(20);
      const message = queue.receive({ visibilityTimeoutMs: 100 })!;
      await queue.delete(message.id);
      await queue.close();
    });
  });
}

/** Whether `promise` has settled once the microtasks and I/O callbacks of this turn have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

/** A FileIO whose mkdir is refused, as for a user without write permission on the parent. */
class DeniedMkdirIO extends DelegatingFileIO {
  override mkdirp(dirPath: string): void {
    const denied = Object.assign(new Error('permission denied'), { code: 'EACCES' });
    throw ioError('mkdir', dirPath, denied);
  }
}

for (const design of designs) {
  describe(`${design.name}: opening a directory`, () => {
    it('creates the directory and its missing parents durably', async () => {
      for (let seed = 1; seed <= 10; seed++) {
        const disk = new SimDisk({ seed });
        const options = { io: disk, durability: 'always' as const, syncMode: 'inline' as const };
        const queue = design.openWith('/data/queues/orders', options);
        const id = await queue.send(Buffer.from('kept'));
        const reopened = design.openWith('/data/queues/orders', { ...options, io: disk.crash() });
        expect(reopened.receive()?.id, `seed ${seed}`).toBe(id);
        await reopened.close();
      }
    });

    it('names the directory and says what to do when a file is in the way', () => {
      const file = join(newDir(), 'not-a-directory');
      writeFileSync(file, 'x');
      for (const dir of [join(file, 'queue'), file]) {
        let thrown: unknown;
        try {
          design.openWith(dir, {});
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toMatchObject({ code: 'IO_ERROR', context: { file: dir } });
        expect((thrown as Error).message).toContain(
          `cannot create or open the queue directory ${dir}`,
        );
        expect((thrown as Error).message).toMatch(/is a file, not a directory|a file of that name/);
      }
    });

    it('names the directory and says what to do when it may not be created', () => {
      const dir = join(newDir(), 'new', 'queue');
      const io = new DeniedMkdirIO(new NodeFileIO());
      let thrown: unknown;
      try {
        design.openWith(dir, { io });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({ code: 'IO_ERROR', context: { file: dir, reason: 'EACCES' } });
      expect((thrown as Error).message).toMatch(
        new RegExp(`queue directory ${dir} \\(EACCES.*\\); give this user write permission`),
      );
      expect(existsSync(dir)).toBe(false);
    });

    it('refuses a maxBodyBytes out of range before creating anything', () => {
      const dir = join(newDir(), 'queue');
      for (const maxBodyBytes of [0, 1.5, 2 ** 20]) {
        expect(() => design.openWith(dir, { maxBodyBytes })).toThrow(
          expect.objectContaining({ code: 'INVALID_CONFIG' }),
        );
      }
      expect(existsSync(dir)).toBe(false);
    });
  });

  describe(`${design.name}: limits, codes and counters`, () => {
    it('takes a 1 KiB body by default, delayed or not, and refuses a larger one', async () => {
      const queue = openOn(design, newDir(), new ManualTimerClock());
      expect(queue.maxBodyBytes).toBe(1024);
      await queue.send(Buffer.alloc(1024, 1));
      await queue.send(Buffer.alloc(1024, 2), { delayMs: 10 });
      const before = queue.stats();
      const refused = await rejectionOf(queue.send(Buffer.alloc(1025)));
      expect(refused).toMatchObject({
        code: 'MESSAGE_TOO_LARGE',
        context: { sizeBytes: 1025, limitBytes: 1024 },
      });
      expect(refused.message).toContain('maxBodyBytes');
      expect(queue.stats()).toEqual(before);
      expect(queue.receive()?.body).toEqual(Buffer.alloc(1024, 1));
      await queue.close();
    });

    it('takes bodies up to the maxBodyBytes it was opened with', async () => {
      const queue = design.openWith(newDir(), { durability: 'none', maxBodyBytes: 3000 });
      expect(queue.maxBodyBytes).toBe(3000);
      await queue.send(Buffer.alloc(3000), { delayMs: 10 });
      await expect(queue.send(Buffer.alloc(3001))).rejects.toMatchObject({
        code: 'MESSAGE_TOO_LARGE',
      });
      await queue.close();
    });

    it('refuses everything with QUEUE_CLOSED once closed', async () => {
      const queue = openOn(design, newDir(), new ManualTimerClock());
      const id = await queue.send(Buffer.from('x'));
      queue.receive();
      await queue.close();
      const closed = { code: 'QUEUE_CLOSED' };
      await expect(queue.send(Buffer.from('y'))).rejects.toMatchObject(closed);
      expect(() => queue.receive()).toThrow(expect.objectContaining(closed));
      await expect(queue.receiveWait({ waitMs: 10 })).rejects.toMatchObject(closed);
      await expect(queue.delete(id)).rejects.toMatchObject(closed);
      await expect(queue.flush()).rejects.toMatchObject(closed);
      await queue.close(); // a second close does nothing
    });

    it('refuses every send with QUEUE_FENCED after a failed sync', async () => {
      const disk = new SimDisk({ seed: 3 });
      const queue = design.openWith('/data/q', {
        io: disk,
        durability: 'always',
        syncMode: 'inline',
      });
      await queue.send(Buffer.from('before'));
      disk.injectFault({ kind: 'error', call: 'fdatasync', nth: 1, errno: 'EIO' });
      await expect(queue.send(Buffer.from('failed'))).rejects.toThrow();
      const fenced = await rejectionOf(queue.send(Buffer.from('after')));
      expect(fenced.code).toBe('QUEUE_FENCED');
      expect(fenced.message).toMatch(/reopen/);
      await queue.close().catch(() => undefined);
    });

    it('counts its own writes and syncs, apart from another queue on the same FileIO', async () => {
      const io = new NodeFileIO();
      const queue = design.openWith(newDir(), { io, durability: 'always' });
      const other = design.openWith(newDir(), { io, durability: 'always' });
      const atOpen = queue.counters;
      await queue.send(Buffer.from('x'));
      const afterSend = queue.counters;
      expect(afterSend.writeCalls).toBeGreaterThan(atOpen.writeCalls);
      expect(afterSend.writeBytes).toBeGreaterThan(atOpen.writeBytes);
      expect(afterSend.fdatasyncCalls).toBeGreaterThan(atOpen.fdatasyncCalls);
      const otherBefore = other.counters;
      await queue.send(Buffer.from('y'));
      expect(other.counters).toEqual(otherBefore);
      afterSend.writeCalls = -1; // a copy: changing it changes nothing
      expect(queue.counters.writeCalls).toBeGreaterThan(0);
      await Promise.all([queue.close(), other.close()]);
    });

    it('syncs on flush, even under none', async () => {
      const queue = design.openWith(newDir(), { durability: 'none' });
      await queue.send(Buffer.from('x'));
      const before = queue.counters.fdatasyncCalls;
      await queue.flush();
      expect(queue.counters.fdatasyncCalls).toBeGreaterThan(before);
      await queue.close();
    });
  });

  describe(`${design.name}: receive and receiveWait`, () => {
    it('holds a message for 30 s when receive names no visibility timeout', async () => {
      const clock = new ManualTimerClock();
      const queue = openOn(design, newDir(), clock);
      await queue.send(Buffer.from('x'));
      const message = queue.receive()!;
      expect(message.deadlineMs).toBe(clock.ms + DEFAULT_VISIBILITY_TIMEOUT_MS);
      const waited = await queue.receiveWait({ waitMs: 0 });
      expect(waited).toBeNull();
      await queue.close();
    });

    it('resolves at once with a ready message, else with null once waitMs has passed', async () => {
      const clock = new ManualTimerClock();
      const queue = openOn(design, newDir(), clock);
      await queue.send(Buffer.from('ready'));
      expect(text(await queue.receiveWait({ waitMs: 1000 }))).toBe('ready');
      const waiting = queue.receiveWait({ waitMs: 1000 });
      expect(await settled(waiting)).toBe(false);
      clock.advance(999);
      expect(await settled(waiting)).toBe(false);
      clock.advance(1);
      expect(await waiting).toBeNull();
      expect(clock.pendingTimers).toBe(0);
      await queue.close();
    });

    it('wakes on a send, serving several waiters in the order they asked', async () => {
      const clock = new ManualTimerClock();
      const queue = openOn(design, newDir(), clock);
      const first = queue.receiveWait({ waitMs: 60_000 });
      const second = queue.receiveWait({ waitMs: 60_000, visibilityTimeoutMs: 5 });
      expect(await settled(first)).toBe(false);
      await queue.send(Buffer.from('one'));
      expect(text(await first)).toBe('one');
      expect(await settled(second)).toBe(false);
      await queue.send(Buffer.from('two'));
      const message = await second;
      expect([text(message), message!.deadlineMs]).toEqual(['two', clock.ms + 5]);
      expect(clock.pendingTimers).toBe(0);
      await queue.close();
    });

    it('wakes when a visibility timeout runs out', async () => {
      const clock = new ManualTimerClock();
      const queue = openOn(design, newDir(), clock);
      const id = await queue.send(Buffer.from('slow'));
      queue.receive({ visibilityTimeoutMs: 1000 });
      const waiting = queue.receiveWait({ waitMs: 60_000 });
      clock.advance(999);
      expect(await settled(waiting)).toBe(false);
      clock.advance(1);
      expect(await waiting).toMatchObject({ id, attempt: 2 });
      await queue.close();
    });

    it('wakes when a delayed message comes due', async () => {
      const clock = new ManualTimerClock();
      const queue = openOn(design, newDir(), clock);
      const waiting = queue.receiveWait({ waitMs: 60_000 });
      await queue.send(Buffer.from('later'), { delayMs: 5000 });
      clock.advance(4999);
      expect(await settled(waiting)).toBe(false);
      clock.advance(1);
      expect(text(await waiting)).toBe('later');
      await queue.close();
    });

    it('gives a message ready the moment a wait ends to the waiter', async () => {
      const clock = new ManualTimerClock();
      const queue = openOn(design, newDir(), clock);
      const waiting = queue.receiveWait({ waitMs: 5000 });
      await queue.send(Buffer.from('due'), { delayMs: 5000 });
      clock.advance(5000);
      expect(text(await waiting)).toBe('due');
      await queue.close();
    });

    it('resolves every waiter with null on close', async () => {
      const queue = openOn(design, newDir(), new ManualTimerClock());
      const waiters = [1, 2].map(() => queue.receiveWait({ waitMs: 60_000 }));
      await queue.close();
      expect(await Promise.all(waiters)).toEqual([null, null]);
    });

    it('refuses a wait that is not a finite number of ms, or longer than timers wait', async () => {
      const queue = openOn(design, newDir(), new ManualTimerClock());
      for (const waitMs of [Number.NaN, -1, 2 ** 31]) {
        await expect(queue.receiveWait({ waitMs })).rejects.toMatchObject({
          code: 'INVALID_CONFIG',
        });
      }
      await queue.close();
    });

    it('waits on real timers with the default clock', async () => {
      const queue = design.openWith(newDir(), { durability: 'none' });
      expect(await queue.receiveWait({ waitMs: 5 })).toBeNull();
      const waiting = queue.receiveWait({ waitMs: 60_000 });
      await queue.send(Buffer.from('x'));
      expect(text(await waiting)).toBe('x');
      await queue.close();
    });
  });
}

describe('design A specifics', () => {
  it('refuses a body over what its slot holds, naming both sizes', async () => {
    const queue = SlotFileQueue.open(newDir(), { slotBytes: 128 });
    expect(queue.maxBodyBytes).toBe(108);
    await expect(queue.send(Buffer.alloc(109))).rejects.toMatchObject({
      code: 'MESSAGE_TOO_LARGE',
      context: { sizeBytes: 109, limitBytes: 108 },
    });
    await expect(queue.send(Buffer.alloc(101), { delayMs: 10 })).rejects.toThrow(
      /101 bytes is over this queue's limit of 100 bytes \(a delayed body shares its 128-byte/,
    );
    await queue.send(Buffer.alloc(108));
    await queue.send(Buffer.alloc(100), { delayMs: 10 });
    await queue.close();
  });

  it('sizes its slots for maxBodyBytes: a power of two holding the body and a due time', () => {
    const sizes = [
      [undefined, 2048],
      [2020, 2048],
      [2021, 4096],
      [100, 128],
    ] as const;
    for (const [maxBodyBytes, slotBytes] of sizes) {
      const options = maxBodyBytes === undefined ? {} : { maxBodyBytes };
      const queue = SlotFileQueue.open(newDir(), options);
      expect(queue.slotBytes).toBe(slotBytes);
      void queue.close();
    }
    expect(() => SlotFileQueue.open(newDir(), { slotBytes: 1024, maxBodyBytes: 1005 })).toThrow(
      /maxBodyBytes must be at most 1004/,
    );
  });

  it('reuses freed slots instead of growing the file', async () => {
    const queue = SlotFileQueue.open(newDir(), { chunkSlots: 4 });
    for (let round = 0; round < 10; round++) {
      const id = await queue.send(Buffer.from('x'));
      queue.receive({ visibilityTimeoutMs: 1000 });
      await queue.delete(id);
    }
    expect(queue.stats().diskBytes).toBe(5 * queue.slotBytes);
    await queue.close();
  });
});
