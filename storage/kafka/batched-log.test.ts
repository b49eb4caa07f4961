import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fixtures from '../../test/fixtures/kafka-record-batches.json' with { type: 'json' };
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { isStorageError } from '../errors.js';
import { NodeFileIO } from '../io/node-file-io.js';
import { decodeBatch, type KafkaCompression } from './kafka-batch.js';
import { BatchedLog } from './batched-log.js';
import type { BatchedRecordInput } from './batched-log-records.js';

const newDir = tempDirs('batched');
const CODECS: readonly KafkaCompression[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
const T0_MS = 1_700_000_000_000;

function expectCode(run: () => unknown, code: string): void {
  try {
    run();
  } catch (error) {
    expect(isStorageError(error) ? error.code : error).toBe(code);
    return;
  }
  throw new Error(`expected ${code}, nothing was thrown`);
}

/** Record `offset`'s value: JSON-ish text so every codec has something to compress. */
function recordValue(offset: number, sizeBytes = 40 + (offset % 90)): Buffer {
  const head = `{"event":${offset},"pad":"`;
  return Buffer.from(`${head.padEnd(sizeBytes - 2, 'x')}"}`);
}

function recordsFrom(first: number, count: number): BatchedRecordInput[] {
  return Array.from({ length: count }, (_, i) => ({
    value: recordValue(first + i),
    key: (first + i) % 3 === 0 ? null : Buffer.from(`k${first + i}`),
    headers: (first + i) % 4 === 0 ? [{ key: Buffer.from('h'), value: Buffer.from([i]) }] : [],
    timestampMs: T0_MS + (first + i) * 7,
  }));
}

/** Index files as Kafka lays them out: (relative offset i32, position i32) big-endian. */
function readOffsetIndex(path: string): Array<[number, number]> {
  const bytes = readFileSync(path);
  const entries: Array<[number, number]> = [];
  for (let at = 0; at + 8 <= bytes.length; at += 8) {
    entries.push([bytes.readInt32BE(at), bytes.readInt32BE(at + 4)]);
  }
  return entries;
}

function readTimeIndex(path: string): Array<[number, number]> {
  const bytes = readFileSync(path);
  const entries: Array<[number, number]> = [];
  for (let at = 0; at + 12 <= bytes.length; at += 12) {
    entries.push([Number(bytes.readBigInt64BE(at)), bytes.readInt32BE(at + 8)]);
  }
  return entries;
}

describe('BatchedLog round trip', () => {
  for (const compression of CODECS) {
    it(`reads back every record of ${compression} batches, by offset and in order`, async () => {
      const dir = newDir();
      const log = BatchedLog.open(dir, { segmentBytes: 4096, indexIntervalBytes: 256 });
      const sizes = [1, 5, 17, 3, 40, 2, 9];
      let next = 0;
      for (const count of sizes) {
        const appended = await log.appendBatch(recordsFrom(next, count), { compression });
        expect([appended.baseOffset, appended.lastOffset]).toEqual([next, next + count - 1]);
        next += count;
      }
      await log.close();
      const reopened = BatchedLog.open(dir, { readOnly: true });
      expect(reopened.endOffset).toBe(next);
      for (let offset = 0; offset < next; offset++) {
        const record = reopened.read(offset);
        const expected = recordsFrom(offset, 1)[0]!;
        expect(Buffer.from(record.value!).equals(expected.value as Buffer)).toBe(true);
        expect(record.key === null ? null : Buffer.from(record.key).toString()).toBe(
          expected.key === null ? null : expected.key!.toString(),
        );
        expect(record.headers.length).toBe(expected.headers!.length);
        expect(record.timestampMs).toBe(expected.timestampMs);
        expect(record.batch.compression).toBe(compression);
      }
      const inOrder = [...reopened.records(3)].map((record) => record.offset);
      expect(inOrder).toEqual(Array.from({ length: next - 3 }, (_, i) => i + 3));
      await reopened.close();
    });
  }

  it('writes segments named by base offset, each holding whole v2 batches back to back', async () => {
    const dir = newDir();
    const log = BatchedLog.open(dir, { segmentBytes: 2048, indexIntervalBytes: 100 });
    for (let first = 0; first < 200; first += 10) await log.appendBatch(recordsFrom(first, 10));
    const infos = log.segments();
    await log.close();
    expect(infos.length).toBeGreaterThan(2);
    for (const info of infos) {
      const name = `${String(info.baseOffset).padStart(20, '0')}.log`;
      expect(info.logPath).toBe(join(dir, name));
      const bytes = readFileSync(info.logPath);
      let expectedBase = info.baseOffset;
      for (let at = 0; at < bytes.length; ) {
        const batch = decodeBatch(bytes.subarray(at));
        expect(Number(batch.baseOffset)).toBe(expectedBase);
        expectedBase += batch.records.length;
        at += batch.sizeBytes;
      }
      expect(bytes.length).toBeLessThanOrEqual(2048);
    }
    const timeIndexes = readdirSync(dir).filter((name) => name.endsWith('.timeindex'));
    expect(timeIndexes.length).toBe(infos.length);
  });
});

describe('BatchedLog lookup', () => {
  it('finds every offset across segments, stepping headers from the index entry below it', async () => {
    const dir = newDir();
    const log = BatchedLog.open(dir, { segmentBytes: 8192, indexIntervalBytes: 600 });
    let next = 0;
    for (let i = 0; i < 60; i++) {
      const count = 1 + ((i * 7) % 13);
      const compression = i % 2 === 0 ? 'lz4' : 'none';
      await log.appendBatch(recordsFrom(next, count), { compression });
      next += count;
    }
    for (let offset = 0; offset < next; offset++) {
      const { record, walk } = log.lookup(offset);
      expect(record.offset).toBe(offset);
      expect(Buffer.from(record.value!).equals(recordValue(offset))).toBe(true);
      expect(record.batch.baseOffset).toBeLessThanOrEqual(offset);
      expect(record.batch.lastOffset).toBeGreaterThanOrEqual(offset);
      // Batches here are at most ~1.5 KiB: one interval (600 B) plus the entry's batch.
      expect(walk.headersRead).toBeLessThanOrEqual(2 + 600 / 61);
      expect(walk.bytesRead).toBe((walk.headersRead - 1) * 61 + record.batch.sizeBytes);
    }
    expectCode(() => log.read(next), 'OFFSET_OUT_OF_RANGE');
    expectCode(() => log.read(-1), 'OFFSET_OUT_OF_RANGE');
    await log.close();
    expectCode(() => log.read(0), 'LOG_CLOSED');
  });

  it("finds the first record at or after a time, as Kafka's ListOffsets does", async () => {
    const dir = newDir();
    const log = BatchedLog.open(dir, { segmentBytes: 4096, indexIntervalBytes: 300 });
    const times: number[] = [];
    let next = 0;
    for (let i = 0; i < 40; i++) {
      const count = 1 + (i % 6);
      const records = recordsFrom(next, count).map((record, j) => {
        const timestampMs = T0_MS + (next + j) * 10 - (j % 3) * 4;
        times.push(timestampMs);
        return { ...record, timestampMs };
      });
      await log.appendBatch(records, { compression: 'gzip' });
      next += count;
    }
    const lastMs = Math.max(...times);
    for (let targetMs = T0_MS - 5; targetMs <= lastMs + 5; targetMs += 3) {
      const expected = times.findIndex((t) => t >= targetMs);
      const found = log.lookupByTime(targetMs);
      expect(found === null ? -1 : found.offset).toBe(expected);
    }
    await log.close();
  });
});

describe("the Kafka storage text's sparse-index proof", () => {
  it('500 records of 200 bytes, 78 a batch, interval 512: 16,377-byte batches, six entries', async () => {
    const dir = newDir();
    const log = BatchedLog.open(dir, { indexIntervalBytes: 512 });
    const positions: number[] = [];
    for (let first = 0; first < 500; first += 78) {
      const count = Math.min(78, 500 - first);
      const records = Array.from({ length: count }, (_, i) => ({
        value: Buffer.alloc(200, 0x61 + (i % 26)),
        timestampMs: T0_MS + first + (i % 60),
      }));
      const appended = await log.appendBatch(records);
      positions.push(appended.positionBytes);
      expect(appended.sizeBytes).toBe(count === 78 ? 16_377 : 61 + 32 * 209);
    }
    expect(positions).toEqual([0, 1, 2, 3, 4, 5, 6].map((k) => k * 16_377));
    await log.close();
    const entries = readOffsetIndex(join(dir, '00000000000000000000.index'));
    expect(entries).toEqual([
      [155, 16377],
      [233, 32754],
      [311, 49131],
      [389, 65508],
      [467, 81885],
      [499, 98262],
    ]);
    expect(statSync(join(dir, '00000000000000000000.log')).size).toBe(98262 + 61 + 32 * 209);
  });
});

describe("the time index follows Kafka's rule", () => {
  it("adds (max timestamp so far, its batch's last offset) with each offset entry, when larger", async () => {
    const dir = newDir();
    const log = BatchedLog.open(dir, { indexIntervalBytes: 200 });
    const batchMaxMs = [50, 40, 90, 90, 60, 120, 30, 130, 130];
    const expectedTime: Array<[number, number]> = [];
    let maxMs = -1;
    let maxOffset = 0;
    let lastEntryPosition = 0;
    let position = 0;
    for (let i = 0; i < batchMaxMs.length; i++) {
      const records = [{ value: Buffer.alloc(150, i), timestampMs: T0_MS + batchMaxMs[i]! }];
      const appended = await log.appendBatch(records);
      if (T0_MS + batchMaxMs[i]! > maxMs) [maxMs, maxOffset] = [T0_MS + batchMaxMs[i]!, i];
      const last = expectedTime[expectedTime.length - 1];
      if (position - lastEntryPosition > 200) {
        lastEntryPosition = position;
        if (last === undefined || maxMs > last[0]) expectedTime.push([maxMs, maxOffset]);
      }
      position += appended.sizeBytes;
    }
    await log.close();
    const last = expectedTime[expectedTime.length - 1];
    if (last === undefined || maxMs > last[0]) expectedTime.push([maxMs, maxOffset]);
    expect(readTimeIndex(join(dir, '00000000000000000000.timeindex'))).toEqual(expectedTime);
  });
});

describe('a Kafka partition directory', () => {
  it("is read from the fixtures' batches (gzip, snappy, lz4, control, empty) with no index", async () => {
    const dir = newDir();
    mkdirSync(dir, { recursive: true });
    const cases = fixtures.cases as Array<{ hex: string }>;
    const batches = cases.map((c) => Buffer.from(c.hex, 'hex'));
    batches.forEach((batch, i) => batch.writeBigInt64BE(BigInt(i), 0));
    writeFileSync(join(dir, '00000000000000000000.log'), Buffer.concat(batches));
    const log = BatchedLog.open(dir, { readOnly: true });
    expect(log.endOffset).toBe(batches.length);
    expect(readdirSync(dir)).toEqual(['00000000000000000000.log']);
    const withRecords = [...log.readBatches(0)].filter(({ batch }) => batch.records.length > 0);
    expect(withRecords.map(({ batch }) => batch.compression)).toEqual([
      'none',
      'gzip',
      'snappy',
      'lz4',
    ]);
    for (const { location } of withRecords) {
      const record = log.read(location.baseOffset);
      expect(Buffer.from(record.key!).toString('hex')).toBe('01020304');
      expect(Buffer.from(record.value!).toString('hex')).toBe('050607');
      expect(Buffer.from(record.headers[0]!.value!).toString('hex')).toBe('0b0c');
      expect(record.timestampMs).toBe(1479847795000 + 5);
    }
    expectCode(() => log.read(0), 'OFFSET_OUT_OF_RANGE');
    await expect(log.appendBatch([{ value: null }])).rejects.toMatchObject({
      code: 'LOG_READ_ONLY',
    });
    await log.close();
  });

  it('is read as a broker leaves it: no recovery point, active indexes padded with zeros', async () => {
    const dir = newDir();
    const log = BatchedLog.open(dir, { segmentBytes: 4096, indexIntervalBytes: 300 });
    for (let first = 0; first < 120; first += 6) await log.appendBatch(recordsFrom(first, 6));
    const active = log.segments().at(-1)!;
    await log.close();
    const indexPath = active.logPath.replace(/\.log$/, '.index');
    const timeIndexPath = active.logPath.replace(/\.log$/, '.timeindex');
    const entries = readOffsetIndex(indexPath);
    // Kafka preallocates an active segment's indexes (segment.index.bytes) and trims at roll.
    writeFileSync(indexPath, Buffer.concat([readFileSync(indexPath), Buffer.alloc(8 * 512)]));
    const timeEntries = readFileSync(timeIndexPath);
    writeFileSync(timeIndexPath, Buffer.concat([timeEntries, Buffer.alloc(12 * 512)]));
    rmSync(join(dir, 'recovery-point'));
    rmSync(join(dir, '.lock'));
    const reader = BatchedLog.open(dir, { readOnly: true, indexIntervalBytes: 300 });
    expect(reader.recovery.startedFrom).toBe('segment-start');
    expect(reader.segments().at(-1)!.indexEntries).toBe(entries.length);
    for (let offset = 0; offset < 120; offset++) {
      expect(Buffer.from(reader.read(offset).value!).equals(recordValue(offset))).toBe(true);
    }
    await reader.close();
    expect(readFileSync(indexPath).length).toBe(8 * (entries.length + 512));
  });

  it('refuses a read-only open of a directory without segments', () => {
    expectCode(() => BatchedLog.open(newDir(), { readOnly: true }), 'LOG_NOT_FOUND');
  });
});

describe('BatchedLog writers and durability', () => {
  it('lets one writer in per directory', async () => {
    const dir = newDir();
    const log = BatchedLog.open(dir);
    expectCode(() => BatchedLog.open(dir), 'LOG_LOCKED');
    await log.close();
    await BatchedLog.open(dir).close();
  });

  it('syncs once per batch under always, and shares syncs among concurrent batches under group', async () => {
    const alwaysIo = new NodeFileIO();
    const always = BatchedLog.open(newDir(), { durability: 'always', io: alwaysIo });
    const before = alwaysIo.counters.fdatasyncCalls;
    for (let i = 0; i < 5; i++) await always.appendBatch(recordsFrom(i * 4, 4));
    expect(alwaysIo.counters.fdatasyncCalls - before).toBe(5);
    await always.close();

    const groupIo = new NodeFileIO();
    const group = BatchedLog.open(newDir(), { durability: 'group', io: groupIo });
    const groupBefore = groupIo.counters.fdatasyncCalls;
    const appended = await Promise.all(
      Array.from({ length: 20 }, (_, i) => group.appendBatch(recordsFrom(i * 2, 2))),
    );
    expect(appended.map((a) => a.baseOffset)).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
    expect(groupIo.counters.fdatasyncCalls - groupBefore).toBeLessThan(5);
    expect(groupIo.counters.fdatasyncCalls - groupBefore).toBeGreaterThan(0);
    await group.close();
  });

  it('keeps every batch intact when appends of mixed codecs are in flight at once', async () => {
    // zstd encodes on the thread pool, so uncompressed batches called meanwhile wait behind it;
    // the log encodes those into a reused scratch only when no other append waits to write.
    const log = BatchedLog.open(newDir());
    const codecs = Array.from({ length: 30 }, (_, i) => CODECS[(i * 7) % CODECS.length]!);
    const appended = await Promise.all(
      codecs.map((compression, i) => log.appendBatch(recordsFrom(i * 5, 5), { compression })),
    );
    expect(appended.map((a) => a.baseOffset)).toEqual(codecs.map((_, i) => i * 5));
    for (let i = 0; i < 10; i++) await log.appendBatch(recordsFrom(150 + i * 3, 3));
    for (let offset = 0; offset < 180; offset++) {
      expect(log.read(offset).value).toEqual(recordValue(offset));
    }
    await log.close();
  });

  it('refuses a batch over maxBatchBytes before writing it', async () => {
    const log = BatchedLog.open(newDir(), { maxBatchBytes: 1000 });
    await expect(log.appendBatch([{ value: Buffer.alloc(2000) }])).rejects.toMatchObject({
      code: 'RECORD_TOO_LARGE',
    });
    expect(log.endOffset).toBe(0);
    await log.appendBatch([{ value: Buffer.alloc(10) }]);
    expect(log.endOffset).toBe(1);
    await log.close();
  });
});
