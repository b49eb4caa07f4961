/**
 * NodeFileIO against a node:fs whose close fails (on the event loop or the thread pool) or whose
 * writes land one byte at a time.
 */
import { readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';

const state = vi.hoisted(() => ({
  failCloseOfDirFd: false,
  dirFd: -1,
  oneBytePerWrite: false,
  failAsyncClose: false,
}));

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const mocked = {
    ...actual,
    openSync: (...args: Parameters<typeof actual.openSync>) => {
      const fd = actual.openSync(...args);
      if (args[1] === 'r') state.dirFd = fd;
      return fd;
    },
    closeSync: (fd: number) => {
      if (state.failCloseOfDirFd && fd === state.dirFd) {
        actual.closeSync(fd);
        const e = new Error('EIO: i/o error, close') as NodeJS.ErrnoException;
        e.code = 'EIO';
        e.syscall = 'close';
        throw e;
      }
      return actual.closeSync(fd);
    },
    close: (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
      if (!state.failAsyncClose) return actual.close(fd, callback);
      // The descriptor is released all the same, as a close that fails with EIO does.
      actual.close(fd, () =>
        callback(Object.assign(new Error('EIO: i/o error, close'), { code: 'EIO' })),
      );
    },
    writeSync: (fd: number, buffer: Uint8Array, offset: number, length: number, position: number) =>
      actual.writeSync(
        fd,
        buffer,
        offset,
        state.oneBytePerWrite ? Math.min(1, length) : length,
        position,
      ),
  };
  return { ...mocked, default: mocked };
});

const { NodeFileIO } = await import('./node-file-io.js');
const { isStorageError } = await import('../errors.js');
const newDir = tempDirs('file-io');

describe('NodeFileIO', () => {
  it('fsyncDir reports a failing close of the directory as IO_ERROR like every other call', () => {
    const io = new NodeFileIO();
    const dir = newDir();
    state.failCloseOfDirFd = true;
    let error: unknown;
    try {
      io.fsyncDir(dir);
    } catch (e) {
      error = e;
    } finally {
      state.failCloseOfDirFd = false;
    }
    expect(error).toBeDefined();
    expect(isStorageError(error, 'IO_ERROR')).toBe(true);
  });

  it('a write that keeps making progress in small steps completes', () => {
    const io = new NodeFileIO();
    const dir = newDir();
    const h = io.open(join(dir, 'f'), { create: true });
    state.oneBytePerWrite = true;
    try {
      io.write(h, Buffer.from('0123456789abcdef'), 0, 16, 0);
    } finally {
      state.oneBytePerWrite = false;
      io.close(h);
    }
    expect(io.readWholeFile(join(dir, 'f'))?.toString()).toBe('0123456789abcdef');
  });

  it('closeAsync closes on the thread pool, and a close that fails rejects naming the file', async () => {
    const io = new NodeFileIO();
    const dir = newDir();
    const kept = io.open(join(dir, 'kept'), { create: true });
    const target = (): string | null => {
      try {
        return readlinkSync(`/proc/self/fd/${kept}`);
      } catch {
        return null;
      }
    };
    expect(target()).toBe(join(dir, 'kept'));
    await io.closeAsync(kept);
    // Closed, or the number already reused for another file.
    expect(target()).not.toBe(join(dir, 'kept'));
    const failing = io.open(join(dir, 'failing'), { create: true });
    state.failAsyncClose = true;
    let error: unknown;
    try {
      await io.closeAsync(failing);
    } catch (e) {
      error = e;
    } finally {
      state.failAsyncClose = false;
    }
    expect(isStorageError(error, 'IO_ERROR')).toBe(true);
    expect((error as Error).message).toContain(join(dir, 'failing'));
  });
});
