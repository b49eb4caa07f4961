import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fixtures from '../../test/fixtures/kafka-record-batches.json' with { type: 'json' };
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { NodeFileIO } from '../io/node-file-io.js';
import type { KafkaCompression } from '../kafka/kafka-batch.js';
import { BatchedLog } from '../kafka/batched-log.js';
import type { BatchedRecordInput } from '../kafka/batched-log-records.js';
import { type KafkaDumpOptions, dumpKafkaSegments } from './kafka-dump.js';
import { type KafkaDumpEntry, formatKafkaEntry, isKafkaProblem } from './kafka-dump-entries.js';
import { detectSegmentFormat } from './segment-format.js';
import { Log } from '../log/log.js';

const newDir = tempDirs('kafka-dump');
const io = new NodeFileIO();
const CODECS: readonly KafkaCompression[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
const T0_MS = 1_700_000_000_000;
const SEGMENT = '00000000000000000000';
const ALL: KafkaDumpOptions = {
  batches: true,
  records: true,
  payloads: true,
  index: true,
  timeIndex: true,
  verify: true,
};

function records(first: number, count: number): BatchedRecordInput[] {
  return Array.from({ length: count }, (_, i) => ({
    value: Buffer.from(`{"event":${first + i},"body":"${'abc'.repeat(10)}"}`),
    key: (first + i) % 2 === 0 ? null : Buffer.from(`k${first + i}`),
    headers: (first + i) % 3 === 0 ? [{ key: Buffer.from('trace'), value: null }] : [],
    timestampMs: T0_MS + (first + i) * 5,
  }));
}

/** A batched log of 3 batches of 4 records per codec, in codec order: 60 records. */
async function writeBatchedLog(): Promise<string> {
  const dir = newDir();
  const log = BatchedLog.open(dir, { indexIntervalBytes: 256 });
  let offset = 0;
  for (const compression of CODECS) {
    for (let b = 0; b < 3; b++) {
      await log.appendBatch(records(offset, 4), { compression });
      offset += 4;
    }
  }
  await log.close();
  return dir;
}

function dumpAll(dir: string, options: KafkaDumpOptions = ALL): KafkaDumpEntry[] {
  return [...dumpKafkaSegments(io, { dir, baseOffsets: [0] }, options)];
}

function ofType<T extends KafkaDumpEntry['type']>(entries: KafkaDumpEntry[], type: T) {
  return entries.filter((e): e is Extract<KafkaDumpEntry, { type: T }> => e.type === type);
}

describe('dump of a Kafka partition directory written by the batched log', () => {
  it('prints every batch of every codec with its offsets, codec and a valid CRC', async () => {
    const dir = await writeBatchedLog();
    expect(detectSegmentFormat(io, dir)).toBe('kafka');
    const entries = dumpAll(dir);
    const batches = ofType(entries, 'batch');
    expect(batches.map((b) => b.compresscodec)).toEqual(CODECS.flatMap((c) => [c, c, c]));
    expect(batches.map((b) => [b.baseOffset, b.lastOffset, b.count])).toEqual(
      Array.from({ length: 15 }, (_, i) => [i * 4, i * 4 + 3, 4]),
    );
    expect(batches.every((b) => b.isvalid && b.problem === undefined)).toBe(true);
    const log = readFileSync(join(dir, `${SEGMENT}.log`));
    expect(batches.map((b) => b.crc)).toEqual(
      batches.map((b) => log.readUInt32BE(b.position + 17)),
    );
    expect(entries.filter(isKafkaProblem)).toEqual([]);
  });

  it('prints every record with its offset, timestamp, sizes, header keys and payload', async () => {
    const dir = await writeBatchedLog();
    const dumped = ofType(dumpAll(dir), 'record');
    const written = records(0, 60);
    expect(dumped.map((r) => r.offset)).toEqual(written.map((_, i) => i));
    expect(dumped.map((r) => r.payload)).toEqual(written.map((r) => r.value!.toString()));
    expect(dumped.map((r) => r.key)).toEqual(written.map((r) => r.key?.toString()));
    expect(dumped.map((r) => r.timestampMs)).toEqual(written.map((r) => r.timestampMs));
    expect(dumped.map((r) => r.headerKeys)).toEqual(
      written.map((r) => (r.headers ?? []).map(() => 'trace')),
    );
    expect(dumped.map((r) => r.keySizeBytes)).toEqual(written.map((r) => r.key?.length ?? -1));
  });

  it('formats a batch and a record line with the fields of kafka-dump-log.sh in its order', async () => {
    const dir = await writeBatchedLog();
    const entries = dumpAll(dir);
    const batch = ofType(entries, 'batch')[0]!;
    expect(formatKafkaEntry(batch, dir)).toBe(
      'baseOffset: 0 lastOffset: 3 count: 4 baseSequence: -1 lastSequence: -1 producerId: -1 ' +
        'producerEpoch: -1 partitionLeaderEpoch: -1 isTransactional: false isControl: false ' +
        `deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: ${T0_MS + 15} ` +
        `size: ${batch.sizeBytes} magic: 2 compresscodec: none crc: ${batch.crc} isvalid: true`,
    );
    const record = ofType(entries, 'record')[1]!;
    expect(formatKafkaEntry(record, dir)).toBe(
      `| offset: 1 CreateTime: ${T0_MS + 5} keySize: 2 valueSize: ${record.valueSizeBytes} ` +
        `sequence: -1 headerKeys: [] key: k1 payload: ${records(1, 1)[0]!.value!.toString()}`,
    );
    expect(formatKafkaEntry(ofType(entries, 'file')[0]!, dir)).toBe(
      `Dumping ${join(dir, `${SEGMENT}.log`)}\nLog starting offset: 0`,
    );
  });

  it('prints the index and time index as they are in the files, each entry checked', async () => {
    const dir = await writeBatchedLog();
    const entries = dumpAll(dir);
    const index = readFileSync(join(dir, `${SEGMENT}.index`));
    const expected: Array<[number, number]> = [];
    for (let at = 0; at < index.length; at += 8)
      expected.push([index.readInt32BE(at), index.readInt32BE(at + 4)]);
    expect(expected.length).toBeGreaterThan(3);
    expect(ofType(entries, 'index').map((e) => [e.offset, e.position])).toEqual(expected);
    const time = readFileSync(join(dir, `${SEGMENT}.timeindex`));
    const timed = ofType(entries, 'timeindex');
    expect(timed).toHaveLength(time.length / 12);
    expect(timed.map((e) => e.timestampMs)).toEqual(
      timed.map((_, i) => Number(time.readBigInt64BE(i * 12))),
    );
    expect([...ofType(entries, 'index'), ...timed].every((e) => e.problem === undefined)).toBe(
      true,
    );
  });
});

describe('dump of the fixtures written as one segment file', () => {
  /** The six batches back to back, each given the next base offset (outside the CRC). */
  function fixtureSegment(): { dir: string; crcs: number[] } {
    const dir = newDir();
    let next = 0;
    const parts = fixtures.cases.map((c) => {
      const batch = Buffer.from(c.hex, 'hex');
      batch.writeBigInt64BE(BigInt(next), 0);
      next += 1 + batch.readInt32BE(23);
      return batch;
    });
    writeFileSync(join(dir, `${SEGMENT}.log`), Buffer.concat(parts));
    return { dir, crcs: fixtures.cases.map((c) => c.expect.crc) };
  }

  it('finds each batch with the codec, CRC and flags the fixtures state, all valid', () => {
    const { dir, crcs } = fixtureSegment();
    expect(detectSegmentFormat(io, dir)).toBe('kafka');
    const entries = dumpAll(dir, { ...ALL, index: false, timeIndex: false });
    const batches = ofType(entries, 'batch');
    expect(batches.map((b) => b.compresscodec)).toEqual(
      fixtures.cases.map((c) => c.expect.compression),
    );
    expect(batches.map((b) => b.crc)).toEqual(crcs);
    expect(batches.map((b) => b.isControl)).toEqual([false, true, false, false, false, false]);
    expect(batches.map((b) => b.baseOffset)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(entries.filter(isKafkaProblem)).toEqual([]);
    const recordLines = ofType(entries, 'record').map((r) => formatKafkaEntry(r, dir));
    expect(recordLines).toEqual(
      [2, 3, 4, 5].map(
        (offset) =>
          `| offset: ${offset} CreateTime: 1479847795005 keySize: 4 valueSize: 3 sequence: 0 ` +
          `headerKeys: [\u0008\t\n] key: \u0001\u0002\u0003\u0004 payload: \u0005\u0006\u0007`,
      ),
    );
  });
});

describe('dump --verify of damaged Kafka segments', () => {
  it('names the batch whose bit was flipped and reads on to the batches after it', async () => {
    const dir = await writeBatchedLog();
    const logPath = join(dir, `${SEGMENT}.log`);
    const bytes = readFileSync(logPath);
    const third = ofType(dumpAll(dir), 'batch')[2]!;
    bytes[third.position + 70]! ^= 0x10;
    writeFileSync(logPath, bytes);
    const entries = dumpAll(dir);
    const problems = entries.filter(isKafkaProblem);
    expect(problems[0]).toMatchObject({ type: 'batch', position: third.position, isvalid: false });
    expect(ofType(entries, 'batch')).toHaveLength(15);
    expect(
      ofType(entries, 'record').some(
        (r) => r.offset >= third.baseOffset && r.offset <= third.lastOffset,
      ),
    ).toBe(false);
  });

  it('reports a torn tail as invalid bytes after the last whole batch', async () => {
    const dir = await writeBatchedLog();
    const logPath = join(dir, `${SEGMENT}.log`);
    const bytes = readFileSync(logPath);
    const last = ofType(dumpAll(dir), 'batch').at(-1)!;
    writeFileSync(logPath, bytes.subarray(0, last.position + 30));
    const problems = dumpAll(dir).filter(isKafkaProblem);
    expect(problems[0]).toMatchObject({
      type: 'tail',
      position: last.position,
      sizeBytes: 30,
      zeros: false,
    });
  });

  it('takes zeros after the last batch as preallocated space, not damage', async () => {
    const dir = await writeBatchedLog();
    const logPath = join(dir, `${SEGMENT}.log`);
    writeFileSync(logPath, Buffer.concat([readFileSync(logPath), Buffer.alloc(4096)]));
    const entries = dumpAll(dir);
    expect(entries.filter(isKafkaProblem)).toEqual([]);
    expect(ofType(entries, 'tail')).toMatchObject([{ zeros: true, sizeBytes: 4096 }]);
  });

  it('finds an index entry that does not point at the batch ending at its offset', async () => {
    const dir = await writeBatchedLog();
    const indexPath = join(dir, `${SEGMENT}.index`);
    const index = readFileSync(indexPath);
    index.writeInt32BE(index.readInt32BE(8) + 1, 8);
    writeFileSync(indexPath, index);
    const problems = dumpAll(dir).filter(isKafkaProblem);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ type: 'index', offset: index.readInt32BE(8) });
    expect((problems[0] as { problem: string }).problem).toMatch(/ends at offset/);
  });
});

describe('segment format detection', () => {
  it("takes loglab's own log for loglab's, though its files have the same names", async () => {
    const dir = newDir();
    const log = Log.open(dir);
    await log.appendNoWait(Buffer.from('one'));
    await log.close();
    expect(detectSegmentFormat(io, dir)).toBe('loglab');
    // Without the record-limit file it holds, the first record's bytes decide.
    rmSync(join(dir, 'record-limit'));
    expect(detectSegmentFormat(io, dir)).toBe('loglab');
  });

  it("takes a directory with Kafka's checkpoint files for a partition directory", () => {
    const dir = newDir();
    writeFileSync(join(dir, `${SEGMENT}.log`), Buffer.alloc(0));
    writeFileSync(join(dir, 'leader-epoch-checkpoint'), '0\n0\n');
    expect(detectSegmentFormat(io, dir)).toBe('kafka');
  });
});
