import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { runMain } from '../../test/fixtures/main-in-process.js';
import { BatchedLog } from '../../storage/kafka/batched-log.js';
import type { KafkaCompression } from '../../storage/kafka/kafka-batch.js';

const newDir = tempDirs('dump-kafka');
const SEGMENT = '00000000000000000000';
const CODECS: readonly KafkaCompression[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

/** Two batches of 5 records per codec, segments of at most 1 KiB: several segments. */
async function partition(): Promise<string> {
  const dir = newDir();
  const log = BatchedLog.open(dir, { segmentBytes: 1024, indexIntervalBytes: 128 });
  let offset = 0;
  for (const compression of CODECS) {
    for (let b = 0; b < 2; b++) {
      const records = Array.from({ length: 5 }, () => ({
        value: Buffer.from(`{"n":${offset},"text":"${'lorem ipsum '.repeat(3)}"}`),
        timestampMs: 1_700_000_000_000 + 10 * offset++,
      }));
      await log.appendBatch(records, { compression });
    }
  }
  await log.close();
  return dir;
}

describe('loglab dump of a Kafka partition directory', () => {
  it('prints batch lines as kafka-dump-log.sh does, and records with --print-data-log', async () => {
    const dir = await partition();
    const shallow = await runMain(['dump', dir]);
    expect(shallow.code).toBe(0);
    const lines = shallow.stdout.trim().split('\n');
    expect(lines[0]).toBe(`Dumping ${join(dir, `${SEGMENT}.log`)}`);
    expect(lines[1]).toBe('Log starting offset: 0');
    const batchLines = lines.filter((l) => l.startsWith('baseOffset: '));
    expect(batchLines).toHaveLength(10);
    expect(batchLines.map((l) => /compresscodec: (\w+)/.exec(l)![1])).toEqual(
      CODECS.flatMap((c) => [c, c]),
    );
    expect(lines.some((l) => l.startsWith('|'))).toBe(false);
    const deep = await runMain(['dump', dir, '--print-data-log']);
    const recordLines = deep.stdout.split('\n').filter((l) => l.startsWith('| offset: '));
    expect(recordLines).toHaveLength(50);
    expect(recordLines[49]).toMatch(
      /^\| offset: 49 CreateTime: 1700000000490 keySize: -1 valueSize: \d+ sequence: -1 headerKeys: \[\] payload: \{"n":49,/,
    );
  });

  it('--verify exits 0 with a summary when every batch and index entry is sound', async () => {
    const dir = await partition();
    const run = await runMain(['dump', dir, '--verify', '--json']);
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    expect(summary).toMatchObject({ type: 'summary', batches: 10, records: 50, invalid: 0 });
    expect(summary.segments).toBeGreaterThan(1);
  });

  it('--verify exits 1 naming the file and position of a batch with a flipped bit', async () => {
    const dir = await partition();
    const logPath = join(dir, `${SEGMENT}.log`);
    const bytes = readFileSync(logPath);
    const second = 12 + bytes.readInt32BE(8);
    bytes[second + 80]! ^= 0x01;
    writeFileSync(logPath, bytes);
    const run = await runMain(['dump', dir, '--verify']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`CHECK_FAILED: verify found 1 problem(s)`);
    expect(run.stderr).toContain(
      `the first in ${SEGMENT}.log at position ${second} (batch 5..9): crc`,
    );
  });

  it('--verify exits 1 naming a torn tail at the end of the last segment', async () => {
    const dir = await partition();
    const lastLog = (await runMain(['dump', dir, '--json'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === 'batch')
      .at(-1);
    const logPath = join(dir, lastLog.file);
    const bytes = readFileSync(logPath);
    writeFileSync(logPath, bytes.subarray(0, lastLog.position + lastLog.sizeBytes - 1));
    const run = await runMain(['dump', dir, '--verify']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `the first in ${lastLog.file} at position ${lastLog.position} ` +
        `(${lastLog.sizeBytes - 1} bytes after the last whole batch)`,
    );
  });

  it('dumps a .index and a .timeindex file named alone as Kafka prints them', async () => {
    const dir = await partition();
    const index = readFileSync(join(dir, `${SEGMENT}.index`));
    const run = await runMain(['dump', join(dir, `${SEGMENT}.index`)]);
    expect(run.code).toBe(0);
    const expected = [`Dumping ${join(dir, `${SEGMENT}.index`)}`];
    for (let at = 0; at < index.length; at += 8) {
      expected.push(`offset: ${index.readInt32BE(at)} position: ${index.readInt32BE(at + 4)}`);
    }
    expect(expected.length).toBeGreaterThan(1);
    expect(run.stdout.trim().split('\n')).toEqual(expected);
    const time = await runMain(['dump', join(dir, `${SEGMENT}.timeindex`)]);
    expect(
      time.stdout
        .trim()
        .split('\n')
        .slice(1)
        .every((l) => /^timestamp: \d+ offset: \d+$/.test(l)),
    ).toBe(true);
  });
});
