/**
 * Page alignment (page-alignment.ts): under `always` a record that would cross a page boundary is
 * written at the boundary, and every reader (by offset, in order, after a reopen with another
 * page size, after a power cut, the queue's skip) finds it after the gap; a damaged record after
 * a gap is refused, never taken for a gap.
 */
import { describe, expect, it } from 'vitest';
import { isStorageError } from '../errors.js';
import { Log } from '../log/log.js';
import type { LogRecord, LogReader } from '../log/log-reader.js';
import type { LogOptions } from '../log/log-config.js';
import { LogQueue } from '../queue/log-queue.js';
import { alignedWriteStart } from './page-alignment.js';
import { RECORD_HEADER_BYTES } from './record.js';
import { SimDisk } from '../sim/sim-disk.js';

const DIR = '/data/log';
const PAGE = 512;

function body(i: number): Buffer {
  // 40 to 472 bytes: records up to 488 bytes, most of them crossing a 512-byte boundary unaligned.
  return Buffer.alloc(40 + ((i * 97) % 433), i % 251);
}

function openLog(disk: SimDisk, options: LogOptions = {}): Log {
  return Log.open(DIR, {
    io: disk,
    durability: 'always',
    segmentBytes: 16384,
    indexIntervalBytes: 1024,
    pageBytes: PAGE,
    nowMs: () => 0,
    ...options,
  });
}

async function appended(disk: SimDisk, records: number, options: LogOptions = {}): Promise<Log> {
  const log = openLog(disk, options);
  for (let i = 0; i < records; i++) await log.append(body(i));
  return log;
}

function readInOrder(reader: LogReader): LogRecord[] {
  const records: LogRecord[] = [];
  for (let record = reader.next(); record !== null; record = reader.next()) records.push(record);
  return records;
}

/** Each record by offset: bodies right, and where each one sits. */
function readEach(log: Log): LogRecord[] {
  const records: LogRecord[] = [];
  for (let offset = log.startOffset; offset < log.endOffset; offset++) {
    const record = log.read(offset);
    expect(record.body.equals(body(offset))).toBe(true);
    records.push(record);
  }
  return records;
}

/** Records in one segment whose start is not where the one before ended. */
function gapsIn(records: readonly LogRecord[]): number {
  let gaps = 0;
  for (let i = 1; i < records.length; i++) {
    const before = records[i - 1]!;
    const record = records[i]!;
    const sameSegment = before.segmentBaseOffset === record.segmentBaseOffset;
    if (sameSegment && record.positionBytes !== before.positionBytes + before.sizeBytes) gaps++;
  }
  return gaps;
}

describe('alignedWriteStart', () => {
  it.each([
    // end, first record, page, start
    [0, 1040, 4096, 0],
    [3120, 976, 4096, 3120], // ends exactly at the boundary: fits
    [3120, 1040, 4096, 4096], // would cross: moved
    [4096, 1040, 4096, 4096], // at a boundary already
    [3120, 5000, 4096, 3120], // larger than a page: crosses wherever it starts
    [3120, 1040, 0, 3120], // no page size: never moved
    [2 ** 40 + 4000, 200, 4096, 2 ** 40 + 4096], // beyond 32 bits
  ])('from %i with a %i-byte record and %i-byte pages starts at %i', (end, first, page, start) => {
    expect(alignedWriteStart(end, first, page)).toBe(start);
  });
});

describe('a log under always with page alignment', () => {
  it('never lets a record that fits in a page cross one, and reads every record back', async () => {
    const disk = new SimDisk({ seed: 1 });
    const log = await appended(disk, 200);
    const records = readEach(log);
    expect(gapsIn(records)).toBeGreaterThan(20);
    for (const { positionBytes, sizeBytes } of records) {
      expect(Math.floor(positionBytes / PAGE)).toBe(
        Math.floor((positionBytes + sizeBytes - 1) / PAGE),
      );
    }
    expect(readInOrder(log.reader(0)).map((record) => record.positionBytes)).toEqual(
      records.map((record) => record.positionBytes),
    );
    await log.close();
  });

  it('writes records back to back under none (nothing is synced per write)', async () => {
    const disk = new SimDisk({ seed: 2 });
    const log = await appended(disk, 200, { durability: 'none' });
    expect(log.config.pageAlign).toBe(false);
    expect(gapsIn(readEach(log))).toBe(0);
    await log.close();
  });

  it.each([
    ['the same page size', {}],
    ['a larger page size', { pageBytes: 4096 }],
    ['no page size', { pageBytes: 0 }],
    ['none', { durability: 'none' as const }],
  ])('reads its gaps after a reopen with %s', async (_name, options) => {
    const disk = new SimDisk({ seed: 3 });
    const written = await appended(disk, 150);
    const before = readEach(written);
    await written.close();
    const log = openLog(disk, options);
    expect(log.recovery.truncation).toBeNull();
    expect(readEach(log).map((record) => record.positionBytes)).toEqual(
      before.map((record) => record.positionBytes),
    );
    await log.append(body(150));
    expect(log.read(150).body.equals(body(150))).toBe(true);
    await log.close();
  });

  it('keeps every acknowledged record through a power cut after an unsynced write', async () => {
    for (let seed = 10; seed < 40; seed++) {
      const disk = new SimDisk({ seed });
      const log = await appended(disk, 120);
      // Written, not synced: the power cut keeps any of its sectors, or none.
      log.appendNoWait(body(120));
      const survivor = disk.crash();
      const reopened = openLog(survivor);
      expect(reopened.endOffset).toBeGreaterThanOrEqual(120);
      expect(readEach(reopened)).toHaveLength(reopened.endOffset);
      await reopened.close();
    }
  });

  it('refuses a damaged record after a gap, and reads the records around it', async () => {
    const disk = new SimDisk({ seed: 4 });
    const log = await appended(disk, 120);
    const records = readEach(log);
    await log.close();
    const index = records.findIndex(
      (record, i) =>
        i > 0 && record.positionBytes !== records[i - 1]!.positionBytes + records[i - 1]!.sizeBytes,
    );
    const damaged = records[index]!;
    const logPath = `${DIR}/${String(damaged.segmentBaseOffset).padStart(20, '0')}.log`;
    // A body bit: the header still names the offset, the CRC fails.
    disk.flipBit(logPath, damaged.positionBytes + RECORD_HEADER_BYTES + 1, 3);
    const reopened = openLog(disk);
    expect(() => reopened.read(damaged.offset)).toThrow(
      expect.objectContaining({ code: 'CORRUPT_RECORD' }),
    );
    const reader = reopened.reader(0);
    const good: number[] = [];
    const lost: number[] = [];
    for (;;) {
      try {
        const record = reader.next();
        if (record === null) break;
        good.push(record.offset);
      } catch (error) {
        if (!isStorageError(error, 'CORRUPT_RECORD')) throw error;
        lost.push(Number(error.context.offset));
      }
    }
    expect(lost).toEqual([damaged.offset]);
    expect(good).toHaveLength(119);
    await reopened.close();
  });
});

describe('a queue under always with page alignment', () => {
  it('hands out each message it just sent, and reads those after a gap from the file', async () => {
    const disk = new SimDisk({ seed: 5 });
    const queue = LogQueue.open(DIR, { io: disk, durability: 'always', maxBodyBytes: 1024 });
    const message = (i: number): Buffer => Buffer.alloc(1024, i);
    for (let i = 0; i < 10; i++) {
      await queue.send(message(i));
      expect(queue.receive()?.body.equals(message(i))).toBe(true);
    }
    for (let i = 10; i < 20; i++) await queue.send(message(i));
    for (let i = 10; i < 20; i++) expect(queue.receive()?.body.equals(message(i))).toBe(true);
    expect(queue.receive()).toBeNull();
    await queue.close();
  });
});
