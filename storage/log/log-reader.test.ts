/**
 * The sequential reader reads the log in large windows: each byte of the segments it walks is
 * read from the file about once, not once per record.
 */
import { describe, expect, it } from 'vitest';
import { Log } from './log.js';
import { recordSizeBytes } from '../record/record.js';
import { SimDisk } from '../sim/sim-disk.js';

const RECORDS = 3_000;
const BODY_BYTES = 100;

describe('reading the log in order', () => {
  it('reads each byte of the segments about once, across segment rolls', () => {
    const disk = new SimDisk({ seed: 11 });
    const log = Log.open('/log', { io: disk, segmentBytes: 64 * 1024 });
    for (let i = 0; i < RECORDS; i++) log.appendNoWait(Buffer.alloc(BODY_BYTES, i % 251));
    expect(log.segments().length).toBeGreaterThan(3);
    const before = { ...disk.counters };
    const reader = log.reader(log.startOffset);
    let records = 0;
    for (let record = reader.next(); record !== null; record = reader.next()) {
      expect(record.offset).toBe(records);
      records++;
    }
    expect(records).toBe(RECORDS);
    const readBytes = disk.counters.readBytes - before.readBytes;
    // The first record comes from an 8 KiB lookup window; the rest from one pass per segment.
    expect(readBytes).toBeLessThanOrEqual(log.sizeBytes + 8 * 1024);
    expect(disk.counters.readCalls - before.readCalls).toBeLessThan(log.segments().length * 2 + 2);
    log.close();
  });
});

describe('a reader inside a segment that retention removes', () => {
  it('says its offsets are gone (OFFSET_OUT_OF_RANGE), never reads through the closed file', () => {
    const disk = new SimDisk({ seed: 3 });
    const log = Log.open('/log', { io: disk, segmentBytes: 1024 * 1024 });
    for (let i = 0; log.segments().length < 3; i++) log.appendNoWait(Buffer.alloc(1000, i % 251));
    const reader = log.reader(0);
    expect(reader.next()?.offset).toBe(0);
    const second = log.segments()[1]!.baseOffset;
    log.deleteSegmentsBelow(second);
    expect(() => reader.next()).toThrow(
      expect.objectContaining({
        code: 'OFFSET_OUT_OF_RANGE',
        message: expect.stringMatching(/retention removed/),
      }),
    );
    const fresh = log.reader(log.startOffset);
    expect(fresh.next()?.offset).toBe(second);
    log.close();
  });
});

describe('skipping a record the caller holds', () => {
  const body = (i: number) => Buffer.alloc(BODY_BYTES, i % 251);
  const size = (i: number) => recordSizeBytes(body(i).length);

  it('moves past the next record unread, across a roll, and goes on reading after it', () => {
    const disk = new SimDisk({ seed: 5 });
    const log = Log.open('/log', { io: disk, segmentBytes: 4096 });
    for (let i = 0; log.segments().length < 2; i++) log.appendNoWait(body(i));
    const second = log.segments()[1]!.baseOffset;
    log.appendNoWait(body(second + 1));
    const reader = log.reader(0);
    while (reader.nextOffset < second - 1) reader.next();
    const reads = disk.counters.readCalls;
    expect(reader.skip(second - 1, size(second - 1))).toBe(true);
    // The first record of the next segment, reached by the skip itself.
    expect(reader.skip(second, size(second))).toBe(true);
    expect(disk.counters.readCalls).toBe(reads);
    expect(reader.next()?.body).toEqual(body(second + 1));
    expect(reader.next()).toBeNull();
    log.close();
  });

  it('refuses, and stays where it is, for another offset, a record not yet written, or a size past the end', () => {
    const disk = new SimDisk({ seed: 6 });
    const log = Log.open('/log', { io: disk, segmentBytes: 64 * 1024 });
    log.appendNoWait(body(0));
    const reader = log.reader(0);
    expect(reader.skip(1, size(1))).toBe(false);
    expect(reader.skip(0, size(0) + 1)).toBe(false);
    expect(reader.next()?.offset).toBe(0);
    expect(reader.skip(1, size(1))).toBe(false); // not appended yet
    log.appendNoWait(body(1));
    expect(reader.skip(1, size(1))).toBe(true);
    expect(reader.nextOffset).toBe(2);
    log.close();
  });

  it('moves past a good record after a damaged one, as next would', async () => {
    const disk = new SimDisk({ seed: 7 });
    const log = Log.open('/log', { io: disk, segmentBytes: 64 * 1024 });
    for (let i = 0; i < 3; i++) log.appendNoWait(body(i));
    await log.flush();
    disk.flipBit('/log/00000000000000000000.log', 8 * 8); // inside record 0's checked bytes
    const reader = log.reader(0);
    expect(() => reader.next()).toThrow(expect.objectContaining({ code: 'CORRUPT_RECORD' }));
    expect(reader.nextOffset).toBe(1);
    expect(reader.skip(1, size(1))).toBe(true);
    expect(reader.next()?.offset).toBe(2);
    log.close();
  });
});
