import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { NodeFileIO } from '../io/node-file-io.js';
import { BatchedLog } from '../kafka/batched-log.js';
import type { BatchedRecordInput } from '../kafka/batched-log-records.js';
import { encodeRecords } from '../kafka/kafka-batch.js';
import { Log } from '../log/log.js';
import { readSegmentStats } from './segment-stats.js';
import { SizeHistogram } from './size-histogram.js';
import { isStorageError } from '../errors.js';

const newDir = tempDirs('segment-stats');
const io = new NodeFileIO();
const T0_MS = 1_700_000_000_000;
const BATCHES = 40;
const PER_BATCH = 10;

/** Value sizes 100..299 in a fixed, shuffled order (a linear congruence, seed 7). */
function valueSizes(count: number): number[] {
  let state = 7;
  return Array.from({ length: count }, () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return 100 + (state % 200);
  });
}

/** The nearest-rank quantile of a reference array, as a sorted copy gives it. */
function rank(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

function recordsOf(sizes: readonly number[], first: number): BatchedRecordInput[] {
  return sizes.map((sizeBytes, i) => {
    const head = `{"id":${first + i},"text":"`;
    const value = Buffer.from(`${head.padEnd(sizeBytes - 2, 'a')}"}`);
    return { value, timestampMs: T0_MS + first + i };
  });
}

/** 40 batches of 10 records, 1 ms apart; even batches plain, odd ones gzip; interval 1 KiB. */
async function writePartition(): Promise<{ dir: string; sizes: number[]; plainGzipBytes: number }> {
  const dir = newDir();
  const sizes = valueSizes(BATCHES * PER_BATCH);
  const log = BatchedLog.open(dir, { segmentBytes: 32 * 1024, indexIntervalBytes: 1024 });
  let plainGzipBytes = 0;
  for (let b = 0; b < BATCHES; b++) {
    const records = recordsOf(sizes.slice(b * PER_BATCH, (b + 1) * PER_BATCH), b * PER_BATCH);
    const compression = b % 2 === 0 ? 'none' : 'gzip';
    if (compression === 'gzip') {
      const kafkaRecords = records.map((r, i) => ({
        timestampDeltaMs: i,
        offsetDelta: i,
        key: null,
        value: r.value,
        headers: [],
      }));
      plainGzipBytes += 61 + encodeRecords(kafkaRecords).length;
    }
    await log.appendBatch(records, { compression });
  }
  await log.close();
  return { dir, sizes, plainGzipBytes };
}

describe('segment statistics of a Kafka partition directory', () => {
  it('reports the size distributions, records a batch and rate it was written with', async () => {
    const { dir, sizes } = await writePartition();
    const stats = readSegmentStats(io, dir);
    expect(stats.format).toBe('kafka');
    expect(stats.segments).toBeGreaterThan(1);
    expect(stats.records).toBe(BATCHES * PER_BATCH);
    expect(stats.batches).toBe(BATCHES);
    expect(stats.valueBytes).toMatchObject({
      median: rank(sizes, 0.5),
      p90: rank(sizes, 0.9),
      min: Math.min(...sizes),
      max: Math.max(...sizes),
    });
    expect(stats.recordsPerBatch).toMatchObject({
      median: PER_BATCH,
      p90: PER_BATCH,
      min: PER_BATCH,
    });
    expect(stats.time).toMatchObject({ firstMs: T0_MS, lastMs: T0_MS + 399 });
    expect(stats.time!.ratePerSec).toBeCloseTo(1000, 6);
  });

  it('reports the compression each codec achieved and the index interval the entries imply', async () => {
    const { dir, plainGzipBytes } = await writePartition();
    const stats = readSegmentStats(io, dir);
    const none = stats.codecs.find((c) => c.codec === 'none')!;
    const gzip = stats.codecs.find((c) => c.codec === 'gzip')!;
    expect(none).toMatchObject({ batches: 20, ratio: 1 });
    expect(gzip.batches).toBe(20);
    expect(gzip.uncompressedBytes).toBe(plainGzipBytes);
    expect(gzip.ratio).toBeGreaterThan(2);
    expect(stats.logBytes).toBe(none.storedBytes + gzip.storedBytes);
    expect(stats.storedBytesPerRecord).toBe(stats.logBytes / stats.records);
    expect(stats.indexInterval!.minBytes).toBeLessThanOrEqual(1024);
    expect(stats.indexInterval!.maxBytes).toBeGreaterThanOrEqual(1024);
    expect(stats.indexEntriesPerMiB).toBeCloseTo(
      stats.indexEntries / (stats.logBytes / 2 ** 20),
      9,
    );
  });

  it('refuses a damaged batch with CORRUPT_BATCH naming the file and position', async () => {
    const { dir } = await writePartition();
    const logPath = join(dir, '00000000000000000000.log');
    const bytes = readFileSync(logPath);
    bytes[100]! ^= 0x04;
    writeFileSync(logPath, bytes);
    try {
      readSegmentStats(io, dir);
      expect.unreachable('a damaged batch was read');
    } catch (error) {
      expect(isStorageError(error, 'CORRUPT_BATCH')).toBe(true);
      expect(error).toMatchObject({ context: { file: logPath, positionBytes: 0 } });
    }
  });

  it('leaves a torn tail of the last segment out and says so', async () => {
    const { dir } = await writePartition();
    const full = readSegmentStats(io, dir);
    const last = `${String(lastBase(dir)).padStart(20, '0')}.log`;
    const logPath = join(dir, last);
    const bytes = readFileSync(logPath);
    writeFileSync(logPath, bytes.subarray(0, bytes.length - 5));
    const torn = readSegmentStats(io, dir);
    expect(torn.ignoredTail).toMatchObject({ file: logPath, zeros: false });
    expect(torn.batches).toBe(full.batches - 1);
  });
});

function lastBase(dir: string): number {
  const bases = io
    .list(dir)
    .filter((n) => n.endsWith('.log'))
    .map((n) => Number(n.slice(0, 20)));
  return Math.max(...bases);
}

describe('segment statistics of a loglab log and of what is no log', () => {
  it('reads a loglab log: one record a batch, its size on disk with the header', async () => {
    const dir = newDir();
    const log = Log.open(dir);
    for (const size of [10, 20, 30, 40, 50]) log.appendNoWait(Buffer.alloc(size, 1));
    await log.close();
    const stats = readSegmentStats(io, dir);
    expect(stats.format).toBe('loglab');
    expect(stats.recordBytes).toMatchObject({ median: 46, max: 66, count: 5 });
    expect(stats.recordsPerBatch.max).toBe(1);
    expect(stats.codecs).toEqual([
      { codec: 'none', batches: 5, storedBytes: 230, uncompressedBytes: 230, ratio: 1 },
    ]);
  });

  it.each([
    ['a path that does not exist', (dir: string) => join(dir, 'missing'), 'INVALID_SEGMENT_FILE'],
    [
      'a file',
      (dir: string) => {
        writeFileSync(join(dir, 'f.txt'), 'x');
        return join(dir, 'f.txt');
      },
      'INVALID_SEGMENT_FILE',
    ],
    ['an empty directory', (dir: string) => dir, 'LOG_NOT_FOUND'],
  ])('refuses %s with a typed error naming it', (_, make, code) => {
    const target = make(newDir());
    try {
      readSegmentStats(io, target);
      expect.unreachable('no log was refused');
    } catch (error) {
      expect(isStorageError(error) ? error.code : error).toBe(code);
      expect((error as Error).message).toContain(target);
    }
  });

  it('takes exact nearest-rank quantiles', () => {
    const histogram = new SizeHistogram();
    for (const value of [5, 1, 4, 2, 3, 3, 9, 7, 8, 6]) histogram.add(value);
    expect(histogram.summary()).toMatchObject({
      min: 1,
      median: 4,
      p90: 8,
      max: 9,
      mean: 4.8,
      count: 10,
    });
  });
});

describe('segment stats of a loglab log under always', () => {
  it('counts the gaps page alignment left as the segment bytes a record takes', async () => {
    const dir = newDir();
    const log = Log.open(dir, { durability: 'always', segmentBytes: 64 * 1024 });
    const body = Buffer.alloc(1024);
    for (let i = 0; i < 60; i++) await log.append(body);
    await log.close();
    const stats = readSegmentStats(io, dir);
    expect(stats.records).toBe(60);
    expect(stats.recordBytes.max).toBe(1040);
    // Three 1,040-byte records a 4 KiB page: 48 in the first segment's 16 pages, 12 in the
    // second's 4; a 976-byte gap after each page but a segment's last.
    const logBytes = 60 * 1040 + (15 + 3) * 976;
    expect(stats.logBytes).toBe(logBytes);
    expect(stats.storedBytesPerRecord).toBeCloseTo(logBytes / 60, 6);
  });
});
