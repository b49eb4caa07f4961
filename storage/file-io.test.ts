/** NodeFileIO against a node:fs whose close fails or whose writes land one byte at a time. */
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { tempDirs } from '../test/fixtures/temp-dir.js';

const state = vi.hoisted(() => ({ failCloseOfDirFd: false, dirFd: -1, oneBytePerWrite: false }));

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

const { NodeFileIO } = await import('./file-io.js');
const { isStorageError } = await import('./errors.js');
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
});
