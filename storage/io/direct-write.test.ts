/**
 * Direct writes (direct-write.ts): each write covers exactly the 512-byte blocks its records
 * touch, the data before it in its first block rewritten with the bytes already there (known from
 * the last write, or read back after a reopen), zeros after it; every record reads back, through
 * power cuts too; a system that refuses them gets the page cache instead, and says so.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DelegatingFileIO } from './delegating-file-io.js';
import { HandleTaggingFileIO } from './handle-tagging-file-io.js';
import { DIRECT_BLOCK_BYTES, RECENT_BYTES, RecentBytes, directBlockEnd } from './direct-write.js';
import { isStorageError, ioError } from '../errors.js';
import type { FileHandle, FileIO } from './file-io.js';
import { NodeFileIO } from './node-file-io.js';
import { Log } from '../log/log.js';
import type { LogOptions } from '../log/log-config.js';
import { encodeRecord } from '../record/record.js';
import { SimDisk } from '../sim/sim-disk.js';

const DIR = '/data/log';
const SEGMENT_LOG = `${DIR}/00000000000000000000.log`;

function body(i: number): Buffer {
  // 1 to 1,400 bytes: records from under a block to over two, starting anywhere in a block.
  return Buffer.alloc(1 + ((i * 331) % 1400), (i % 250) + 1);
}

/** Remembers every write through a direct handle. */
class DirectWriteLog extends HandleTaggingFileIO<boolean> {
  readonly writes: { positionBytes: number; length: number }[] = [];

  protected override tag(_filePath: string, direct: boolean): boolean {
    return direct;
  }

  isDirect(handle: FileHandle): boolean {
    return this.tagOf(handle) === true;
  }

  override write(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): void {
    if (this.isDirect(handle)) this.writes.push({ positionBytes, length });
    super.write(handle, buffer, bufferStart, length, positionBytes);
  }
}

function openLog(io: FileIO, options: LogOptions = {}): Log {
  return Log.open(DIR, {
    io,
    durability: 'always',
    directWrites: true,
    segmentBytes: 1 << 20,
    nowMs: () => 0,
    ...options,
  });
}

async function appendAll(log: Log, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) await log.append(body(i));
}

/** The segment file as it must be: the records back to back, zeros to the end of their block. */
function expectFileImage(bytes: Buffer, records: number): void {
  const image = Buffer.concat(Array.from({ length: records }, (_, i) => encodeRecord(i, body(i))));
  expect(bytes.subarray(0, image.length).equals(image)).toBe(true);
  const tail = bytes.subarray(image.length, directBlockEnd(image.length));
  expect(tail.every((byte) => byte === 0)).toBe(true);
}

function expectEachRecord(log: Log, records: number): void {
  expect(log.endOffset).toBe(records);
  for (let i = 0; i < records; i++) expect(log.read(i).body.equals(body(i))).toBe(true);
}

describe('direct writes', () => {
  it('write exactly the blocks each append touches, and the file holds the records', async () => {
    const io = new DirectWriteLog(new SimDisk({ seed: 1 }));
    const log = openLog(io);
    let endBytes = 0;
    for (let i = 0; i < 200; i++) {
      const writes = io.writes.length;
      await log.append(body(i));
      expect(io.writes.length).toBe(writes + 1);
      const write = io.writes.at(-1)!;
      const recordEnd = endBytes + encodeRecord(i, body(i)).length;
      const blockStart = endBytes - (endBytes % DIRECT_BLOCK_BYTES);
      expect(write).toEqual({
        positionBytes: blockStart,
        length: directBlockEnd(recordEnd) - blockStart,
      });
      endBytes = recordEnd;
    }
    expect(log.directWrites).toBe('on');
    expect(log.config.pageAlign).toBe(false);
    expectFileImage(io.readWholeFile(SEGMENT_LOG)!, 200);
    expectEachRecord(log, 200);
    await log.close();
  });

  it('read the last block back after a reopen, and write after it the same way', async () => {
    const disk = new SimDisk({ seed: 2 });
    const log = openLog(disk);
    await appendAll(log, 0, 77);
    await log.close();
    const reopened = openLog(disk);
    await appendAll(reopened, 77, 150);
    expectFileImage(disk.readWholeFile(SEGMENT_LOG)!, 150);
    expectEachRecord(reopened, 150);
    await reopened.close();
  });

  it('zero the gap an aligned record leaves in the block before it', async () => {
    const disk = new SimDisk({ seed: 3 });
    const log = openLog(disk, { pageAlign: true, pageBytes: 4096 });
    await appendAll(log, 0, 120);
    const records = Array.from({ length: 120 }, (_, i) => log.read(i));
    const ends = records.map((record) => record.positionBytes + record.sizeBytes);
    const gaps = records.filter((record, i) => i > 0 && record.positionBytes !== ends[i - 1]);
    expect(gaps.length).toBeGreaterThan(0);
    await log.close();
    const reopened = openLog(disk, { pageAlign: true, pageBytes: 4096 });
    expectEachRecord(reopened, 120);
    await reopened.close();
  });

  it('keep every acknowledged record through a power cut after an unsynced direct write', async () => {
    for (let seed = 10; seed < 40; seed++) {
      const disk = new SimDisk({ seed });
      const log = openLog(disk, { segmentBytes: 8192 });
      await appendAll(log, 0, 40);
      // Written, not synced: the power cut keeps any of its sectors, or none.
      log.appendNoWait(body(40));
      const reopened = openLog(disk.crash(), { segmentBytes: 8192 });
      expect(reopened.endOffset).toBeGreaterThanOrEqual(40);
      for (let i = 0; i < reopened.endOffset; i++) {
        expect(reopened.read(i).body.equals(body(i))).toBe(true);
      }
      await reopened.close();
    }
  });

  it('gather under group as under always: every acknowledged record reads back', async () => {
    const disk = new SimDisk({ seed: 4 });
    const log = openLog(disk, { durability: 'group', segmentBytes: 16384 });
    await Promise.all(Array.from({ length: 100 }, (_, i) => log.append(body(i))));
    expect(log.directWrites).toBe('on');
    expectEachRecord(log, 100);
    await log.close();
    expectEachRecord(openLog(disk, { durability: 'group', segmentBytes: 16384 }), 100);
  });

  it('give way to the page cache where the system refuses a direct handle', async () => {
    class NoDirect extends DelegatingFileIO {
      override openDirect(): FileHandle | null {
        return null;
      }
    }
    const disk = new SimDisk({ seed: 5 });
    const log = openLog(new NoDirect(disk));
    await appendAll(log, 0, 50);
    expect(log.directWrites).toBe('refused');
    expect(log.directWritesRefusal).toMatch(/O_DIRECT/);
    expect(log.config.pageAlign).toBe(false);
    expectEachRecord(log, 50);
    await log.close();
  });

  it('write through the page cache after an EINVAL, and fence on any other failure', async () => {
    class FailingDirect extends DirectWriteLog {
      constructor(
        inner: FileIO,
        readonly errno: string,
      ) {
        super(inner);
      }
      override write(
        handle: FileHandle,
        buffer: Uint8Array,
        bufferStart: number,
        length: number,
        positionBytes: number,
      ): void {
        if (this.isDirect(handle) && positionBytes >= 4096) {
          const cause = Object.assign(new Error(this.errno), { code: this.errno });
          throw ioError('write', 'segment', cause);
        }
        super.write(handle, buffer, bufferStart, length, positionBytes);
      }
    }
    const refusing = openLog(new FailingDirect(new SimDisk({ seed: 6 }), 'EINVAL'));
    await appendAll(refusing, 0, 60);
    expect(refusing.directWrites).toBe('refused');
    expect(refusing.directWritesRefusal).toMatch(/EINVAL/);
    expectEachRecord(refusing, 60);
    await refusing.close();

    const failing = openLog(new FailingDirect(new SimDisk({ seed: 7 }), 'EIO'));
    const outcome = await appendAll(failing, 0, 60).catch((error: unknown) => error);
    expect(isStorageError(outcome, 'IO_ERROR')).toBe(true);
    expect(failing.directWrites).toBe('on');
    await expect(failing.append(body(0))).rejects.toMatchObject({ code: 'LOG_FENCED' });
    await failing.close();
  });

  it('are refused under none, or given anything but a boolean', () => {
    const disk = new SimDisk({ seed: 8 });
    for (const options of [
      { durability: 'none' as const },
      { directWrites: 'yes' as unknown as boolean },
    ]) {
      const refused = (() => {
        try {
          openLog(disk, options);
        } catch (error) {
          return error;
        }
        return null;
      })();
      expect(isStorageError(refused, 'INVALID_CONFIG')).toBe(true);
    }
    expect(Log.open(DIR, { io: disk, durability: 'always' }).config.pageAlign).toBe(true);
  });
});

/** Counts the reads of segment files. */
class SegmentReads extends DelegatingFileIO {
  readonly logHandles = new Set<FileHandle>();
  reads = 0;

  override open(filePath: string, options: { create: boolean }): FileHandle {
    const handle = super.open(filePath, options);
    if (filePath.endsWith('.log')) this.logHandles.add(handle);
    return handle;
  }

  override read(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): number {
    if (this.logHandles.has(handle)) this.reads++;
    return super.read(handle, buffer, bufferStart, length, positionBytes);
  }
}

describe('the newest bytes a direct write left out of the page cache', () => {
  it('go to readers in this process from memory; older ones come from the file', async () => {
    const io = new SegmentReads(new SimDisk({ seed: 9 }));
    const log = openLog(io, { segmentBytes: 4 << 20 });
    await log.append(body(0));
    const follower = log.reader(0);
    const records = Math.ceil((2 * RECENT_BYTES) / 700);
    for (let i = 0; i < records; i++) {
      if (i > 0) await log.append(body(i));
      expect(follower.next()!.body.equals(body(i))).toBe(true);
    }
    expect(io.reads).toBe(0);
    expect(log.read(records - 1).body.equals(body(records - 1))).toBe(true);
    expect(io.reads).toBe(0);
    expectEachRecord(log, records);
    expect(io.reads).toBeGreaterThan(0);
    await log.close();
  });

  it('keep the newest writes as written, and start over where a write does not follow', () => {
    const recent = new RecentBytes();
    const file = Buffer.alloc(4 * RECENT_BYTES);
    for (let i = 0; i < file.length; i++) file[i] = (i * 7) % 251;
    const wrote = (blockStart: number, dataEndBefore: number, endBytes: number) =>
      recent.wrote(file.subarray(blockStart), blockStart, dataEndBefore, endBytes);
    const holds = (position: number, length: number) => {
      const target = Buffer.alloc(length);
      if (!recent.readInto(target, 0, length, position)) return false;
      expect(target.equals(file.subarray(position, position + length))).toBe(true);
      return true;
    };
    let end = 0;
    for (let i = 0; i < 600; i++) {
      const blockStart = end - (end % DIRECT_BLOCK_BYTES);
      wrote(blockStart, end, end + 1040);
      end += 1040;
    }
    expect(holds(end - RECENT_BYTES / 2, RECENT_BYTES / 2)).toBe(true);
    expect(holds(0, 1040)).toBe(false);
    expect(holds(end - 10, 20)).toBe(false);
    // A write after a gap of whole blocks: what lies between is not known.
    wrote(end + 2048, end, end + 3000);
    expect(holds(end + 2048, 952)).toBe(true);
    expect(holds(end - 100, 100)).toBe(false);
    recent.forget();
    expect(holds(end + 2048, 952)).toBe(false);
  });
});

describe('direct writes on this machine', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('are taken where the file system takes O_DIRECT, and every record reads back', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loglab-direct-'));
    dirs.push(dir);
    const probe = path.join(dir, 'probe');
    fs.writeFileSync(probe, '');
    const io = new NodeFileIO();
    const handle = io.openDirect(probe);
    if (handle !== null) io.close(handle);
    const options = { durability: 'always' as const, directWrites: true, segmentBytes: 1 << 20 };
    const log = Log.open(dir, options);
    for (let i = 0; i < 300; i++) await log.append(body(i));
    expect(log.directWrites).toBe(handle === null ? 'refused' : 'on');
    await log.close();
    const reopened = Log.open(dir, options);
    for (let i = 300; i < 400; i++) await reopened.append(body(i));
    expectEachRecord(reopened, 400);
    expectFileImage(fs.readFileSync(path.join(dir, '00000000000000000000.log')), 400);
    await reopened.close();
  });
});
