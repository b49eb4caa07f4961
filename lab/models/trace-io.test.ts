import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { NodeFileIO } from '../../storage/io/node-file-io.js';
import {
  TRACE_DIRECT_WRITE,
  TRACE_DIR_SYNC,
  TRACE_SYNC,
  TRACE_WRITE,
  TracingFileIO,
  WriteTrace,
} from './trace-io.js';
import { SimDisk } from '../../storage/sim/sim-disk.js';

const tempDir = tempDirs('trace');

describe('TracingFileIO', () => {
  it('records writes, syncs and directory syncs in order, delegating the work', async () => {
    const dir = tempDir();
    const io = new TracingFileIO(new NodeFileIO());
    const log = io.open(join(dir, 'log'), { create: true });
    const index = io.open(join(dir, 'index'), { create: true });
    const body = new Uint8Array(1024).fill(7);
    io.write(log, body, 0, 1024, 0);
    io.write(log, body, 0, 512, 1024);
    io.write(index, body, 0, 8, 0);
    io.fdatasync(log);
    await io.fdatasyncAsync(index);
    io.fsyncDir(dir);
    io.close(log);
    io.close(index);

    const trace = io.trace;
    expect(trace.files).toEqual([join(dir, 'log'), join(dir, 'index'), dir]);
    const events = Array.from({ length: trace.length }, (_, i) => [
      trace.kindAt(i),
      trace.fileAt(i),
      trace.positionBytesAt(i),
      trace.lengthBytesAt(i),
    ]);
    expect(events).toEqual([
      [TRACE_WRITE, 0, 0, 1024],
      [TRACE_WRITE, 0, 1024, 512],
      [TRACE_WRITE, 1, 0, 8],
      [TRACE_SYNC, 0, 0, 0],
      [TRACE_SYNC, 1, 0, 0],
      [TRACE_DIR_SYNC, 2, 0, 0],
    ]);
    expect(io.counters).toMatchObject({
      writeCalls: 3,
      writeBytes: 1544,
      fdatasyncCalls: 2,
      dirFsyncCalls: 1,
    });
    expect(fs.statSync(join(dir, 'log')).size).toBe(1536);
  });

  it('tells a write through a direct handle from one through the page cache', () => {
    const io = new TracingFileIO(new SimDisk({ seed: 1 }));
    const buffered = io.open('/log', { create: true });
    const direct = io.openDirect('/log')!;
    const block = new Uint8Array(512).fill(3);
    io.write(buffered, block, 0, 100, 0);
    io.write(direct, block, 0, 512, 512);
    io.close(direct);
    const kinds = Array.from({ length: io.trace.length }, (_, i) => io.trace.kindAt(i));
    expect(kinds).toEqual([TRACE_WRITE, TRACE_DIRECT_WRITE]);
  });

  it('refuses a handle it did not open', () => {
    const io = new TracingFileIO(new NodeFileIO());
    expect(() => io.fdatasync(12345 as never)).toThrow(/not opened through this TracingFileIO/);
  });
});

describe('WriteTrace', () => {
  it('keeps every event across chunk boundaries', () => {
    const trace = new WriteTrace();
    const file = trace.fileId('/x');
    for (let i = 0; i < 150_000; i++) trace.push(TRACE_WRITE, file, i * 4096, 4096);
    expect(trace.length).toBe(150_000);
    expect(trace.positionBytesAt(65_535)).toBe(65_535 * 4096);
    expect(trace.positionBytesAt(65_536)).toBe(65_536 * 4096);
    expect(trace.positionBytesAt(149_999)).toBe(149_999 * 4096);
    expect(trace.fileId('/x')).toBe(file);
    expect(() => trace.kindAt(150_000)).toThrow(/out of range/);
  });
});
