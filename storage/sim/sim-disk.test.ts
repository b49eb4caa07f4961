import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hex, patternBytes, treeOf } from '../../test/fixtures/sim-disk-tree.js';
import { isStorageError, StorageError } from '../errors.js';
import type { FileHandle, FileIO } from '../io/file-io.js';
import { NodeFileIO } from '../io/node-file-io.js';
import { SECTOR_BYTES, SimDisk } from './sim-disk.js';

const SEEDS = Array.from({ length: 200 }, (_, i) => i + 1);

/** A disk with durable directory /d and durable file /d/f holding `content`. */
function diskWithFile(seed: number, content: Uint8Array): { disk: SimDisk; handle: FileHandle } {
  const disk = new SimDisk({ seed });
  disk.mkdirp('/d');
  const handle = disk.open('/d/f', { create: true });
  if (content.length > 0) disk.write(handle, content, 0, content.length, 0);
  disk.syncAll();
  return { disk, handle };
}

function caught(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

function sectorsOf(bytes: Uint8Array, sectorCount: number): Uint8Array[] {
  return Array.from({ length: sectorCount }, (_, i) =>
    bytes.subarray(i * SECTOR_BYTES, (i + 1) * SECTOR_BYTES),
  );
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a).equals(Buffer.from(b));
}

/** The same operations on any FileIO; the directory must exist. */
function exerciseFileIO(io: FileIO, dir: string): void {
  const handle = io.open(join(dir, 'a'), { create: true });
  io.write(handle, patternBytes(1000, 1), 0, 1000, 0);
  io.write(handle, patternBytes(10, 2), 0, 0, 1000);
  io.write(handle, patternBytes(300, 3), 100, 200, 900);
  io.fdatasync(handle);
  const readBack = new Uint8Array(2000);
  io.read(handle, readBack, 0, 2000, 0);
  io.read(handle, readBack, 0, 10, 5000);
  io.truncate(handle, 500);
  io.fsyncDir(dir);
  io.close(handle);
}

describe('SimDisk as a FileIO', () => {
  it('reads back what was written before any sync, through the page cache', () => {
    const { disk } = diskWithFile(1, new Uint8Array(0));
    const handle = disk.open('/d/g', { create: true });
    disk.write(handle, patternBytes(700, 5), 0, 700, 10);
    const readBack = new Uint8Array(800);
    expect(disk.read(handle, readBack, 0, 800, 0)).toBe(710);
    expect(hex(readBack.subarray(0, 10))).toBe(hex(new Uint8Array(10)));
    expect(hex(readBack.subarray(10, 710))).toBe(hex(patternBytes(700, 5)));
    expect(disk.sizeBytes(handle)).toBe(710);
    expect(disk.readWholeFile('/d/g')?.length).toBe(710);
  });

  it('returns whole files as a Buffer, as NodeFileIO does', () => {
    const { disk } = diskWithFile(1, patternBytes(8, 1));
    const real = new NodeFileIO();
    const dir = mkdtempSync(join(tmpdir(), 'loglab-simdisk-'));
    const handle = real.open(join(dir, 'f'), { create: true });
    real.write(handle, patternBytes(8, 1), 0, 8, 0);
    real.close(handle);
    expect(Buffer.isBuffer(real.readWholeFile(join(dir, 'f')))).toBe(true);
    expect(Buffer.isBuffer(disk.readWholeFile('/d/f'))).toBe(true);
  });

  it('truncates, lists sorted names, answers exists and returns null for a missing file', () => {
    const { disk, handle } = diskWithFile(1, patternBytes(2000, 1));
    disk.truncate(handle, 100);
    expect(disk.sizeBytes(handle)).toBe(100);
    disk.truncate(handle, 300);
    expect(hex(disk.readWholeFile('/d/f'))).toBe(
      hex(Uint8Array.from([...patternBytes(100, 1), ...new Uint8Array(200)])),
    );
    disk.open('/d/b', { create: true });
    disk.mkdirp('/d/a/x');
    expect(disk.list('/d')).toEqual(['a', 'b', 'f']);
    expect(disk.exists('/d/a/x')).toBe(true);
    expect(disk.exists('/d/f/nothing')).toBe(false);
    expect(disk.readWholeFile('/nowhere/f')).toBeNull();
  });

  it('counts calls and bytes exactly like NodeFileIO for the same operations', () => {
    const real = new NodeFileIO();
    exerciseFileIO(real, mkdtempSync(join(tmpdir(), 'loglab-simdisk-')));
    const sim = new SimDisk({ seed: 3 });
    sim.mkdirp('/tmp/x');
    exerciseFileIO(sim, '/tmp/x');
    expect(sim.counters).toEqual(real.counters);
    expect(sim.counters.writeCalls).toBe(3);
  });

  it('throws the same IO_ERROR as NodeFileIO, with the errno code as reason', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loglab-simdisk-'));
    const sim = new SimDisk({ seed: 1 });
    sim.mkdirp(dir);
    const cases: Array<(io: FileIO) => unknown> = [
      (io) => io.open(join(dir, 'missing'), { create: false }),
      (io) => io.list(join(dir, 'missing')),
      (io) => io.unlink(join(dir, 'missing')),
      (io) => io.rename(join(dir, 'missing'), join(dir, 'other')),
      (io) => io.fdatasync(9999 as FileHandle),
    ];
    for (const call of cases) {
      const real = caught(() => call(new NodeFileIO())) as StorageError;
      const simulated = caught(() => call(sim)) as StorageError;
      expect(simulated).toBeInstanceOf(StorageError);
      expect(simulated.code).toBe(real.code);
      expect(simulated.context.reason).toBe(real.context.reason);
      expect(simulated.context.file).toBe(real.context.file);
      expect(simulated.message).toBe(real.message);
    }
  });

  it('refuses writes through a read-only handle and any call on a closed handle (EBADF)', () => {
    const { disk } = diskWithFile(1, patternBytes(10, 1));
    const readOnly = disk.openReadOnly('/d/f');
    const error = caught(() => disk.write(readOnly, new Uint8Array(1), 0, 1, 0));
    expect(isStorageError(error, 'IO_ERROR') && error.context.reason).toBe('EBADF');
    disk.close(readOnly);
    const closed = caught(() => disk.sizeBytes(readOnly));
    expect(isStorageError(closed, 'IO_ERROR') && closed.context.reason).toBe('EBADF');
  });

  it('does not sync on close: closed but unsynced data can be lost', () => {
    const lost = SEEDS.filter((seed) => {
      const { disk, handle } = diskWithFile(seed, new Uint8Array(0));
      disk.write(handle, patternBytes(100, 1), 0, 100, 0);
      disk.close(handle);
      return disk.crash().readWholeFile('/d/f')?.length === 0;
    });
    expect(lost.length).toBeGreaterThan(0);
  });
});

describe('SimDisk crash: file data', () => {
  it('can leave a file extended by one write at a page boundary part-way through it, as ext4 can', () => {
    const sizes = new Set<number>();
    for (let seed = 1; seed <= 300; seed++) {
      const disk = new SimDisk({ seed });
      disk.mkdirp('/d');
      const handle = disk.open('/d/f', { create: true });
      disk.syncAll();
      disk.write(handle, Buffer.alloc(16384, 7), 0, 16384, 0);
      sizes.add(disk.crash().readWholeFile('/d/f')!.length);
    }
    expect([...sizes].sort((a, b) => a - b)).toEqual([0, 4096, 8192, 12288, 16384]);
  });

  it('keeps everything that was fdatasynced, across many seeds', () => {
    for (const seed of SEEDS) {
      const { disk, handle } = diskWithFile(seed, patternBytes(3000, 1));
      disk.write(handle, patternBytes(1500, 2), 0, 1500, 2500);
      disk.fdatasync(handle);
      disk.write(handle, patternBytes(700, 3), 0, 700, 4000);
      const after = disk.crash().readWholeFile('/d/f');
      expect(hex(after?.subarray(0, 2500))).toBe(hex(patternBytes(2500, 1)));
      expect(hex(after?.subarray(2500, 4000))).toBe(hex(patternBytes(1500, 2)));
    }
  });

  it('keeps unsynced sectors whole: each is the old or the new content, and both occur', () => {
    const sectorCount = 8;
    const before = patternBytes(sectorCount * SECTOR_BYTES, 1);
    const after = patternBytes(sectorCount * SECTOR_BYTES, 2);
    const outcomes = new Set<string>();
    for (const seed of SEEDS) {
      const { disk, handle } = diskWithFile(seed, before);
      disk.write(handle, after, 0, after.length, 0);
      const crashed = disk.crash().readWholeFile('/d/f') ?? new Uint8Array(0);
      expect(crashed.length).toBe(before.length);
      const oldSectors = sectorsOf(before, sectorCount);
      const newSectors = sectorsOf(after, sectorCount);
      sectorsOf(crashed, sectorCount).forEach((sector, i) => {
        const isOld = sameBytes(sector, oldSectors[i] as Uint8Array);
        const isNew = sameBytes(sector, newSectors[i] as Uint8Array);
        expect(isOld || isNew).toBe(true);
        outcomes.add(isOld ? 'old' : 'new');
      });
    }
    expect([...outcomes].sort()).toEqual(['new', 'old']);
  });

  it('fills the tail with zeros or garbage when the size grew before the data landed', () => {
    const tails = new Set<string>();
    for (const seed of SEEDS) {
      const { disk, handle } = diskWithFile(seed, patternBytes(SECTOR_BYTES, 1));
      const appended = patternBytes(4 * SECTOR_BYTES, 2);
      disk.write(handle, appended, 0, appended.length, SECTOR_BYTES);
      const crashed = disk.crash().readWholeFile('/d/f') ?? new Uint8Array(0);
      expect(hex(crashed.subarray(0, SECTOR_BYTES))).toBe(hex(patternBytes(SECTOR_BYTES, 1)));
      expect([SECTOR_BYTES, 5 * SECTOR_BYTES]).toContain(crashed.length);
      const appendedSectors = sectorsOf(appended, 4);
      const tail = crashed.subarray(SECTOR_BYTES);
      for (const [i, sector] of sectorsOf(tail, tail.length / SECTOR_BYTES).entries()) {
        if (sameBytes(sector, appendedSectors[i] as Uint8Array)) tails.add('data');
        else tails.add(sector.every((byte) => byte === 0) ? 'zeros' : 'garbage');
      }
    }
    expect([...tails].sort()).toEqual(['data', 'garbage', 'zeros']);
  });

  it('cuts an unsynced file at its durable size or any size it had since, intermediate too', () => {
    const sizes = new Set<number>();
    for (const seed of SEEDS) {
      const { disk, handle } = diskWithFile(seed, patternBytes(100, 1));
      for (const positionBytes of [100, 200, 300]) {
        disk.write(handle, patternBytes(100, 2), 0, 100, positionBytes);
      }
      sizes.add(disk.crash().readWholeFile('/d/f')?.length ?? -1);
    }
    expect([...sizes].sort((a, b) => a - b)).toEqual([100, 200, 300, 400]);
  });

  it('leaves a truncation that was not synced undone in some crashes and done in others', () => {
    const sizes = new Set<number>();
    for (const seed of SEEDS) {
      const { disk, handle } = diskWithFile(seed, patternBytes(2000, 1));
      disk.truncate(handle, 700);
      const crashed = disk.crash().readWholeFile('/d/f') ?? new Uint8Array(0);
      expect(hex(crashed.subarray(0, 700))).toBe(hex(patternBytes(700, 1)));
      sizes.add(crashed.length);
    }
    expect([...sizes].sort((a, b) => a - b)).toEqual([700, 2000]);
  });

  it('makes a synced shrink-then-grow truncation durable as zeros', () => {
    for (const seed of SEEDS.slice(0, 50)) {
      const { disk, handle } = diskWithFile(seed, patternBytes(2000, 1));
      disk.truncate(handle, 700);
      disk.truncate(handle, 2000);
      disk.fdatasync(handle);
      const crashed = disk.crash().readWholeFile('/d/f');
      const expected = Uint8Array.from([...patternBytes(700, 1), ...new Uint8Array(1300)]);
      expect(hex(crashed)).toBe(hex(expected));
    }
  });

  it('makes the crashed disk unusable and its handles unknown to the new one', () => {
    const { disk, handle } = diskWithFile(1, patternBytes(10, 1));
    const next = disk.crash();
    expect(() => disk.sizeBytes(handle)).toThrow(/crashed/);
    const error = caught(() => next.sizeBytes(handle));
    expect(isStorageError(error, 'IO_ERROR') && error.context.reason).toBe('EBADF');
    expect(next.open('/d/f', { create: false })).toBeGreaterThan(handle);
  });

  it('is deterministic: same seed and operations, same state; other seeds differ', () => {
    const run = (seed: number): Record<string, string> => {
      const disk = new SimDisk({ seed });
      disk.mkdirp('/d');
      disk.syncAll();
      for (let i = 0; i < 6; i++) {
        const handle = disk.open(`/d/f${i % 3}`, { create: true });
        disk.write(handle, patternBytes(700 + i * 300, i), 0, 700 + i * 300, i * 100);
        if (i % 2 === 0) disk.fdatasync(handle);
        if (i === 3) disk.rename('/d/f0', '/d/renamed');
      }
      return treeOf(disk.crash().crash());
    };
    expect(run(42)).toEqual(run(42));
    const distinct = new Set(SEEDS.slice(0, 20).map((seed) => JSON.stringify(run(seed))));
    expect(distinct.size).toBeGreaterThan(1);
  });
});

describe('SimDisk crash: directories', () => {
  it('may lose a created file until its directory is fsynced, and never after', () => {
    const survived = SEEDS.map((seed) => {
      const { disk } = diskWithFile(seed, new Uint8Array(0));
      const handle = disk.open('/d/new', { create: true });
      disk.write(handle, patternBytes(100, 1), 0, 100, 0);
      disk.fdatasync(handle);
      return hex(disk.crash().readWholeFile('/d/new'));
    });
    expect(survived).toContain(null);
    expect(survived).toContain(hex(patternBytes(100, 1)));
    for (const seed of SEEDS) {
      const { disk } = diskWithFile(seed, new Uint8Array(0));
      const handle = disk.open('/d/new', { create: true });
      disk.write(handle, patternBytes(100, 1), 0, 100, 0);
      disk.fdatasync(handle);
      disk.fsyncDir('/d');
      expect(hex(disk.crash().readWholeFile('/d/new'))).toBe(hex(patternBytes(100, 1)));
    }
  });

  it('makes a rename happen entirely or not at all', () => {
    const states = new Set<string>();
    for (const seed of SEEDS) {
      const { disk } = diskWithFile(seed, patternBytes(100, 1));
      const tmp = disk.open('/d/tmp', { create: true });
      disk.write(tmp, patternBytes(100, 2), 0, 100, 0);
      disk.fdatasync(tmp);
      disk.rename('/d/tmp', '/d/f');
      const tree = treeOf(disk.crash());
      const target = tree['/d/f'];
      const oldHex = Buffer.from(patternBytes(100, 1)).toString('hex');
      const newHex = Buffer.from(patternBytes(100, 2)).toString('hex');
      if (target === newHex) expect(tree['/d/tmp']).toBeUndefined();
      else expect(target).toBe(oldHex);
      states.add(target === newHex ? 'renamed' : tree['/d/tmp'] === undefined ? 'none' : 'created');
    }
    expect([...states].sort()).toEqual(['created', 'none', 'renamed']);
  });

  it('commits a rename across directories through an fsync of either one', () => {
    for (const [seed, synced] of SEEDS.map((seed) => [seed, seed % 2 ? '/a' : '/b'] as const)) {
      const disk = new SimDisk({ seed });
      disk.mkdirp('/a');
      disk.mkdirp('/b');
      disk.open('/a/x', { create: true });
      disk.syncAll();
      disk.rename('/a/x', '/b/y');
      expect(disk.pendingDirOps()).toEqual([{ kind: 'rename', path: '/a/x', toPath: '/b/y' }]);
      disk.fsyncDir(synced);
      expect(disk.pendingDirOps()).toEqual([]);
      expect(treeOf(disk.crash())).toEqual({ '/a': 'dir', '/b': 'dir', '/b/y': '' });
    }
  });

  it('never shows a file under two names after a cross-directory rename and a crash', () => {
    for (const seed of SEEDS) {
      const disk = new SimDisk({ seed });
      disk.mkdirp('/a');
      disk.mkdirp('/b');
      disk.syncAll();
      disk.open('/a/x', { create: true });
      disk.rename('/a/x', '/b/y');
      disk.fsyncDir('/b');
      disk.fsyncDir('/a');
      expect(treeOf(disk.crash())).toEqual({ '/a': 'dir', '/b': 'dir', '/b/y': '' });
    }
  });

  it('may undo an unlink that was not made durable', () => {
    const present = SEEDS.map((seed) => {
      const { disk } = diskWithFile(seed, patternBytes(10, 1));
      disk.unlink('/d/f');
      expect(disk.exists('/d/f')).toBe(false);
      return disk.crash().exists('/d/f');
    });
    expect(new Set(present)).toEqual(new Set([true, false]));
  });

  it('loses a new directory and its files unless the parent was fsynced', () => {
    const outcomes = SEEDS.map((seed) => {
      const disk = new SimDisk({ seed });
      disk.mkdirp('/top/sub');
      const handle = disk.open('/top/sub/f', { create: true });
      disk.fdatasync(handle);
      disk.fsyncDir('/top/sub');
      return disk.crash().exists('/top/sub/f');
    });
    expect(new Set(outcomes)).toEqual(new Set([true, false]));
  });

  it('lists pending directory operations in issue order until fsyncDir', () => {
    const disk = new SimDisk({ seed: 1 });
    disk.mkdirp('/d');
    disk.open('/d/a', { create: true });
    disk.rename('/d/a', '/d/b');
    disk.unlink('/d/b');
    expect(disk.pendingDirOps()).toEqual([
      { kind: 'mkdir', path: '/d' },
      { kind: 'create', path: '/d/a' },
      { kind: 'rename', path: '/d/a', toPath: '/d/b' },
      { kind: 'unlink', path: '/d/b' },
    ]);
    disk.fsyncDir('/d');
    expect(disk.pendingDirOps()).toEqual([{ kind: 'mkdir', path: '/d' }]);
    expect(disk.durableContents('/d/b')).toBeNull();
  });

  it('reports pending bytes per file and durable contents', () => {
    const { disk, handle } = diskWithFile(1, patternBytes(100, 1));
    disk.write(handle, patternBytes(50, 2), 0, 50, 100);
    disk.write(handle, patternBytes(20, 3), 0, 20, 0);
    expect(disk.pendingWriteBytes('/d/f')).toBe(70);
    expect(hex(disk.durableContents('/d/f'))).toBe(hex(patternBytes(100, 1)));
    disk.fdatasync(handle);
    expect(disk.pendingWriteBytes('/d/f')).toBe(0);
    expect(hex(disk.durableContents('/d/f'))).toBe(hex(disk.readWholeFile('/d/f')));
  });
});
