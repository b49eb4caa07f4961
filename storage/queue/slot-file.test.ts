/**
 * Design A's writer lock: one SlotFileQueue per slot file, taken before the file is created or
 * opened, given back by close and by every open that fails, with no handle left behind.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { SimDisk } from '../sim/sim-disk.js';
import { SlotFileQueue, type SlotFileOptions } from './slot-file.js';
import { acquireWriterLock } from '../io/writer-lock.js';
import { errorOf } from '../../test/fixtures/storage-error.js';

const QUEUE_DIR = '/data';
const SLOT_FILE = '/data/slots';
const LOCK_FILE = '/data/slots.lock';
const newDir = tempDirs('slot-file');

function diskWithDataDir(): SimDisk {
  const disk = new SimDisk({ seed: 1 });
  disk.mkdirp('/data');
  disk.fsyncDir('/');
  return disk;
}

function openSlots(disk: SimDisk, options: SlotFileOptions = {}): SlotFileQueue {
  return SlotFileQueue.open(QUEUE_DIR, { io: disk, durability: 'always', ...options });
}

describe('design A: one writer per slot file', () => {
  it('refuses a second open of the same file in this process, leaking nothing', async () => {
    const disk = diskWithDataDir();
    const first = openSlots(disk);
    expect(disk.openHandles).toBe(2); // the slot file and its lock
    const error = errorOf(() => openSlots(disk));
    expect(error).toMatchObject({ code: 'QUEUE_LOCKED', context: { file: LOCK_FILE } });
    expect(error.message).toContain(`cannot open the queue in ${QUEUE_DIR} for writing`);
    expect(error.message).toContain('close that writer first');
    expect(error.context.holder).toContain(`pid ${process.pid} `);
    expect(error.cause).toMatchObject({ code: 'LOG_LOCKED' });
    expect(disk.openHandles).toBe(2);
    expect(disk.heldLocks).toBe(1);
    await first.send(Buffer.from('still mine'));
    await first.close();
    expect(disk.openHandles).toBe(0);
    expect(disk.heldLocks).toBe(0);
    const second = openSlots(disk);
    expect(second.receive({ visibilityTimeoutMs: 1000 })?.body.toString()).toBe('still mine');
    await second.close();
  });

  it('takes the lock before creating the file, so a refused creator creates nothing', () => {
    const disk = diskWithDataDir();
    const other = acquireWriterLock(disk, LOCK_FILE, 'another writer');
    expect(errorOf(() => openSlots(disk)).code).toBe('QUEUE_LOCKED');
    expect(disk.exists(SLOT_FILE)).toBe(false);
    expect(disk.exists(`${SLOT_FILE}.tmp`)).toBe(false);
    other.release();
  });

  it('refuses bad options before taking the lock', () => {
    const disk = diskWithDataDir();
    expect(errorOf(() => openSlots(disk, { slotBytes: 3 })).code).toBe('INVALID_CONFIG');
    expect(disk.exists(LOCK_FILE)).toBe(false);
    expect(disk.openHandles).toBe(0);
  });

  it('gives the lock back when the file does not open: other slot size, bad header', async () => {
    const disk = diskWithDataDir();
    await openSlots(disk, { slotBytes: 256 }).close();
    expect(errorOf(() => openSlots(disk, { slotBytes: 512 })).code).toBe('INVALID_CONFIG');
    expect(disk.openHandles).toBe(0);
    expect(disk.heldLocks).toBe(0);
    const handle = disk.open(SLOT_FILE, { create: false });
    disk.write(handle, Buffer.from('XXXX'), 0, 4, 0);
    disk.close(handle);
    expect(errorOf(() => openSlots(disk, { slotBytes: 256 })).code).toBe('INVALID_QUEUE_FILE');
    expect(disk.openHandles).toBe(0);
    expect(disk.heldLocks).toBe(0);
  });

  it('gives the lock back when creating or opening the file fails', () => {
    const disk = diskWithDataDir();
    // The first directory fsync makes /data durable; the second is the new file's.
    disk.injectFault({ kind: 'error', call: 'fsyncDir', nth: 2, errno: 'EIO' });
    expect(errorOf(() => openSlots(disk)).code).toBe('IO_ERROR');
    expect(disk.openHandles).toBe(0);
    expect(disk.heldLocks).toBe(0);
    disk.injectFault({ kind: 'error', call: 'open', nth: 1, errno: 'EMFILE', file: SLOT_FILE });
    expect(errorOf(() => openSlots(disk))).toMatchObject({
      code: 'IO_ERROR',
      context: { reason: 'EMFILE' },
    });
    expect(disk.openHandles).toBe(0);
    expect(disk.heldLocks).toBe(0);
  });

  it("gives the lock back on close even when close's sync fails", async () => {
    const disk = diskWithDataDir();
    const queue = openSlots(disk, { durability: 'none' });
    await queue.send(Buffer.from('x'));
    disk.injectFault({ kind: 'error', call: 'fdatasync', nth: 1, errno: 'EIO' });
    await expect(queue.close()).rejects.toMatchObject({ code: 'IO_ERROR' });
    expect(disk.heldLocks).toBe(0);
    await queue.close();
    await openSlots(disk).close();
  });

  it('refuses a second open on the real disk until the first is closed', async () => {
    const dir = newDir();
    const first = SlotFileQueue.open(dir);
    expect(errorOf(() => SlotFileQueue.open(dir))).toMatchObject({
      code: 'QUEUE_LOCKED',
      context: { file: join(dir, 'slots.lock') },
    });
    await first.close();
    await SlotFileQueue.open(dir).close();
  });
});
