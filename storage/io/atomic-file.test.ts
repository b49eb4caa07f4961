import { describe, expect, it } from 'vitest';
import { writeFileAtomically } from './atomic-file.js';
import { readCheckpointFile, writeCheckpointFile } from './checkpoint-file.js';
import type { FileHandle } from './file-io.js';
import { DelegatingFileIO } from './delegating-file-io.js';
import { SimDisk } from '../sim/sim-disk.js';

const MAGIC = 0x4c4c5450;

/** A disk whose writes and closes fail on demand, with their own messages, and which logs calls. */
class FailingIO extends DelegatingFileIO {
  failWrite = false;
  failClose = false;
  readonly calls: string[] = [];

  override write(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): void {
    this.calls.push('write');
    if (this.failWrite) throw new Error('the write failed');
    super.write(handle, buffer, bufferStart, length, positionBytes);
  }

  override close(handle: FileHandle): void {
    this.calls.push('close');
    super.close(handle);
    if (this.failClose) throw new Error('the close failed');
  }
}

function diskWithOldFile(): { disk: SimDisk; io: FailingIO } {
  const disk = new SimDisk({ seed: 1 });
  disk.mkdirp('/data');
  disk.fsyncDir('/');
  const io = new FailingIO(disk);
  writeFileAtomically(io, '/data/point', Buffer.from('old'));
  io.calls.length = 0;
  return { disk, io };
}

describe('writeFileAtomically', () => {
  it('replaces the file whole, and durably: a crash right after it finds the new bytes', () => {
    const { disk, io } = diskWithOldFile();
    writeFileAtomically(io, '/data/point', Buffer.from('new bytes'));
    expect(disk.pendingDirOps()).toEqual([]);
    const after = disk.crash();
    expect(after.readWholeFile('/data/point')?.toString()).toBe('new bytes');
    expect(after.exists('/data/point.tmp')).toBe(false);
  });

  it('writes over a longer .tmp a crash left behind without keeping its tail', () => {
    const { disk, io } = diskWithOldFile();
    const left = disk.open('/data/point.tmp', { create: true });
    disk.write(left, Buffer.from('a longer leftover'), 0, 17, 0);
    disk.close(left);
    writeFileAtomically(io, '/data/point', Buffer.from('short'));
    expect(disk.readWholeFile('/data/point')?.toString()).toBe('short');
  });

  it('reports a failing write, not the close that fails after it, and leaves the old file', () => {
    const { disk, io } = diskWithOldFile();
    io.failWrite = true;
    io.failClose = true;
    expect(() => writeFileAtomically(io, '/data/point', Buffer.from('new'))).toThrow(
      'the write failed',
    );
    expect(io.calls).toEqual(['write', 'close']);
    expect(disk.readWholeFile('/data/point')?.toString()).toBe('old');
  });

  it('reports a failing close when nothing failed before it, and renames nothing', () => {
    const { disk, io } = diskWithOldFile();
    io.failClose = true;
    expect(() => writeFileAtomically(io, '/data/point', Buffer.from('new'))).toThrow(
      'the close failed',
    );
    expect(disk.readWholeFile('/data/point')?.toString()).toBe('old');
  });

  it('gives a checkpoint file the same: the write error wins over the close error', () => {
    const { disk, io } = diskWithOldFile();
    writeCheckpointFile(io, '/data/head', MAGIC, Buffer.from('first'));
    io.failWrite = true;
    io.failClose = true;
    expect(() => writeCheckpointFile(io, '/data/head', MAGIC, Buffer.from('second'))).toThrow(
      'the write failed',
    );
    expect(readCheckpointFile(disk, '/data/head', MAGIC)).toEqual({
      payload: Buffer.from('first'),
    });
  });
});
