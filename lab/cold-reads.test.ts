import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import { ColdReadFileIO, startColdReads } from './cold-reads.js';
import { readProcIo } from './io.js';

const tempDir = tempDirs('cold-reads');
const PAGE = 4096;

/** A file of `bytes` whose every byte tells its position, opened through a ColdReadFileIO. */
function patterned(bytes: number) {
  const dir = tempDir();
  const file = join(dir, 'data');
  const content = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) content[i] = (i * 7 + (i >> 12)) & 0xff;
  fs.writeFileSync(file, content);
  const io = new ColdReadFileIO();
  return { dir, content, io, handle: io.openReadOnly(file) };
}

function readThrough(
  io: ColdReadFileIO,
  handle: ReturnType<typeof io.openReadOnly>,
  at: number,
  length: number,
) {
  const buffer = Buffer.alloc(length + 3, 0xee);
  const got = io.read(handle, buffer, 3, length, at);
  return { got, bytes: buffer.subarray(3, 3 + got), guard: buffer.subarray(0, 3) };
}

describe('ColdReadFileIO', () => {
  it('returns the same bytes with O_DIRECT as through the page cache, at any offset and length', () => {
    const { dir, content, io, handle } = patterned(5 * PAGE + 1234);
    expect(io.startDirect(dir)).toBeNull();
    expect(io.direct).toBe(true);
    const cases = [
      [0, 1],
      [1, 4095],
      [4095, 2],
      [100, 3 * PAGE],
      [5 * PAGE, 1234],
      [5 * PAGE + 1000, 5000],
      [6 * PAGE, 10],
      [0, 5 * PAGE + 1234],
    ];
    for (const [at, length] of cases as [number, number][]) {
      const { got, bytes, guard } = readThrough(io, handle, at, length);
      const expected = content.subarray(at, Math.min(content.length, at + length));
      expect(got, `${at}+${length}`).toBe(expected.length);
      expect(bytes.equals(expected), `${at}+${length}`).toBe(true);
      expect([...guard]).toEqual([0xee, 0xee, 0xee]);
    }
    io.stopDirect();
    expect(io.direct).toBe(false);
    expect(readThrough(io, handle, 10, 20).bytes.equals(content.subarray(10, 30))).toBe(true);
    io.close(handle);
  });

  it('fetches a page from the device once per phase, in whole pages, and counts logical bytes apart', () => {
    const { dir, io, handle } = patterned(8 * PAGE);
    expect(io.startDirect(dir)).toBeNull();
    const before = io.counters.readBytes;
    const proc = readProcIo();
    readThrough(io, handle, PAGE + 10, 100);
    expect(io.deviceReadBytes).toBe(PAGE);
    readThrough(io, handle, PAGE + 500, 100);
    expect(io.deviceReadBytes).toBe(PAGE);
    readThrough(io, handle, 3 * PAGE - 1, 2);
    expect(io.deviceReadBytes).toBe(3 * PAGE);
    expect(io.counters.readBytes - before).toBe(202);
    const after = readProcIo();
    if (proc !== null && after !== null) {
      // The kernel's own account: the bytes came from the block layer, not the page cache.
      expect(after.readBytes - proc.readBytes).toBeGreaterThanOrEqual(3 * PAGE);
    }
    io.stopDirect();
    expect(io.startDirect(dir)).toBeNull();
    readThrough(io, handle, PAGE + 10, 100);
    expect(io.deviceReadBytes).toBe(4 * PAGE);
    io.close(handle);
  });

  it('reads a whole file with O_DIRECT, and answers null for a missing one', () => {
    const { dir, content, io } = patterned(3 * PAGE + 17);
    expect(io.startDirect(dir)).toBeNull();
    const before = io.deviceReadBytes;
    expect(io.readWholeFile(join(dir, 'data'))?.equals(content)).toBe(true);
    expect(io.deviceReadBytes - before).toBe(content.length);
    expect(io.readWholeFile(join(dir, 'missing'))).toBeNull();
    io.stopDirect();
  });

  it('sees writes made during the phase: the pages they touch are fetched again', () => {
    const { dir, content, io } = patterned(2 * PAGE + 100);
    const handle = io.open(join(dir, 'data'), { create: false });
    expect(io.startDirect(dir)).toBeNull();
    expect(
      readThrough(io, handle, PAGE + 5, 10).bytes.equals(content.subarray(PAGE + 5, PAGE + 15)),
    ).toBe(true);
    io.write(handle, Buffer.from('again'), 0, 5, PAGE + 5);
    expect(readThrough(io, handle, PAGE + 5, 5).bytes.toString()).toBe('again');
    // The file grows past its short last page, already fetched: that page is read again whole.
    expect(readThrough(io, handle, 2 * PAGE + 96, 8).got).toBe(4);
    io.write(handle, Buffer.from('tail'), 0, 4, 3 * PAGE);
    expect(readThrough(io, handle, 2 * PAGE + 96, 8).got).toBe(8);
    io.stopDirect();
    io.close(handle);
  });

  it('sees writes made before the phase: the kernel writes dirty pages back first', () => {
    const { dir, io } = patterned(2 * PAGE);
    const handle = io.open(join(dir, 'data'), { create: false });
    io.write(handle, Buffer.from('fresh'), 0, 5, PAGE + 7);
    expect(io.startDirect(dir)).toBeNull();
    expect(readThrough(io, handle, PAGE + 7, 5).bytes.toString()).toBe('fresh');
    io.stopDirect();
    io.close(handle);
  });
});

describe('startColdReads', () => {
  const notRoot = { isRoot: false };

  it('drops the page cache when allowed, and has nothing to undo', () => {
    const dropCachesFile = join(tempDir(), 'drop_caches');
    const reads = startColdReads([], tempDir(), { isRoot: true, dropCachesFile });
    expect(reads.method).toBe('drop-caches');
    expect(fs.readFileSync(dropCachesFile, 'utf8')).toBe('3\n');
  });

  it('falls back to O_DIRECT when the drop is refused, and says why', () => {
    const { dir, io } = patterned(PAGE);
    const reads = startColdReads([io], dir, notRoot);
    expect(reads).toMatchObject({
      method: 'o-direct',
      note: expect.stringMatching(/not running as root.*O_DIRECT/),
    });
    expect(io.direct).toBe(true);
    if (reads.method !== null) reads.end();
    expect(io.direct).toBe(false);
  });

  it('uses O_DIRECT without trying a drop when asked to', () => {
    const { dir, io } = patterned(PAGE);
    const dropCachesFile = join(dir, 'drop_caches');
    const reads = startColdReads([io], dir, { isRoot: true, dropCachesFile, mode: 'o-direct' });
    expect(reads.method).toBe('o-direct');
    expect(fs.existsSync(dropCachesFile)).toBe(false);
    if (reads.method !== null) reads.end();
  });

  it('says cold figures are unavailable when only a refused drop is allowed, or cold reads are off', () => {
    const { dir, io } = patterned(PAGE);
    const drop = startColdReads([io], dir, { ...notRoot, mode: 'drop-caches' });
    expect(drop).toEqual({
      method: null,
      reason: expect.stringMatching(/not running as root.*cold-cache figures are unavailable/),
    });
    expect(io.direct).toBe(false);
    const off = startColdReads([io], dir, { mode: 'off' });
    expect(off).toEqual({ method: null, reason: expect.stringMatching(/--cold-reads off/) });
  });

  it('names both refusals when neither method works here', () => {
    const reads = startColdReads([new ColdReadFileIO()], join(tempDir(), 'missing'), notRoot);
    expect(reads.method).toBeNull();
    if (reads.method === null) {
      expect(reads.reason).toMatch(/not running as root.*and .*cold-cache figures are unavailable/);
    }
  });
});
