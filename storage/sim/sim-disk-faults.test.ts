import { describe, expect, it } from 'vitest';
import { hex, patternBytes } from '../../test/fixtures/sim-disk-tree.js';
import type { FileHandle } from '../io/file-io.js';
import { SimDisk, SimPowerCutError } from './sim-disk.js';
import { errorOf } from '../../test/fixtures/storage-error.js';

const SEEDS = Array.from({ length: 200 }, (_, i) => i + 1);

function diskWithFile(seed: number, content: Uint8Array): { disk: SimDisk; handle: FileHandle } {
  const disk = new SimDisk({ seed });
  disk.mkdirp('/d');
  const handle = disk.open('/d/f', { create: true });
  if (content.length > 0) disk.write(handle, content, 0, content.length, 0);
  disk.syncAll();
  return { disk, handle };
}

function writeByte(disk: SimDisk, handle: FileHandle, positionBytes: number): void {
  disk.write(handle, Uint8Array.of(7), 0, 1, positionBytes);
}

describe('SimDisk fault injection: errors', () => {
  it('fails only the Nth write with EIO when the fault is transient', () => {
    const { disk, handle } = diskWithFile(1, new Uint8Array(0));
    disk.injectFault({ kind: 'error', call: 'write', nth: 2, errno: 'EIO' });
    writeByte(disk, handle, 0);
    const error = errorOf(() => writeByte(disk, handle, 1));
    expect(error.code).toBe('IO_ERROR');
    expect(error.context).toMatchObject({ file: '/d/f', reason: 'EIO' });
    expect(error.message).toBe(
      'storage: write failed on /d/f (EIO); check the disk, its free space and permissions, ' +
        'then reopen the log',
    );
    writeByte(disk, handle, 1);
    expect(disk.sizeBytes(handle)).toBe(2);
    expect(disk.counters.writeCalls).toBe(2);
    expect(disk.faultsInjected).toBe(1);
  });

  it('fails every later write to the same file with a sticky ENOSPC, and no other file', () => {
    const { disk, handle } = diskWithFile(1, new Uint8Array(0));
    const other = disk.open('/d/other', { create: true });
    disk.injectFault({ kind: 'error', call: 'write', nth: 1, errno: 'ENOSPC', sticky: true });
    for (let i = 0; i < 3; i++) {
      expect(errorOf(() => writeByte(disk, handle, i)).context.reason).toBe('ENOSPC');
    }
    writeByte(disk, other, 0);
    expect(disk.sizeBytes(handle)).toBe(0);
    expect(disk.faultsInjected).toBe(3);
  });

  it('counts only calls on matching files toward N', () => {
    const { disk, handle } = diskWithFile(1, new Uint8Array(0));
    const segment = disk.open('/d/00000.log', { create: true });
    disk.injectFault({ kind: 'error', call: 'write', nth: 2, errno: 'EIO', file: /\.log$/ });
    writeByte(disk, segment, 0);
    writeByte(disk, handle, 0);
    writeByte(disk, handle, 1);
    expect(errorOf(() => writeByte(disk, segment, 1)).context.file).toBe('/d/00000.log');
  });

  it('fails the Nth read with EIO, for handles and whole-file reads alike', () => {
    const { disk, handle } = diskWithFile(1, patternBytes(100, 1));
    disk.injectFault({ kind: 'error', call: 'read', nth: 1, errno: 'EIO', sticky: true });
    const buffer = new Uint8Array(100);
    expect(errorOf(() => disk.read(handle, buffer, 0, 100, 0)).context.reason).toBe('EIO');
    const whole = errorOf(() => disk.readWholeFile('/d/f'));
    expect(whole.context).toMatchObject({ file: '/d/f', reason: 'EIO' });
    expect(disk.counters.readCalls).toBe(0);
  });

  it('fails opening with EMFILE, creating nothing, and keeps failing that path when sticky', () => {
    const { disk } = diskWithFile(1, new Uint8Array(0));
    disk.injectFault({ kind: 'error', call: 'open', nth: 1, errno: 'EMFILE', sticky: true });
    const error = errorOf(() => disk.open('/d/segment', { create: true }));
    expect(error.context).toMatchObject({ file: '/d/segment', reason: 'EMFILE' });
    expect(disk.exists('/d/segment')).toBe(false);
    expect(errorOf(() => disk.openReadOnly('/d/segment')).context.reason).toBe('EMFILE');
    expect(disk.openReadOnly('/d/f')).toBeGreaterThan(0);
  });

  it('refuses an errno a call cannot return', () => {
    const disk = new SimDisk({ seed: 1 });
    const readWithNoSpace = { kind: 'error', call: 'read', nth: 1, errno: 'ENOSPC' } as const;
    expect(() => disk.injectFault(readWithNoSpace)).toThrow(/read cannot fail with ENOSPC/);
  });
});

describe('SimDisk fault injection: namespace calls', () => {
  it('fails a directory fsync, a rename, an unlink and a truncate, each changing nothing', () => {
    const { disk, handle } = diskWithFile(1, patternBytes(100, 1));
    disk.syncAll();
    disk.injectFault({ kind: 'error', call: 'truncate', nth: 1, errno: 'EIO' });
    expect(errorOf(() => disk.truncate(handle, 10)).code).toBe('IO_ERROR');
    expect(disk.sizeBytes(handle)).toBe(100);
    disk.close(handle);
    disk.injectFault({ kind: 'error', call: 'rename', nth: 1, errno: 'EIO' });
    expect(errorOf(() => disk.rename('/d/f', '/d/g')).code).toBe('IO_ERROR');
    expect([disk.exists('/d/f'), disk.exists('/d/g')]).toEqual([true, false]);
    disk.injectFault({ kind: 'error', call: 'unlink', nth: 1, errno: 'EIO' });
    expect(errorOf(() => disk.unlink('/d/f')).code).toBe('IO_ERROR');
    expect(disk.exists('/d/f')).toBe(true);
    disk.rename('/d/f', '/d/g');
    disk.injectFault({ kind: 'error', call: 'fsyncDir', nth: 1, errno: 'EIO' });
    expect(errorOf(() => disk.fsyncDir('/d')).code).toBe('IO_ERROR');
    expect(disk.pendingDirOps().length).toBeGreaterThan(0);
    disk.fsyncDir('/d');
    expect(disk.pendingDirOps()).toEqual([]);
  });
});

describe('SimDisk fault injection: short and misdirected writes', () => {
  it('lands part of a short write, then reports the ENOSPC of the retry as IO_ERROR', () => {
    const { disk, handle } = diskWithFile(1, new Uint8Array(0));
    disk.injectFault({ kind: 'short-write', nth: 1, landedBytes: 30, then: 'ENOSPC' });
    const data = patternBytes(100, 1);
    const error = errorOf(() => disk.write(handle, data, 0, 100, 0));
    expect(error.context).toMatchObject({ file: '/d/f', reason: 'ENOSPC' });
    expect(hex(disk.readWholeFile('/d/f'))).toBe(hex(data.subarray(0, 30)));
    expect(disk.counters.writeCalls).toBe(0);
  });

  it('reports SHORT_IO like NodeFileIO when the retries of a short write make no progress', () => {
    const { disk, handle } = diskWithFile(1, new Uint8Array(0));
    disk.injectFault({ kind: 'short-write', nth: 1, landedBytes: 64, then: 'no-progress' });
    const error = errorOf(() => disk.write(handle, patternBytes(100, 1), 0, 100, 50));
    expect(error.code).toBe('SHORT_IO');
    expect(error.context).toEqual({ file: '/d/f', positionBytes: 50, sizeBytes: 100 });
    expect(error.message).toBe(
      'storage: write to /d/f stopped after 64 of 100 bytes; the disk may be full',
    );
    expect(disk.sizeBytes(handle)).toBe(114);
  });

  it('lands a misdirected write at the shifted position and leaves the asked one untouched', () => {
    const { disk, handle } = diskWithFile(1, patternBytes(1000, 1));
    disk.injectFault({ kind: 'misdirected-write', nth: 1, shiftBytes: 512 });
    disk.write(handle, patternBytes(100, 2), 0, 100, 0);
    disk.fdatasync(handle);
    const after = disk.crash().readWholeFile('/d/f') ?? new Uint8Array(0);
    expect(hex(after.subarray(0, 100))).toBe(hex(patternBytes(100, 1)));
    expect(hex(after.subarray(512, 612))).toBe(hex(patternBytes(100, 2)));
  });
});

describe('SimDisk fault injection: bit flips and power cuts', () => {
  it('flips one durable bit, visible through the clean cache and after a crash', () => {
    const { disk } = diskWithFile(1, patternBytes(100, 1));
    disk.flipBit('/d/f', 42, 3);
    const expected = patternBytes(100, 1);
    expected[42] = (expected[42] ?? 0) ^ 0b1000;
    expect(hex(disk.readWholeFile('/d/f'))).toBe(hex(expected));
    expect(hex(disk.durableContents('/d/f'))).toBe(hex(expected));
    expect(hex(disk.crash().readWholeFile('/d/f'))).toBe(hex(expected));
    expect(disk.injectedFaults).toEqual([{ kind: 'bit-flip', call: 'none', file: '/d/f' }]);
  });

  it('shows a bit flip through the cache only where the cached page is clean', () => {
    let exposedSectorsFlipped = 0;
    for (const seed of SEEDS.slice(0, 20)) {
      // Sector 0 lost to a failed fdatasync; sector 1 clean; sector 2 dirty; sector 3 a hole
      // the failure may have made durable with unknown content.
      const { disk, handle } = diskWithFile(seed, patternBytes(3 * 512, 1));
      disk.write(handle, patternBytes(10, 2), 0, 10, 0);
      disk.truncate(handle, 4 * 512);
      disk.injectFault({ kind: 'error', call: 'fdatasync', nth: 1, errno: 'EIO' });
      expect(() => disk.fdatasync(handle)).toThrow(/fdatasync failed/);
      disk.write(handle, patternBytes(10, 3), 0, 10, 2 * 512);
      const expected = (disk.readWholeFile('/d/f') ?? new Uint8Array(0)).slice();
      for (const positionBytes of [5, 600, 2 * 512 + 5]) disk.flipBit('/d/f', positionBytes, 0);
      if ((disk.durableContents('/d/f')?.length ?? 0) > 3 * 512 + 5) {
        disk.flipBit('/d/f', 3 * 512 + 5, 0);
        exposedSectorsFlipped++;
      }
      expected[600] = (expected[600] ?? 0) ^ 1;
      expect(hex(disk.readWholeFile('/d/f'))).toBe(hex(expected));
    }
    expect(exposedSectorsFlipped).toBeGreaterThan(0);
  });

  it('cuts the power at the Nth call: it and every later call fail, crash() recovers', () => {
    const { disk, handle } = diskWithFile(1, patternBytes(100, 1));
    disk.injectFault({ kind: 'power-cut', nth: 2 });
    writeByte(disk, handle, 0);
    expect(() => disk.fdatasync(handle)).toThrow(SimPowerCutError);
    expect(() => disk.exists('/d/f')).toThrow(SimPowerCutError);
    expect(disk.faultsInjected).toBe(1);
    const after = disk.crash().readWholeFile('/d/f') ?? new Uint8Array(0);
    expect(hex(after.subarray(1))).toBe(hex(patternBytes(100, 1).subarray(1)));
  });
});

describe('SimDisk fault injection: failed fdatasync (fsyncgate)', () => {
  it('throws IO_ERROR from fdatasync and rejects fdatasyncAsync with the same shape', async () => {
    const { disk, handle } = diskWithFile(1, new Uint8Array(0));
    disk.injectFault({ kind: 'error', call: 'fdatasync', nth: 1, errno: 'EIO' });
    disk.injectFault({ kind: 'error', call: 'fdatasync', nth: 2, errno: 'ENOSPC' });
    expect(errorOf(() => disk.fdatasync(handle)).context.reason).toBe('EIO');
    await expect(disk.fdatasyncAsync(handle)).rejects.toMatchObject({
      code: 'IO_ERROR',
      context: { file: '/d/f', reason: 'ENOSPC' },
    });
    await expect(disk.fdatasyncAsync(handle)).resolves.toBeUndefined();
    expect(disk.counters.fdatasyncCalls).toBe(1);
  });

  it('shows data after a failed fdatasync, but a later success does not cover it', () => {
    const outcomes = new Set<string>();
    for (const seed of SEEDS) {
      const { disk, handle } = diskWithFile(seed, new Uint8Array(0));
      const before = patternBytes(1024, 1);
      disk.write(handle, before, 0, before.length, 0);
      disk.injectFault({ kind: 'error', call: 'fdatasync', nth: 1, errno: 'EIO' });
      expect(() => disk.fdatasync(handle)).toThrow(/fdatasync failed/);
      expect(hex(disk.readWholeFile('/d/f'))).toBe(hex(before));
      expect(disk.pendingWriteBytes('/d/f')).toBe(0);
      const after = patternBytes(512, 2);
      disk.write(handle, after, 0, after.length, 2048);
      disk.fdatasync(handle);
      const crashed = disk.crash().readWholeFile('/d/f') ?? new Uint8Array(0);
      expect(hex(crashed.subarray(2048))).toBe(hex(after));
      outcomes.add(hex(crashed.subarray(0, 1024)) === hex(before) ? 'kept' : 'lost');
    }
    expect([...outcomes].sort()).toEqual(['kept', 'lost']);
  });

  it('does not let a later fdatasync that grows the file land data a failed one lost', () => {
    const outcomes = new Set<string>();
    for (const seed of SEEDS) {
      const { disk, handle } = diskWithFile(seed, new Uint8Array(0));
      const lostData = patternBytes(1000, 1);
      disk.write(handle, lostData, 0, lostData.length, 0);
      disk.injectFault({ kind: 'error', call: 'fdatasync', nth: 1, errno: 'EIO' });
      expect(() => disk.fdatasync(handle)).toThrow(/fdatasync failed/);
      // Only failures that did not even make the size durable: the device holds no byte yet.
      if (disk.durableContents('/d/f')?.length !== 0) continue;
      disk.write(handle, patternBytes(100, 2), 0, 100, 3000);
      disk.fdatasync(handle);
      const durable = disk.durableContents('/d/f') ?? new Uint8Array(0);
      expect(durable.length).toBe(3100);
      outcomes.add(hex(durable.subarray(0, 1000)) === hex(lostData) ? 'landed' : 'lost');
    }
    expect([...outcomes].sort()).toEqual(['landed', 'lost']);
  });

  it('reads zeros where a file regrew after a failed fdatasync, once a later one succeeds', () => {
    const failSync = (disk: SimDisk, handle: FileHandle): void => {
      disk.injectFault({ kind: 'error', call: 'fdatasync', nth: 1, errno: 'EIO' });
      expect(() => disk.fdatasync(handle)).toThrow(/fdatasync failed/);
    };
    for (const seed of SEEDS) {
      const shrunk = diskWithFile(seed, patternBytes(2000, 1));
      shrunk.disk.truncate(shrunk.handle, 700);
      failSync(shrunk.disk, shrunk.handle);
      const grown = diskWithFile(seed, new Uint8Array(0));
      grown.disk.write(grown.handle, patternBytes(1000, 2), 0, 1000, 0);
      failSync(grown.disk, grown.handle);
      grown.disk.truncate(grown.handle, 512);
      for (const [{ disk, handle }, cutBytes] of [
        [shrunk, 700],
        [grown, 512],
      ] as const) {
        disk.truncate(handle, 2000);
        disk.fdatasync(handle);
        const durable = disk.durableContents('/d/f') ?? new Uint8Array(0);
        expect(hex(durable.subarray(cutBytes))).toBe(hex(new Uint8Array(2000 - cutBytes)));
      }
    }
  });

  it('fails every later fdatasync of the file with a sticky EIO', () => {
    const { disk, handle } = diskWithFile(1, new Uint8Array(0));
    disk.injectFault({ kind: 'error', call: 'fdatasync', nth: 1, errno: 'EIO', sticky: true });
    for (let i = 0; i < 3; i++) {
      writeByte(disk, handle, i);
      expect(errorOf(() => disk.fdatasync(handle)).context.reason).toBe('EIO');
    }
    expect(disk.injectedFaults.map((fault) => fault.call)).toEqual([
      'fdatasync',
      'fdatasync',
      'fdatasync',
    ]);
  });
});
