import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { runMain } from '../../test/fixtures/main-in-process.js';
import { BatchedLog } from '../../storage/kafka/batched-log.js';
import type { SegmentStats } from '../../storage/dump/segment-stats.js';
import { intervalFromData } from './plan-from-segments.js';

const newDir = tempDirs('plan-segments');
const T0_MS = 1_700_000_000_000;

/** 30 batches of 20 records of 200-byte values, 2 ms apart (500/s), lz4, interval 2 KiB. */
async function partition(): Promise<string> {
  const dir = newDir();
  const log = BatchedLog.open(dir, { indexIntervalBytes: 2048 });
  for (let b = 0; b < 30; b++) {
    const records = Array.from({ length: 20 }, (_, i) => ({
      value: Buffer.from(`{"order":${b * 20 + i},"state":"paid"}`.padEnd(200, ' ')),
      timestampMs: T0_MS + 2 * (b * 20 + i),
    }));
    await log.appendBatch(records, { compression: 'lz4' });
  }
  await log.close();
  return dir;
}

describe('loglab plan --from-segments', () => {
  it('plans from the distributions the directory was written with, naming each source', async () => {
    const dir = await partition();
    const run = await runMain(['plan', '--from-segments', dir]);
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(out).toContain(`Workload from ${dir} (Kafka partition directory, 1 segment(s),`);
    expect(out).toMatch(/value size +median 200 B, p90 200 B, min 200 B, max 200 B of 600/);
    expect(out).toMatch(/records a batch +median 20, p90 20, min 20, max 20 of 30/);
    expect(out).toMatch(/compression +lz4: [\d.]+x/);
    expect(out).toMatch(/--rate +500\/s, from the data/);
    expect(out).toMatch(/--size +\d+ B, from the data/);
    expect(out).toMatch(/--index-interval +2,048 B, from the data/);
    expect(out).toMatch(/--segment +64 MiB, the default/);
    expect(out).toContain('Workload: 500 messages a second');
  });

  it('lets a flag win over the data and says so', async () => {
    const dir = await partition();
    const run = await runMain([
      'plan',
      '--from-segments',
      dir,
      '--rate',
      '5/s',
      '--segment',
      '16MiB',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/--rate +5\/s, from the flag/);
    expect(run.stdout).toMatch(/--segment +16 MiB, from the flag/);
    const json = await runMain(['plan', '--from-segments', dir, '--json']);
    const doc = JSON.parse(json.stdout);
    expect(doc.segments).toMatchObject({ format: 'kafka', records: 600, batches: 30 });
    expect(doc.figures.input.ratePerSec).toBeCloseTo(500, 6);
  });

  it('refuses a corrupt batch with exit 1 naming the file, and no log with exit 2', async () => {
    const dir = await partition();
    const logPath = join(dir, '00000000000000000000.log');
    const bytes = readFileSync(logPath);
    bytes[2000]! ^= 0x80;
    writeFileSync(logPath, bytes);
    const corrupt = await runMain(['plan', '--from-segments', dir]);
    expect(corrupt.code).toBe(1);
    expect(corrupt.stderr).toMatch(new RegExp(`CORRUPT_BATCH: .*of ${logPath} is damaged`));
    const empty = await runMain(['plan', '--from-segments', newDir()]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/LOG_NOT_FOUND: .*holds no segments/);
  });

  it('still requires --rate and --size without --from-segments', async () => {
    const run = await runMain(['plan', '--size', '1KiB']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/required option '--rate <rate>' not specified/);
  });
});

describe('the index interval taken from the data', () => {
  const withBounds = (minBytes: number, maxBytes: number) =>
    ({ indexInterval: { minBytes, maxBytes } }) as unknown as SegmentStats;

  it('keeps the 4 KiB default when it fits, else the roundest size that does', () => {
    expect(intervalFromData(withBounds(3000, 5000))).toBe(4096);
    expect(intervalFromData(withBounds(445, 529))).toBe(512);
    expect(intervalFromData(withBounds(1100, 1300))).toBe(1100);
    expect(intervalFromData(withBounds(5000, 6000))).toBe(5120);
    expect(intervalFromData({ indexInterval: null } as unknown as SegmentStats)).toBeNull();
  });
});
