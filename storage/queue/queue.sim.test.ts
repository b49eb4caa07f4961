/**
 * Both queue designs on a simulated disk, one scenario each for the crash-safety bugs the crash
 * loop found: a slot file that vanished or no longer opened after a power cut during creation, a
 * group-commit send that was never acknowledged, a deleted message's id handed out again after a
 * torn write, and design B saving a head past the log's durable end.
 */
import { describe, expect, it } from 'vitest';
import type { DurabilityPolicy } from '../io/durability.js';
import { isStorageError } from '../errors.js';
import { readHeadCheckpoint, writeHeadCheckpoint } from './head-checkpoint.js';
import { LogQueue, type LogQueueOptions } from './log-queue.js';
import { SimDisk, SimPowerCutError } from '../sim/sim-disk.js';
import { SlotFileQueue, type SlotFileOptions } from './slot-file.js';
import { SlowPoolIO } from '../testing/pool-io.js';
import { logOfQueueForTesting } from './log-queue.js';

const SEEDS = Array.from({ length: 40 }, (_, i) => i + 1);
/** Design A's queue directory is /data: its slot file is /data/slots. */
const SLOT_QUEUE_DIR = '/data';
const SLOT_FILE = '/data/slots';
const QUEUE_DIR = '/data/queue';
const LONG_MS = 1e9;

class ManualClock {
  ms = 1_700_000_000_000;
  nowMs(): number {
    return this.ms;
  }
}

/** A disk whose /data directory exists and is durable, as a careful operator leaves it. */
function diskWithDataDir(seed: number): SimDisk {
  const disk = new SimDisk({ seed });
  disk.mkdirp('/data');
  disk.fsyncDir('/');
  return disk;
}

function openSlots(
  disk: SimDisk,
  durability: DurabilityPolicy,
  options: SlotFileOptions = {},
): SlotFileQueue {
  // Inline syncs: a fault hits the call that caused it (the crash loop covers the thread pool).
  return SlotFileQueue.open(SLOT_QUEUE_DIR, {
    io: disk,
    durability,
    groupMaxDelayMs: 0,
    syncMode: 'inline',
    ...options,
  });
}

function openLogQueue(
  disk: SimDisk,
  durability: DurabilityPolicy,
  options: LogQueueOptions = {},
): LogQueue {
  const defaults = {
    io: disk,
    durability,
    groupMaxDelayMs: 0,
    syncMode: 'inline' as const,
    clock: new ManualClock(),
  };
  return LogQueue.open(QUEUE_DIR, { ...defaults, ...options });
}

/** Settles within a second or fails: a lost wake-up shows as a failure, not a hung test. */
function withinASecond<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('not settled within a second')), 1000);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe('design A (slot file) on a simulated disk', () => {
  it('keeps a new slot file and its acknowledged send through a power cut', async () => {
    for (const seed of SEEDS) {
      const disk = diskWithDataDir(seed);
      const id = await openSlots(disk, 'always').send(Buffer.from('kept'));
      const reopened = openSlots(disk.crash(), 'always');
      const message = reopened.receive({ visibilityTimeoutMs: LONG_MS });
      expect(message?.id, `seed ${seed}`).toBe(id);
      expect(message?.body.toString()).toBe('kept');
    }
  });

  it('opens after a power cut at any moment of its creation', async () => {
    // 13 calls: the directory's fsync, the lock, the header under a temporary name, the rename.
    for (let nth = 1; nth <= 13; nth++) {
      const disk = diskWithDataDir(nth);
      disk.injectFault({ kind: 'power-cut', nth });
      try {
        openSlots(disk, 'none');
      } catch (error) {
        if (!(error instanceof SimPowerCutError)) throw error;
      }
      const reopened = openSlots(disk.crash(), 'none');
      expect(await reopened.send(Buffer.from('after'))).toBe(0);
    }
  });

  it('acknowledges a group-commit send that fills the group on its own', async () => {
    const queue = openSlots(diskWithDataDir(1), 'group', { slotBytes: 256, groupMaxBytes: 64 });
    expect(await withinASecond(queue.send(Buffer.from('one')))).toBe(0);
    expect(await withinASecond(queue.send(Buffer.from('two')))).toBe(1);
  });

  it('never hands out the id of a deleted message again after a torn write', async () => {
    for (const seed of SEEDS) {
      const disk = diskWithDataDir(seed);
      // 1 KiB slots span two sectors: a crash can land half of a slot's write.
      const queue = openSlots(disk, 'always', { slotBytes: 1024, chunkSlots: 4 });
      const first = await queue.send(Buffer.from('first'));
      queue.receive({ visibilityTimeoutMs: LONG_MS });
      await queue.delete(first);
      disk.injectFault({ kind: 'power-cut', nth: 2 }); // the next send's fdatasync
      await expect(queue.send(Buffer.alloc(900, 7))).rejects.toBeInstanceOf(SimPowerCutError);
      const reopened = openSlots(disk.crash(), 'always', { slotBytes: 1024, chunkSlots: 4 });
      expect(reopened.stats().end, `seed ${seed}`).toBeGreaterThan(first);
    }
  });
});

describe('design A under group commit', () => {
  it('keeps the highest id found when opening through group syncs before any send', async () => {
    const options = { slotBytes: 1024, chunkSlots: 4 };
    for (const seed of SEEDS) {
      const disk = diskWithDataDir(seed);
      const first = openSlots(disk, 'group', options);
      await first.send(Buffer.from('first'));
      await first.close();
      const queue = openSlots(disk, 'group', options);
      queue.receive({ visibilityTimeoutMs: LONG_MS });
      await queue.delete(0); // its group sync is the first since opening
      disk.injectFault({ kind: 'power-cut', nth: 2 }); // after the next send's write
      await expect(queue.send(Buffer.alloc(900, 7))).rejects.toThrow();
      const reopened = openSlots(disk.crash(), 'group', options);
      expect(reopened.stats().end, `seed ${seed}`).toBeGreaterThan(0);
    }
  });
});

describe('design A after a send that fails part-way', () => {
  it('does not bring back the deleted message whose slot it was writing', async () => {
    for (const seed of SEEDS.slice(0, 10)) {
      const disk = diskWithDataDir(seed);
      const queue = openSlots(disk, 'always', { slotBytes: 256 });
      for (const text of ['deleted', 'kept']) await queue.send(Buffer.from(text));
      queue.receive({ visibilityTimeoutMs: LONG_MS });
      await queue.delete(0);
      // Six bytes land - the FULL state byte among them - then the disk is full.
      disk.injectFault({ kind: 'short-write', nth: 1, landedBytes: 6, then: 'ENOSPC' });
      await expect(queue.send(Buffer.from('refused'))).rejects.toMatchObject({ code: 'IO_ERROR' });
      // The writer lets go of the file as if its process died: fenced, its close syncs nothing,
      // and only then may another writer open the slot file.
      await queue.close();
      // Reopened on the same page cache, then after a power cut.
      for (const on of [(): SimDisk => disk, (): SimDisk => disk.crash()]) {
        const reopened = openSlots(on(), 'always', { slotBytes: 256 });
        const bodies: string[] = [];
        for (let m = reopened.receive({ visibilityTimeoutMs: LONG_MS }); m !== null; ) {
          bodies.push(m.body.toString());
          m = reopened.receive({ visibilityTimeoutMs: LONG_MS });
        }
        expect(bodies, `seed ${seed}`).toEqual(['kept']);
      }
    }
  });
});

describe('design A: a partial write over a deleted message', () => {
  // The state byte is outside the slot CRC, but after it: a send's write that landed only its
  // first bytes (the new CRC, then FULL) over a deleted message leaves a CRC that does not match
  // the old bytes, so the deleted message does not read back.
  it('does not bring back a deleted message after a partial write and a power cut', async () => {
    for (const seed of SEEDS) {
      const disk = diskWithDataDir(seed);
      const queue = openSlots(disk, 'always', { slotBytes: 256 });
      for (const text of ['deleted', 'kept']) await queue.send(Buffer.from(text));
      queue.receive({ visibilityTimeoutMs: LONG_MS });
      await queue.delete(0);
      disk.injectFault({ kind: 'short-write', nth: 1, landedBytes: 7, then: 'no-progress' });
      disk.injectFault({ kind: 'power-cut', nth: 2 }); // the write that puts DELETED back
      await expect(queue.send(Buffer.from('refused'))).rejects.toThrow();
      const reopened = openSlots(disk.crash(), 'always', { slotBytes: 256 });
      const first = reopened.receive({ visibilityTimeoutMs: LONG_MS });
      expect(first?.body.toString(), `seed ${seed}`).toBe('kept');
    }
  });
});

describe('design B (log queue) on a simulated disk', () => {
  it('never saves a head past what the log holds after a power cut', async () => {
    for (const seed of SEEDS) {
      const disk = diskWithDataDir(seed);
      const queue = openLogQueue(disk, 'group', { checkpointEveryDeletes: 1 });
      // A receiver takes the message before its group sync has run, and deletes it.
      const sent = queue.send(Buffer.from('taken early'));
      sent.catch(() => undefined);
      const message = queue.receive({ visibilityTimeoutMs: LONG_MS })!;
      await queue.delete(message.id);
      const crashed = disk.crash();
      const savedHead = readHeadCheckpoint(crashed, QUEUE_DIR) ?? 0;
      const reopened = openLogQueue(crashed, 'group');
      expect(savedHead, `seed ${seed}`).toBeLessThanOrEqual(reopened.stats().end);
    }
  });

  it('lowers a saved head past the end, so messages sent again are not skipped', async () => {
    const disk = diskWithDataDir(1);
    const queue = openLogQueue(disk, 'always');
    for (const text of ['a', 'b']) await queue.send(Buffer.from(text));
    await queue.close();
    writeHeadCheckpoint(disk, QUEUE_DIR, 5);
    const reopened = openLogQueue(disk, 'always');
    expect(reopened.stats().head).toBe(2);
    expect(readHeadCheckpoint(disk, QUEUE_DIR)).toBe(2);
    expect(await reopened.send(Buffer.from('c'))).toBe(2);
    const recovered = openLogQueue(disk.crash(), 'always');
    expect(recovered.receive({ visibilityTimeoutMs: LONG_MS })?.body.toString()).toBe('c');
  });

  it('reports the fence when a message in flight was cut away by a failed sync', async () => {
    const disk = diskWithDataDir(2);
    const clock = new ManualClock();
    const queue = openLogQueue(disk, 'group', { clock });
    const sends = ['x', 'y'].map((text) => queue.send(Buffer.from(text)));
    expect(queue.receive({ visibilityTimeoutMs: 10 })?.id).toBe(0);
    disk.injectFault({ kind: 'error', call: 'fdatasync', nth: 1, errno: 'EIO' });
    const acks = await Promise.allSettled(sends);
    expect(acks.map((ack) => ack.status)).toEqual(['rejected', 'rejected']);
    clock.ms += 100;
    let thrown: unknown;
    try {
      queue.receive({ visibilityTimeoutMs: 10 });
    } catch (error) {
      thrown = error;
    }
    expect(isStorageError(thrown, 'QUEUE_FENCED')).toBe(true);
    expect(isStorageError((thrown as Error).cause, 'LOG_FENCED')).toBe(true);
    await queue.close();
    expect(() => logOfQueueForTesting(queue).read(0)).toThrow(/closed/);
    expect(() => queue.receive()).toThrow(expect.objectContaining({ code: 'QUEUE_CLOSED' }));
  });
});

describe('closing the slot file', () => {
  it("acknowledges no send whose only covering fdatasync, close's, failed", async () => {
    for (const seed of SEEDS) {
      const disk = diskWithDataDir(seed);
      const queue = openSlots(disk, 'group', { slotBytes: 1024, chunkSlots: 4 });
      const sent = queue.send(Buffer.alloc(900, 7)).then(
        () => 'ok',
        () => 'rejected',
      );
      disk.injectFault({ kind: 'error', call: 'fdatasync', nth: 1, errno: 'EIO' });
      await expect(queue.close()).rejects.toMatchObject({ code: 'IO_ERROR' });
      expect(await sent, `seed ${seed}`).toBe('rejected');
      expect(disk.openHandles).toBe(0);
    }
  });

  it('waits for a thread-pool sync in flight, then acknowledges what it made durable', async () => {
    const disk = diskWithDataDir(1);
    const queue = openSlots(disk, 'group', { io: new SlowPoolIO(disk), syncMode: 'thread-pool' });
    const sent = queue.send(Buffer.from('hello')).then(
      () => 'ok',
      () => 'rejected',
    );
    await new Promise((resolve) => setImmediate(resolve)); // the group's sync is on the pool
    await queue.close();
    expect(await sent).toBe('ok');
    expect(disk.openHandles).toBe(0);
    const reopened = openSlots(disk.crash(), 'group');
    expect(reopened.receive({ visibilityTimeoutMs: LONG_MS })?.body.toString()).toBe('hello');
    await reopened.close();
  });

  it('refuses bad group-commit bounds before opening anything', () => {
    const disk = diskWithDataDir(1);
    expect(() => openSlots(disk, 'group', { groupMaxBytes: 0 })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }),
    );
    expect(disk.openHandles).toBe(0);
  });
});

describe('a read that fails during receive', () => {
  const readFault = (file: string | RegExp) =>
    ({ kind: 'error', call: 'read', nth: 1, errno: 'EIO', file }) as const;

  it('design B: leaves a message that is ready again where it was, counts included', async () => {
    const disk = diskWithDataDir(1);
    const clock = new ManualClock();
    const queue = openLogQueue(disk, 'none', { clock });
    const id = await queue.send(Buffer.from('hello'));
    expect(queue.receive({ visibilityTimeoutMs: 10 })?.id).toBe(id);
    clock.ms += 100; // its deadline passes: ready again
    disk.injectFault(readFault(/\.log$/));
    expect(() => queue.receive({ visibilityTimeoutMs: 10 })).toThrow(
      expect.objectContaining({ code: 'IO_ERROR' }),
    );
    expect(queue.stats().ready).toBe(1);
    expect(queue.receive({ visibilityTimeoutMs: 10 })?.body.toString()).toBe('hello');
    await queue.delete(id);
    expect(queue.stats().ready).toBe(0);
  });

  it('design A: leaves a message never delivered first in line', async () => {
    const disk = diskWithDataDir(1);
    const queue = openSlots(disk, 'none');
    await queue.send(Buffer.from('first'));
    await queue.send(Buffer.from('second'));
    disk.injectFault(readFault(SLOT_FILE));
    expect(() => queue.receive({ visibilityTimeoutMs: LONG_MS })).toThrow(
      expect.objectContaining({ code: 'IO_ERROR' }),
    );
    expect(queue.receive({ visibilityTimeoutMs: LONG_MS })?.body.toString()).toBe('first');
    await queue.close();
  });
});

describe('a slot file whose size ends part-way through a slot', () => {
  it('reads the message lying whole in that slot and never hands its id out again', async () => {
    const disk = diskWithDataDir(1);
    const queue = openSlots(disk, 'none', { slotBytes: 640, chunkSlots: 8 });
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) ids.push(await queue.send(Buffer.from(`message ${i}`)));
    await queue.close();
    // As a power cut can leave it: the size committed at a page boundary inside the sixth slot
    // (header slot + five slots end at 3,840), after the sixth message's short record.
    const handle = disk.open(SLOT_FILE, { create: false });
    disk.truncate(handle, 4096);
    disk.close(handle);
    const reopened = openSlots(disk, 'none', { slotBytes: 640, chunkSlots: 8 });
    const bodies: string[] = [];
    for (
      let message = reopened.receive({ visibilityTimeoutMs: LONG_MS });
      message !== null;
      message = reopened.receive({ visibilityTimeoutMs: LONG_MS })
    ) {
      bodies.push(message.body.toString());
    }
    expect(bodies).toEqual(ids.map((_, i) => `message ${i}`));
    expect(await reopened.send(Buffer.from('next'))).toBe(ids.at(-1)! + 1);
    await reopened.close();
  });
});
