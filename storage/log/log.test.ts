import {
  existsSync,
  readFileSync,
  readdirSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { errorOf } from '../../test/fixtures/storage-error.js';
import { isStorageError, StorageError } from '../errors.js';
import type { FileHandle } from '../io/file-io.js';
import { NodeFileIO } from '../io/node-file-io.js';
import { Log } from './log.js';
import { DEFAULT_PREALLOCATE_EXTENT_BYTES as PREALLOCATE_EXTENT_BYTES } from './log-config.js';
import { RECOVERY_POINT_FILE } from '../segments/segment-files.js';

const newDir = tempDirs('log');
const bodyFor = (offset: number, sizeBytes = 100): Buffer => Buffer.alloc(sizeBytes, offset % 256);

function fill(log: Log, count: number, sizeBytes = 100): void {
  for (let i = 0; i < count; i++) log.appendNoWait(bodyFor(log.endOffset, sizeBytes));
}

describe('appending and reading', () => {
  it('reads back every appended record byte for byte, across segment rolls', async () => {
    const log = Log.open(newDir(), { segmentBytes: 4096, baseOffset: 10 });
    fill(log, 200);
    expect(log.segments().length).toBeGreaterThan(5);
    for (let offset = 10; offset < 210; offset++)
      expect(log.read(offset).body.equals(bodyFor(offset))).toBe(true);
    await log.close();
  });

  it('names segment files by base offset padded to 20 digits', async () => {
    const dir = newDir();
    const log = Log.open(dir, { baseOffset: 1_245_036 });
    log.appendNoWait(Buffer.from('x'));
    await log.close();
    expect(readdirSync(dir)).toEqual(
      expect.arrayContaining([
        '00000000000001245036.log',
        '00000000000001245036.index',
        '00000000000001245036.timeindex',
      ]),
    );
  });

  it('starts a new segment only when the next record would pass segmentBytes', async () => {
    const log = Log.open(newDir(), { segmentBytes: 1100 });
    fill(log, 8, 94); // 110-byte records: 10 fit exactly
    fill(log, 2, 94);
    expect(log.segments().length).toBe(1);
    fill(log, 1, 94);
    expect(log.segments().map((s) => s.baseOffset)).toEqual([0, 10]);
    await log.close();
  });

  it('writes a batch with the same offsets and index entries as single appends', async () => {
    const single = Log.open(newDir(), { segmentBytes: 8192, indexIntervalBytes: 512 });
    const batched = Log.open(newDir(), { segmentBytes: 8192, indexIntervalBytes: 512 });
    const bodies = Array.from({ length: 300 }, (_, i) => bodyFor(i, 10 + (i % 90)));
    for (const body of bodies) single.appendNoWait(body);
    batched.appendBatchNoWait(bodies);
    expect(batched.segments().map((s) => [s.baseOffset, s.sizeBytes])).toEqual(
      single.segments().map((s) => [s.baseOffset, s.sizeBytes]),
    );
    for (let offset = 0; offset < 300; offset += 7) {
      expect(batched.explainLookup(offset)).toEqual(single.explainLookup(offset));
    }
    await single.close();
    await batched.close();
  });

  it('refuses a record above the maximum size, naming both sizes', async () => {
    const log = Log.open(newDir(), { maxRecordBytes: 1000 });
    expect(() => log.appendNoWait(Buffer.alloc(1000))).toThrow(
      /1016 bytes exceeds the maximum record size of 1000 bytes/,
    );
    expect(log.endOffset).toBe(0);
    await log.close();
  });

  it('refuses a batch with a record too large whole, naming the record and that nothing was stored', async () => {
    const log = Log.open(newDir(), { maxRecordBytes: 1000 });
    fill(log, 2);
    const bodies = [Buffer.alloc(10), Buffer.alloc(10), Buffer.alloc(1000), Buffer.alloc(10)];
    const refused = errorOf(() => log.appendBatchNoWait(bodies));
    expect(refused.code).toBe('RECORD_TOO_LARGE');
    expect(refused.context).toMatchObject({ recordIndex: 2, stored: null, sizeBytes: 1016 });
    expect(refused.message).toMatch(
      /^storage: append: nothing stored \(next offset 2\); record 2 of the batch .* refused: a record of 1016 bytes exceeds/,
    );
    expect(log.endOffset).toBe(2);
    await log.close();
  });

  it('appends records one at a time up to one refused, and says which offsets it stored', async () => {
    const log = Log.open(newDir(), { segmentBytes: 1024 });
    fill(log, 3);
    const bodies = [...Array.from({ length: 300 }, (_, i) => bodyFor(i)), Buffer.alloc(2000)];
    const refused = errorOf(() => log.appendEachNoWait([...bodies, bodyFor(9)]));
    expect(refused.code).toBe('RECORD_TOO_LARGE');
    expect(refused.context).toMatchObject({
      recordIndex: 300,
      stored: { firstOffset: 3, lastOffset: 302 },
      sizeBytes: 2016,
      limitBytes: 1024,
    });
    expect(refused.message).toMatch(
      /^storage: append: stored offsets 3–302; record 300 refused: a record of 2016 bytes/,
    );
    expect(isStorageError(refused.cause, 'RECORD_TOO_LARGE')).toBe(true);
    expect(log.endOffset).toBe(303);
    expect(log.read(302).body).toEqual(bodyFor(299));
    const first = errorOf(() => log.appendEachNoWait([Buffer.alloc(2000)]));
    expect(first.context).toMatchObject({ recordIndex: 0, stored: null });
    expect(first.message).toMatch(/^storage: append: nothing stored \(next offset 303\); record 0/);
    expect(log.appendEachNoWait([bodyFor(1), bodyFor(2)])).toBe(303);
    await log.close();
  });

  it('throws OFFSET_OUT_OF_RANGE outside the log', async () => {
    const log = Log.open(newDir(), { baseOffset: 5 });
    fill(log, 3);
    for (const offset of [4, 8, -1, 1.5]) {
      expect(() => log.read(offset)).toThrow(
        expect.objectContaining({ code: 'OFFSET_OUT_OF_RANGE' }),
      );
    }
    await log.close();
  });

  it('reads sequentially from any offset across segments without the index', async () => {
    const log = Log.open(newDir(), { segmentBytes: 2048 });
    fill(log, 100);
    const reader = log.reader(37);
    const seen: number[] = [];
    for (let record = reader.next(); record !== null; record = reader.next())
      seen.push(record.offset);
    expect(seen).toEqual(Array.from({ length: 63 }, (_, i) => 37 + i));
    fill(log, 2);
    expect(reader.next()?.offset).toBe(100);
    await log.close();
  });

  it('keeps an entry for every record with a dense index (interval 0)', async () => {
    const log = Log.open(newDir(), { indexIntervalBytes: 0 });
    fill(log, 50);
    const walk = log.explainLookup(33);
    expect(walk.indexEntries).toBe(50);
    expect(walk.recordsStepped).toBe(1);
    await log.close();
  });
});

describe('time index', () => {
  it('finds the first offset whose entry time is at or after a time', async () => {
    let nowMs = 1_000;
    // Under `group` a record's entry time is when its group is written, up to one sync later.
    const log = Log.open(newDir(), {
      durability: 'none',
      indexIntervalBytes: 0,
      nowMs: () => nowMs,
    });
    for (let i = 0; i < 10; i++) {
      log.appendNoWait(bodyFor(i));
      nowMs += 100;
    }
    expect(log.offsetForTime(0)).toBe(0);
    expect(log.offsetForTime(1_000)).toBe(0);
    expect(log.offsetForTime(1_050)).toBe(1);
    expect(log.offsetForTime(1_900)).toBe(9);
    expect(log.offsetForTime(5_000)).toBe(10);
    await log.close();
  });

  it('never lets times go backwards when the clock steps back', async () => {
    const times = [5_000, 4_000, 6_000];
    const log = Log.open(newDir(), { indexIntervalBytes: 0, nowMs: () => times.shift() ?? 7_000 });
    fill(log, 3);
    expect(log.offsetForTime(5_000)).toBe(0);
    expect(log.offsetForTime(5_001)).toBe(2);
    await log.close();
  });
});

describe('reopening', () => {
  it('scans nothing after a clean close', async () => {
    const dir = newDir();
    const log = Log.open(dir, { segmentBytes: 4096 });
    fill(log, 100);
    await log.close();
    const reopened = Log.open(dir, { segmentBytes: 4096 });
    expect(reopened.recovery).toMatchObject({
      startedFrom: 'recovery-point',
      scannedBytes: 0,
      truncation: null,
    });
    expect(reopened.endOffset).toBe(100);
    reopened.appendNoWait(bodyFor(100));
    expect(reopened.read(100).body.equals(bodyFor(100))).toBe(true);
    await reopened.close();
  });

  it('rebuilds a missing index and a damaged one from the log', async () => {
    const dir = newDir();
    const log = Log.open(dir, { segmentBytes: 64 * 1024, indexIntervalBytes: 256 });
    fill(log, 2000);
    const sealed = log.segments()[0]!;
    await log.close();
    const indexPath = sealed.logPath.replace(/\.log$/, '.index');
    const before = readFileSync(indexPath);
    writeFileSync(indexPath, Buffer.alloc(before.length, 0xff));
    const damaged = Log.open(dir, { indexIntervalBytes: 256 });
    expect(damaged.read(17).body.equals(bodyFor(17))).toBe(true);
    await damaged.close();
    expect(readFileSync(indexPath).equals(before)).toBe(true);
    writeFileSync(indexPath, Buffer.alloc(0));
    const missing = Log.open(dir, { indexIntervalBytes: 256 });
    expect(missing.explainLookup(400).recordsStepped).toBeLessThan(5);
    await missing.close();
  });

  it('rebuilds the index of a sealed segment damaged near its end once, not at every open', async () => {
    const dir = newDir();
    const options = { segmentBytes: 64 * 1024, indexIntervalBytes: 4096 };
    const log = Log.open(dir, options);
    fill(log, 1000);
    const sealed = log.segments()[0]!;
    const lastOffset = log.segments()[1]!.baseOffset - 1;
    const last = log.read(lastOffset);
    await log.close();
    // The last record of the sealed segment: its length damaged, after the last index entry.
    const bytes = readFileSync(sealed.logPath);
    bytes[last.positionBytes + 1] = 0xff;
    writeFileSync(sealed.logPath, bytes);
    // And its index lost: the first open must rebuild it.
    writeFileSync(sealed.logPath.replace(/\.log$/, '.index'), Buffer.alloc(0));
    const syncsOfFirstLookup = () => {
      const io = new NodeFileIO();
      const opened = Log.open(dir, { ...options, io });
      const before = io.counters.fdatasyncCalls;
      expect(opened.read(3).body.equals(bodyFor(3))).toBe(true);
      const syncs = io.counters.fdatasyncCalls - before;
      opened.close();
      return syncs;
    };
    expect(syncsOfFirstLookup()).toBe(2); // the index and the time index, rebuilt and synced
    expect(syncsOfFirstLookup()).toBe(0);
  });

  it('leaves foreign files alone and names a file that claims to be a segment but is not', async () => {
    const dir = newDir();
    await Log.open(dir).close();
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    await Log.open(dir).close();
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
    writeFileSync(join(dir, '12.log'), 'x');
    expect(() => Log.open(dir)).toThrow(/12\.log looks like a segment/);
  });
});

describe('retention', () => {
  it('deletes whole segments below an offset, never the active one', async () => {
    const dir = newDir();
    const log = Log.open(dir, { segmentBytes: 2048 });
    fill(log, 100);
    const bases = log.segments().map((s) => s.baseOffset);
    const removed = log.deleteSegmentsBelow(bases[3]! + 1);
    expect(removed.segments).toBe(3);
    expect(log.startOffset).toBe(bases[3]);
    expect(existsSync(log.segments()[0]!.logPath)).toBe(true);
    log.deleteSegmentsBelow(1_000_000);
    expect(log.segments().length).toBe(1);
    expect(log.read(99).body.equals(bodyFor(99))).toBe(true);
    await log.close();
    expect(Log.open(dir).startOffset).toBe(log.segments()[0]!.baseOffset);
  });
});

describe('durability', () => {
  it('fdatasyncs every append under always, one at a time, even when 20 wait together', async () => {
    const io = new NodeFileIO();
    const log = Log.open(newDir(), { durability: 'always', io, preallocate: false });
    const before = io.counters.fdatasyncCalls;
    for (let i = 0; i < 20; i++) await log.append(bodyFor(i));
    expect(io.counters.fdatasyncCalls - before).toBe(20);
    await Promise.all(Array.from({ length: 20 }, (_, i) => log.append(bodyFor(20 + i))));
    expect(io.counters.fdatasyncCalls - before).toBe(40);
    await log.close();
  });

  it('preallocates segments under always, trims them at a roll and a clean close', async () => {
    const dir = newDir();
    const log = Log.open(dir, { durability: 'always', segmentBytes: 64 * 1024 });
    fill(log, 10);
    const first = log.segments()[0]!;
    expect(statSync(first.logPath).size).toBe(64 * 1024);
    fill(log, 600);
    expect(statSync(first.logPath).size).toBe(log.segments()[0]!.sizeBytes);
    const active = log.segments().at(-1)!;
    expect(statSync(active.logPath).size).toBe(64 * 1024);
    await log.close();
    expect(statSync(active.logPath).size).toBe(active.sizeBytes);
  });

  it('preallocates one extent ahead, not the whole segment at once, synced with the appends', async () => {
    const io = new NodeFileIO();
    const dir = newDir();
    const log = Log.open(dir, {
      durability: 'always',
      syncMode: 'inline',
      segmentBytes: 3 * PREALLOCATE_EXTENT_BYTES,
      io,
    });
    const syncsBefore = io.counters.fdatasyncCalls;
    log.appendNoWait(bodyFor(0));
    const logPath = log.segments()[0]!.logPath;
    expect(statSync(logPath).size).toBe(PREALLOCATE_EXTENT_BYTES);
    const batch = Array.from({ length: 1000 }, (_, i) => bodyFor(i, 1024));
    while (log.sizeBytes + 1040 * 1000 <= PREALLOCATE_EXTENT_BYTES) log.appendBatchNoWait(batch);
    expect(statSync(logPath).size).toBe(PREALLOCATE_EXTENT_BYTES);
    const appendsBefore = io.counters.fdatasyncCalls - syncsBefore;
    log.appendBatchNoWait(batch);
    // The new extent's zeros are committed by the batch's own sync: they add none of their own.
    expect(io.counters.fdatasyncCalls - syncsBefore).toBe(appendsBefore + 1);
    expect(statSync(logPath).size).toBe(2 * PREALLOCATE_EXTENT_BYTES);
    const end = log.endOffset;
    await log.close();
    const reopened = Log.open(dir, {
      durability: 'always',
      segmentBytes: 3 * PREALLOCATE_EXTENT_BYTES,
    });
    expect(reopened.endOffset).toBe(end);
    expect(reopened.read(end - 1).body.equals(bodyFor(999, 1024))).toBe(true);
    await reopened.close();
  });

  it('refuses a preallocation extent below 512 bytes, naming the accepted range', () => {
    expect(() => Log.open(newDir(), { durability: 'always', preallocateExtentBytes: 100 })).toThrow(
      expect.objectContaining({
        code: 'INVALID_CONFIG',
        message: expect.stringMatching(/preallocateExtentBytes must be an integer from 512/),
      }),
    );
  });

  it('recovers a preallocated segment after a crash, reporting the zeros as zeros', async () => {
    const dir = newDir();
    const log = Log.open(dir, { durability: 'always', segmentBytes: 64 * 1024 });
    fill(log, 30);
    const active = log.segments()[0]!;
    const crashed = readFileSync(active.logPath);
    const point = readFileSync(join(dir, RECOVERY_POINT_FILE));
    await log.close();
    writeFileSync(active.logPath, crashed);
    writeFileSync(join(dir, RECOVERY_POINT_FILE), point);
    const reopened = Log.open(dir, { durability: 'always', segmentBytes: 64 * 1024 });
    expect(reopened.endOffset).toBe(30);
    expect(reopened.recovery.truncation).toMatchObject({
      discardedBytes: 0,
      discardedRecords: 0,
      zeroTailBytes: 64 * 1024 - 30 * 116,
    });
    reopened.appendNoWait(bodyFor(30));
    expect(reopened.read(30).body.equals(bodyFor(30))).toBe(true);
    await reopened.close();
  });

  it('covers many concurrent appends with one fdatasync under group', async () => {
    const io = new NodeFileIO();
    const log = Log.open(newDir(), { durability: 'group', groupMaxDelayMs: 5, io });
    const before = io.counters.fdatasyncCalls;
    const acks = Array.from({ length: 64 }, (_, i) => log.append(bodyFor(i)));
    expect(await Promise.all(acks)).toEqual(Array.from({ length: 64 }, (_, i) => i));
    const syncs = io.counters.fdatasyncCalls - before;
    expect(syncs).toBeGreaterThanOrEqual(1);
    expect(syncs).toBeLessThanOrEqual(2);
    await log.close();
  });

  it('writes a group with one write before its fdatasync, inline or on the thread pool', async () => {
    for (const syncMode of ['inline', 'thread-pool'] as const) {
      const io = new NodeFileIO();
      const log = Log.open(newDir(), { durability: 'group', syncMode, io });
      // The first group also zero-fills the preallocated segment; the second is one write.
      const acks = Array.from({ length: 16 }, (_, i) => log.append(bodyFor(i)));
      expect(await Promise.all(acks)).toEqual(Array.from({ length: 16 }, (_, i) => i));
      const acksAgain = Array.from({ length: 16 }, (_, i) => log.append(bodyFor(16 + i)));
      const writesMid = io.counters.writeCalls;
      await Promise.all(acksAgain);
      expect(io.counters.writeCalls - writesMid).toBe(1);
      await log.close();
    }
  });

  it('serves appends that wait for their group before the group has written them', async () => {
    const log = Log.open(newDir(), {
      durability: 'group',
      groupMaxDelayMs: 60_000,
      segmentBytes: 4096,
    });
    const reader = log.reader(0);
    fill(log, 3);
    expect(log.endOffset).toBe(3);
    expect(log.read(1).body.equals(bodyFor(1))).toBe(true);
    fill(log, 2);
    const seen: number[] = [];
    for (let record = reader.next(); record !== null; record = reader.next())
      seen.push(record.offset);
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    fill(log, 60);
    expect(log.segments().length).toBeGreaterThan(1);
    for (let offset = 0; offset < 65; offset++)
      expect(log.read(offset).body.equals(bodyFor(offset))).toBe(true);
    await log.close();
  });

  it('refuses an unknown syncMode, naming the accepted ones', () => {
    expect(() =>
      Log.open(newDir(), { durability: 'group', syncMode: 'later' as 'inline' }),
    ).toThrow(/syncMode must be one of adaptive, inline, thread-pool, got 'later'/);
  });

  it('syncs at once when groupMaxBytes are waiting', async () => {
    const io = new NodeFileIO();
    const log = Log.open(newDir(), {
      durability: 'group',
      groupMaxDelayMs: 60_000,
      groupMaxBytes: 1000,
      io,
    });
    const ack = log.append(bodyFor(0, 2000));
    await expect(ack).resolves.toBe(0);
    await log.close();
  });

  it('fences the log after a failed fdatasync until it is reopened', async () => {
    const dir = newDir();
    const io = new FailingSyncIO();
    const log = Log.open(dir, { durability: 'group', groupMaxDelayMs: 1, io });
    await log.append(bodyFor(0));
    io.failSyncs = true;
    await expect(log.append(bodyFor(1))).rejects.toMatchObject({ code: 'LOG_FENCED' });
    expect(() => log.appendNoWait(bodyFor(2))).toThrow(
      expect.objectContaining({ code: 'LOG_FENCED' }),
    );
    await expect(log.acknowledged(log.endOffset)).rejects.toMatchObject({ code: 'LOG_FENCED' });
    await log.close();
    io.failSyncs = false;
    const reopened = Log.open(dir, { io });
    expect(reopened.read(0).body.equals(bodyFor(0))).toBe(true);
    reopened.appendNoWait(bodyFor(9));
    await reopened.close();
  });

  it('drops a record whose write threw under none: the next append takes its offset', async () => {
    const io = new InterruptedWriteIO();
    const log = Log.open(newDir(), { io, durability: 'none' });
    log.appendNoWait(bodyFor(0));
    io.interruptNextWrite = true;
    expect(() => log.appendNoWait(Buffer.from('lost'))).toThrow(/interrupted/);
    expect(log.fenced).toBeNull();
    expect(log.endOffset).toBe(1);
    expect(log.appendNoWait(bodyFor(1))).toBe(1);
    expect(log.read(1).body.equals(bodyFor(1))).toBe(true);
    expect(log.endOffset).toBe(2);
    await log.close();
  });

  it('throws the I/O error itself under always with inline syncs, then fences', async () => {
    const io = new FailingSyncIO();
    const log = Log.open(newDir(), { durability: 'always', syncMode: 'inline', io });
    io.failSyncs = true;
    expect(() => log.appendNoWait(bodyFor(0))).toThrow(
      expect.objectContaining({ code: 'IO_ERROR' }),
    );
    expect(isStorageError(log.fenced, 'LOG_FENCED')).toBe(true);
    await log.close();
  });

  it('rejects the append with the fence under always with thread-pool syncs, the I/O error its cause', async () => {
    const io = new FailingSyncIO();
    const log = Log.open(newDir(), { durability: 'always', io });
    io.failSyncs = true;
    const failed = await log.append(bodyFor(0)).catch((error: unknown) => error);
    expect(isStorageError(failed, 'LOG_FENCED')).toBe(true);
    expect(isStorageError((failed as Error).cause, 'IO_ERROR')).toBe(true);
    expect(() => log.appendNoWait(bodyFor(1))).toThrow(
      expect.objectContaining({ code: 'LOG_FENCED' }),
    );
    await log.close();
  });
});

describe('torn tails', () => {
  it('keeps the log up to the record before a cut at every byte of the last record', async () => {
    const dir = newDir();
    const log = Log.open(dir, { indexIntervalBytes: 64 });
    fill(log, 20, 50);
    log.flush();
    const pointBefore = readFileSync(join(dir, RECOVERY_POINT_FILE));
    const sizeBefore = log.sizeBytes;
    log.appendNoWait(bodyFor(20, 50));
    await log.close();
    const logPath = log.segments()[0]!.logPath;
    const full = readFileSync(logPath);
    for (let cut = 0; cut < full.length - sizeBefore; cut++) {
      writeFileSync(logPath, full.subarray(0, sizeBefore + cut));
      writeFileSync(join(dir, RECOVERY_POINT_FILE), pointBefore);
      const reopened = Log.open(dir, { indexIntervalBytes: 64 });
      expect(reopened.endOffset).toBe(20);
      const truncation = reopened.recovery.truncation;
      expect((truncation?.discardedBytes ?? 0) + (truncation?.zeroTailBytes ?? 0)).toBe(cut);
      expect(reopened.read(19).body.equals(bodyFor(19, 50))).toBe(true);
      expect(reopened.explainLookup(19).recordPositionBytes).toBeLessThan(sizeBefore);
      reopened.appendNoWait(bodyFor(20, 50));
      expect(reopened.read(20).body.equals(bodyFor(20, 50))).toBe(true);
      await reopened.close();
    }
  });

  it('cuts at a record whose bits were flipped in the unsynced tail', async () => {
    const dir = newDir();
    const log = Log.open(dir);
    fill(log, 10, 40);
    log.flush();
    const pointBefore = readFileSync(join(dir, RECOVERY_POINT_FILE));
    const syncedBytes = log.sizeBytes;
    fill(log, 3, 40);
    await log.close();
    const logPath = log.segments()[0]!.logPath;
    const full = readFileSync(logPath);
    for (let at = syncedBytes; at < full.length; at++) {
      const damaged = Buffer.from(full);
      damaged[at] = damaged[at]! ^ 0x10;
      writeFileSync(logPath, damaged);
      writeFileSync(join(dir, RECOVERY_POINT_FILE), pointBefore);
      const reopened = Log.open(dir);
      const damagedRecord = 10 + Math.floor((at - syncedBytes) / 56);
      expect(reopened.endOffset).toBe(damagedRecord);
      expect(reopened.recovery.truncation?.positionBytes).toBe(
        syncedBytes + (damagedRecord - 10) * 56,
      );
      await reopened.close();
    }
  });

  it('scans the last segment from its start when the recovery point is missing', async () => {
    const dir = newDir();
    const log = Log.open(dir, { segmentBytes: 4096 });
    fill(log, 100);
    await log.close();
    const last = log.segments().at(-1)!;
    truncateSync(last.logPath, last.sizeBytes - 3);
    writeFileSync(join(dir, RECOVERY_POINT_FILE), 'garbage');
    const reopened = Log.open(dir, { segmentBytes: 4096 });
    expect(reopened.recovery.startedFrom).toBe('segment-start');
    expect(reopened.recovery.recoveryPointProblem).toMatch(/unreadable/);
    expect(reopened.endOffset).toBe(99);
    expect(reopened.recovery.truncation).toMatchObject({
      discardedBytes: 113,
      discardedRecords: 1,
    });
    await reopened.close();
  });
});

/** Real files, but every fdatasync fails with EIO while `failSyncs` is set. */
/** Its next write throws an error that is no I/O error, so nothing fences the log. */
class InterruptedWriteIO extends NodeFileIO {
  interruptNextWrite = false;

  override write(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): void {
    if (this.interruptNextWrite) {
      this.interruptNextWrite = false;
      throw new Error('interrupted');
    }
    super.write(handle, buffer, bufferStart, length, positionBytes);
  }
}

class FailingSyncIO extends NodeFileIO {
  failSyncs = false;

  override fdatasync(handle: FileHandle): void {
    if (this.failSyncs) throw eio();
    super.fdatasync(handle);
  }

  override fdatasyncAsync(handle: FileHandle): Promise<void> {
    return this.failSyncs ? Promise.reject(eio()) : super.fdatasyncAsync(handle);
  }
}

function eio(): StorageError {
  return new StorageError('IO_ERROR', 'fdatasync failed on test (EIO)', { reason: 'EIO' });
}
