import { crc32c } from '@node-rs/crc32';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import fixtures from '../../test/fixtures/kafka-record-batches.json' with { type: 'json' };
import { isStorageError, type StorageError } from '../errors.js';
import {
  BATCH_HEADER_BYTES,
  decodeBatch,
  decodeBatchHeader,
  encodeBatch,
  type DecodeBatchOptions,
  type KafkaBatch,
  type KafkaBatchInput,
  type KafkaCompression,
  type KafkaRecord,
} from './kafka-batch.js';

const CODECS: readonly KafkaCompression[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
const hex = (bytes: Uint8Array | null): string | null =>
  bytes === null ? null : Buffer.from(bytes).toString('hex');

interface FixtureCase {
  readonly name: string;
  readonly hex: string;
  readonly expect: Record<string, unknown>;
}
const CASES = fixtures.cases as readonly FixtureCase[];

function corruptionOf(bytes: Uint8Array, options?: DecodeBatchOptions): StorageError {
  try {
    decodeBatch(bytes, options);
  } catch (error) {
    if (isStorageError(error, 'CORRUPT_BATCH')) return error;
    throw error;
  }
  throw new Error('a damaged batch was decoded');
}

/** Rewrites the CRC so a mutation reaches the record parser instead of failing the CRC. */
function withFreshCrc(batch: Buffer): Buffer {
  const copy = Buffer.from(batch);
  copy.writeUInt32BE(crc32c(copy.subarray(21)), 17);
  return copy;
}

function expectFields(batch: KafkaBatch, expected: Record<string, unknown>): void {
  const renamed: Record<string, keyof KafkaBatch> = { batchLength: 'batchLengthBytes' };
  for (const [field, value] of Object.entries(expected)) {
    if (field === 'records') continue;
    const actual = batch[renamed[field] ?? (field as keyof KafkaBatch)];
    const wanted = typeof actual === 'bigint' ? BigInt(value as number) : value;
    expect(actual, field).toStrictEqual(wanted);
  }
}

function recordsAsFixture(batch: KafkaBatch): unknown[] {
  return batch.records.map((record) => ({
    offsetDelta: record.offsetDelta,
    timestampDeltaMs: record.timestampDeltaMs,
    key: hex(record.key),
    value: hex(record.value),
    headers: (record.headers ?? []).map((h) => ({ key: hex(h.key), value: hex(h.value) })),
  }));
}

function recordHex(record: KafkaRecord): unknown {
  const headers = (record.headers ?? []).map((h) => [hex(h.key), hex(h.value)]);
  const { offsetDelta, timestampDeltaMs } = record;
  return { offsetDelta, timestampDeltaMs, key: hex(record.key), value: hex(record.value), headers };
}

const SAMPLE_RECORDS: readonly KafkaRecord[] = [
  { timestampDeltaMs: 0, offsetDelta: 0, key: null, value: Buffer.from('{"event":"signup"}') },
  {
    timestampDeltaMs: 7,
    offsetDelta: 1,
    key: Buffer.from('user-42'),
    value: null,
    headers: [
      { key: Buffer.from('trace'), value: Buffer.from('abc') },
      { key: Buffer.from('empty'), value: null },
    ],
  },
  { timestampDeltaMs: 70_000, offsetDelta: 2, key: Buffer.alloc(0), value: Buffer.alloc(300, 7) },
];

function sampleInput(compression: KafkaCompression): KafkaBatchInput {
  return {
    baseOffset: 1_000_000n,
    partitionLeaderEpoch: 5,
    compression,
    baseTimestampMs: 1_700_000_000_000,
    producerId: 2n ** 62n + 3n,
    producerEpoch: 2,
    baseSequence: 17,
    isTransactional: true,
    records: SAMPLE_RECORDS,
  };
}

describe('kafka record batch v2: the test vectors', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('decodes the %s exactly', (_name, c) => {
    const batch = decodeBatch(Buffer.from(c.hex, 'hex'));
    expectFields(batch, c.expect);
    const records = c.expect['records'];
    if (records !== undefined) expect(recordsAsFixture(batch)).toEqual(records);
    expect(batch.sizeBytes).toBe(c.hex.length / 2);
  });

  const byteExact = [
    'empty batch',
    'control batch',
    'uncompressed, one record with key, value and one header',
  ];
  it.each(byteExact)('re-encodes the %s byte for byte', async (name) => {
    const original = CASES.find((c) => c.name === name)?.hex ?? '';
    const decoded = decodeBatch(Buffer.from(original, 'hex'));
    expect((await encodeBatch(decoded)).toString('hex')).toBe(original);
  });

  it('decodes the header fields of the batch the Kafka storage text reads by hand', () => {
    const header = decodeBatchHeader(Buffer.from(CASES[2]?.hex ?? '', 'hex'));
    expect([header.baseOffset, header.batchLengthBytes, header.magic]).toEqual([0n, 70, 2]);
  });
});

describe('kafka record batch v2: encoding', () => {
  it.each(CODECS)('round-trips every field through the %s codec', async (codec) => {
    const bytes = await encodeBatch(sampleInput(codec));
    const batch = decodeBatch(bytes);
    expect(batch).toMatchObject({
      baseOffset: 1_000_000n,
      partitionLeaderEpoch: 5,
      compression: codec,
      magic: 2,
      producerId: 2n ** 62n + 3n,
      producerEpoch: 2,
      baseSequence: 17,
      recordCount: 3,
      isTransactional: true,
      isControl: false,
      timestampType: 'create',
      lastOffsetDelta: 2,
      baseTimestampMs: 1_700_000_000_000,
      maxTimestampMs: 1_700_000_070_000,
      sizeBytes: bytes.length,
      batchLengthBytes: bytes.length - 12,
    });
    expect(batch.records.map(recordHex)).toEqual(SAMPLE_RECORDS.map(recordHex));
    expect(recordHex(batch.records[1] as KafkaRecord)).toMatchObject({
      headers: [
        [hex(Buffer.from('trace')), hex(Buffer.from('abc'))],
        [hex(Buffer.from('empty')), null],
      ],
    });
  });

  it('decodes batch after batch from a buffer holding several, as a segment does', async () => {
    const first = await encodeBatch({ ...sampleInput('gzip'), baseOffset: 0n });
    const second = await encodeBatch({ ...sampleInput('lz4'), baseOffset: 3n });
    const segment = Buffer.concat([first, second, Buffer.alloc(5)]);
    const one = decodeBatch(segment);
    const two = decodeBatch(segment.subarray(one.sizeBytes));
    expect([one.baseOffset, one.sizeBytes, two.baseOffset, two.sizeBytes]).toEqual([
      0n,
      first.length,
      3n,
      second.length,
    ]);
  });

  it('writes the header fields a producer writes when they are left out', async () => {
    const bytes = await encodeBatch({ baseOffset: 0n, baseTimestampMs: 5, records: [] });
    const batch = decodeBatch(bytes);
    expect(batch).toMatchObject({
      partitionLeaderEpoch: -1,
      producerId: -1n,
      producerEpoch: -1,
      baseSequence: -1,
      recordCount: 0,
      lastOffsetDelta: 0,
      maxTimestampMs: 5,
      compression: 'none',
    });
  });

  it('writes the timestamp type, control and delete-horizon bits into attributes', async () => {
    const bytes = await encodeBatch({
      baseOffset: 0n,
      baseTimestampMs: 0,
      records: [],
      compression: 'lz4',
      timestampType: 'log-append',
      isControl: true,
      hasDeleteHorizon: true,
    });
    expect(decodeBatch(bytes).attributes).toBe(3 | 0x08 | 0x20 | 0x40);
  });

  it('round-trips arbitrary records through every codec', async () => {
    const bytesArb = fc.uint8Array({ maxLength: 64 });
    const recordArb = fc.record({
      timestampDeltaMs: fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
      offsetDelta: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      key: fc.option(bytesArb),
      value: fc.option(bytesArb),
      headers: fc.array(fc.record({ key: bytesArb, value: fc.option(bytesArb) }), { maxLength: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(recordArb, { maxLength: 20 }),
        fc.constantFrom(...CODECS),
        async (records, compression) => {
          const input = { baseOffset: 9n, baseTimestampMs: 0, compression, records };
          const batch = decodeBatch(await encodeBatch(input));
          expect(batch.records.map(recordHex)).toEqual(records.map(recordHex));
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('kafka record batch v2: damaged input is CORRUPT_BATCH', () => {
  const plain = Buffer.from(CASES[2]?.hex ?? '', 'hex');

  it('refuses a bad magic, naming it', () => {
    const bytes = Buffer.from(plain);
    bytes[16] = 1;
    expect(corruptionOf(bytes).context.reason).toMatch(/magic 1/);
  });

  it('refuses any single flipped bit after the magic through the CRC', () => {
    for (let at = 17; at < plain.length; at++) {
      const bytes = Buffer.from(plain);
      bytes[at] = (bytes[at] as number) ^ 0x10;
      expect(corruptionOf(bytes).context.reason, `byte ${at}`).toMatch(/crc/);
    }
  });

  it('refuses a batch length past the buffer, a cut tail, and a header cut short', () => {
    expect(corruptionOf(plain.subarray(0, plain.length - 1)).context.reason).toMatch(/runs past/);
    expect(corruptionOf(plain.subarray(0, 40)).context.reason).toMatch(/61-byte header/);
    const longer = Buffer.from(plain);
    longer.writeInt32BE(0x7fff_0000, 8);
    expect(corruptionOf(longer, { maxBatchBytes: 2 ** 31 }).context.reason).toMatch(/runs past/);
    expect(corruptionOf(longer).context.reason).toMatch(/over maxBatchBytes/);
  });

  it('refuses a record count that disagrees with the records', () => {
    for (const count of [0, 2, -1, 1_000_000]) {
      const bytes = Buffer.from(plain);
      bytes.writeInt32BE(count, 57);
      expect(corruptionOf(withFreshCrc(bytes)).context.reason, `count ${count}`).toMatch(
        /record count|follow the|runs past|outside/,
      );
    }
  });

  it('refuses a varint running past its record and an unknown codec', () => {
    const bytes = Buffer.from(plain);
    bytes.fill(0x80, bytes.length - 3);
    expect(corruptionOf(withFreshCrc(bytes)).context.reason).toMatch(/a varint runs past/);
    const codec = Buffer.from(plain);
    codec.writeInt16BE(6, 21);
    expect(corruptionOf(withFreshCrc(codec)).context.reason).toMatch(/codec 6/);
  });

  it.each(CODECS.filter((c) => c !== 'none'))(
    'refuses %s records that decompress past maxDecompressedBytes',
    async (compression) => {
      const value = Buffer.alloc(1 << 20);
      const records = [{ timestampDeltaMs: 0, offsetDelta: 0, key: null, value }];
      const bytes = await encodeBatch({ baseOffset: 0n, baseTimestampMs: 0, compression, records });
      const error = corruptionOf(bytes, { maxDecompressedBytes: 64 * 1024 });
      expect(error.context.reason).toBe('decompressed size over limit');
      const roomy = decodeBatch(bytes, { maxDecompressedBytes: 2 << 20 });
      expect(roomy.records[0]?.value?.length).toBe(1 << 20);
    },
  );

  it('refuses a raw snappy block that claims 4 GiB before expanding anything', () => {
    const bytes = Buffer.from(CASES[4]?.hex ?? '', 'hex');
    const claim = Buffer.from('ffffffff0f00', 'hex');
    const bomb = Buffer.concat([bytes.subarray(0, BATCH_HEADER_BYTES), claim]);
    bomb.writeInt32BE(bomb.length - 12, 8);
    expect(corruptionOf(withFreshCrc(bomb)).context.reason).toBe('decompressed size over limit');
  });

  it('decodes or refuses random bytes, never anything else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 200 }), (bytes) => {
        decodeOrCorrupt(bytes);
      }),
      { numRuns: 500 },
    );
  });

  it('decodes or refuses valid batches of every codec, bytes changed, CRC redone', async () => {
    const valid = await Promise.all(CODECS.map((codec) => encodeBatch(sampleInput(codec))));
    const mutation = fc.record({
      which: fc.nat({ max: valid.length - 1 }),
      edits: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
        minLength: 1,
        maxLength: 4,
      }),
      cutBytes: fc.nat({ max: 8 }),
    });
    fc.assert(
      fc.property(mutation, ({ which, edits, cutBytes }) => {
        const bytes = Buffer.from(valid[which] as Buffer);
        for (const [at, value] of edits) bytes[21 + (at % (bytes.length - 21))] = value;
        decodeOrCorrupt(withFreshCrc(bytes).subarray(0, bytes.length - cutBytes));
      }),
      { numRuns: 1000 },
    );
  });
});

function decodeOrCorrupt(bytes: Uint8Array): void {
  try {
    decodeBatch(bytes);
  } catch (error) {
    if (!isStorageError(error, 'CORRUPT_BATCH')) throw error;
  }
}
