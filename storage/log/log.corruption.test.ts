/**
 * Mid-log corruption (NATS's TestFileStoreBitRot, issue 5): one bit flipped on the device inside
 * one record. Reading that record fails with CORRUPT_RECORD; every other record stays readable,
 * by offset and by the sequential reader, which reports the damaged offset once and goes on. A
 * single damaged record costs exactly that record — whichever bit of its header or body flipped,
 * its length field included — as long as the records around it are intact.
 */
import { describe, expect, it } from 'vitest';
import { isStorageError } from '../errors.js';
import { Log } from './log.js';
import type { LogRecord, LogReader } from './log-reader.js';
import { LogQueue } from '../queue/log-queue.js';
import { RECORD_HEADER_BYTES } from '../record/record.js';
import { SimDisk } from '../sim/sim-disk.js';

const DIR = '/data/log';
const RECORDS = 120;
const LONG_MS = 1e9;

function body(i: number): Buffer {
  // Bodies start with a zero byte, the case an unchecked attributes bit used to let through.
  const text = Buffer.from(`record ${i} `.repeat(1 + (i % 4)));
  return Buffer.concat([Buffer.of(0, i % 256), text]);
}

function openLog(disk: SimDisk, readOnly = false): Log {
  return Log.open(DIR, {
    io: disk,
    segmentBytes: 2048,
    indexIntervalBytes: 100,
    nowMs: () => 0,
    readOnly,
  });
}

/** A closed log of RECORDS records over several segments: everything before it is trusted. */
function writtenLog(): SimDisk {
  const disk = new SimDisk({ seed: 1 });
  const log = openLog(disk);
  for (let i = 0; i < RECORDS; i++) log.appendNoWait(body(i));
  log.close();
  return disk;
}

/** What a reader yields: offsets of good records, and offsets it reported as damaged. */
function readAll(reader: LogReader): { good: number[]; damaged: number[] } {
  const good: number[] = [];
  const damaged: number[] = [];
  for (;;) {
    let record: LogRecord | null;
    try {
      record = reader.next();
    } catch (error) {
      if (!isStorageError(error, 'CORRUPT_RECORD')) throw error;
      damaged.push(Number(error.context.offset));
      continue;
    }
    if (record === null) return { good, damaged };
    expect(record.body.equals(body(record.offset))).toBe(true);
    good.push(record.offset);
  }
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

/** Flips `bit` of the record at `offset`, checks the log around it, flips it back. */
function checkFlip(disk: SimDisk, offset: number, bit: number): void {
  const where = openLog(disk, true).read(offset);
  const file = openLog(disk, true)
    .segments()
    .find((s) => s.baseOffset === where.segmentBaseOffset)!;
  disk.flipBit(file.logPath, where.positionBytes + (bit >> 3), bit & 7);
  try {
    const log = openLog(disk);
    const read = (): unknown => log.read(offset);
    expect(read, `bit ${bit}`).toThrow(expect.objectContaining({ code: 'CORRUPT_RECORD' }));
    for (const other of range(0, RECORDS)) {
      if (other !== offset) expect(log.read(other).body.equals(body(other))).toBe(true);
    }
    const all = range(0, RECORDS).filter((other) => other !== offset);
    expect(readAll(log.reader(0)), `bit ${bit}`).toEqual({ good: all, damaged: [offset] });
    const fromDamaged = readAll(log.reader(offset));
    expect(fromDamaged).toEqual({ good: range(offset + 1, RECORDS), damaged: [offset] });
    log.close();
  } finally {
    disk.flipBit(file.logPath, where.positionBytes + (bit >> 3), bit & 7);
  }
}

describe('a flipped bit in a sealed segment', () => {
  const disk = writtenLog();
  const log = openLog(disk);
  const segments = log.segments();
  const second = segments[1]!.baseOffset;
  const third = segments[2]!.baseOffset;
  log.close();
  const targets: Array<[string, number]> = [
    ['the first record of a segment', second],
    ['a record inside a segment', second + 3],
    ['the last record of a segment', third - 1],
    ['a record of the active segment', RECORDS - 2],
  ];
  for (const [name, offset] of targets) {
    it(`costs exactly ${name}, whichever header bit flipped`, () => {
      for (let bit = 0; bit < RECORD_HEADER_BYTES * 8; bit++) checkFlip(disk, offset, bit);
    });
  }

  it('costs exactly one record when a body bit flipped', () => {
    for (let bit = RECORD_HEADER_BYTES * 8; bit < (RECORD_HEADER_BYTES + 8) * 8; bit++) {
      checkFlip(disk, second + 3, bit);
    }
  });

  it('lets the log queue deliver every other message and count the damaged one', async () => {
    const target = second + 3;
    const where = openLog(disk, true).read(target);
    const file = openLog(disk, true).segments()[1]!.logPath;
    disk.flipBit(file, where.positionBytes + 1, 5); // the length field
    const queue = LogQueue.open(DIR, { io: disk, segmentBytes: 2048, indexIntervalBytes: 100 });
    const delivered: number[] = [];
    for (let m = queue.receive({ visibilityTimeoutMs: LONG_MS }); m !== null; ) {
      expect(m.body.equals(body(m.id))).toBe(true);
      delivered.push(m.id);
      m = queue.receive({ visibilityTimeoutMs: LONG_MS });
    }
    expect(delivered).toEqual(range(0, RECORDS).filter((offset) => offset !== target));
    expect(queue.stats().corruptSkipped).toBe(1);
    await queue.close();
    disk.flipBit(file, where.positionBytes + 1, 5);
  });
});
