/**
 * A cross-check against a real client: kafkajs's own record-batch decoder and encoder
 * (src/protocol/recordBatch/v0). kafkajs ships gzip only; snappy, lz4 and zstd need codec
 * plugins it does not bundle, so for those this checks that kafkajs refuses the batch by codec
 * (our framing reached its codec lookup) rather than misreading it.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  decodeBatch,
  encodeBatch,
  type KafkaBatchInput,
  type KafkaCompression,
  type KafkaRecord,
} from './kafka-batch.js';

// kafkajs's internals are untyped JS, hence the `any`s below.
const requireJs = createRequire(import.meta.url);
const KafkaDecoder = requireJs('kafkajs/src/protocol/decoder');
// biome-ignore lint/suspicious/noExplicitAny: kafkajs's decoder is untyped JS
const decodeKafkajsBatch: (decoder: unknown) => Promise<any> = requireJs(
  'kafkajs/src/protocol/recordBatch/v0/decoder',
);
const { RecordBatch: encodeKafkajsBatch } = requireJs('kafkajs/src/protocol/recordBatch/v0');
const encodeKafkajsRecord = requireJs('kafkajs/src/protocol/recordBatch/record/v0');
const kafkajsCrc32c: (buffer: Buffer) => number = requireJs(
  'kafkajs/src/protocol/recordBatch/crc32C',
);
const Long = requireJs('kafkajs/src/utils/long');

const RECORDS: readonly KafkaRecord[] = [
  { timestampDeltaMs: 0, offsetDelta: 0, key: Buffer.from('k1'), value: Buffer.from('v1') },
  {
    timestampDeltaMs: 250,
    offsetDelta: 1,
    key: null,
    value: Buffer.from('{"n":2}'),
    headers: [{ key: Buffer.from('trace'), value: Buffer.from('t-1') }],
  },
  { timestampDeltaMs: 9, offsetDelta: 2, key: Buffer.from(''), value: Buffer.alloc(2000, 0x61) },
];

function input(compression: KafkaCompression): KafkaBatchInput {
  return {
    baseOffset: 2n ** 40n + 17n,
    partitionLeaderEpoch: 3,
    compression,
    baseTimestampMs: 1_764_600_000_000,
    producerId: 2n ** 60n + 1n,
    producerEpoch: 4,
    baseSequence: 99,
    isTransactional: true,
    records: RECORDS,
  };
}

describe('kafkajs agrees with loglab on record batches', () => {
  it.each(['none', 'gzip'] as const)(
    'decodes a %s batch loglab encoded, field for field',
    async (compression) => {
      const bytes = await encodeBatch(input(compression));
      const batch = await decodeKafkajsBatch(new KafkaDecoder(bytes));
      expect(batch).toMatchObject({
        firstOffset: String(2n ** 40n + 17n),
        partitionLeaderEpoch: 3,
        inTransaction: true,
        isControlBatch: false,
        lastOffsetDelta: 2,
        producerId: String(2n ** 60n + 1n),
        producerEpoch: 4,
        firstSequence: 99,
        maxTimestamp: '1764600000250',
      });
      expect(
        // biome-ignore lint/suspicious/noExplicitAny: a record of kafkajs's untyped decoder
        batch.records.map((r: any) => [r.offset, r.timestamp, r.key, r.value, r.headers]),
      ).toEqual(
        RECORDS.map((r) => [
          String(2n ** 40n + 17n + BigInt(r.offsetDelta)),
          String(1_764_600_000_000 + r.timestampDeltaMs),
          r.key === null ? null : Buffer.from(r.key),
          r.value === null ? null : Buffer.from(r.value),
          Object.fromEntries((r.headers ?? []).map((h) => [h.key.toString(), h.value])),
        ]),
      );
      expect(kafkajsCrc32c(bytes.subarray(21))).toBe(bytes.readUInt32BE(17));
    },
  );

  it.each(['snappy', 'lz4', 'zstd'] as const)(
    'refuses a %s batch by codec: kafkajs needs a plugin for it',
    async (compression) => {
      const bytes = await encodeBatch(input(compression));
      await expect(decodeKafkajsBatch(new KafkaDecoder(bytes))).rejects.toThrow(
        /compression not implemented/i,
      );
    },
  );

  it.each([
    ['none', 0],
    ['gzip', 1],
  ] as const)(
    'decodes a %s batch kafkajs encoded, its CRC included',
    async (compression, codecId) => {
      const records = RECORDS.map((r) =>
        encodeKafkajsRecord({
          offsetDelta: r.offsetDelta,
          timestampDelta: r.timestampDeltaMs,
          key: r.key,
          value: r.value,
          headers: Object.fromEntries((r.headers ?? []).map((h) => [h.key.toString(), h.value])),
        }),
      );
      const encoded = await encodeKafkajsBatch({
        compression: codecId,
        firstOffset: Long.fromValue(7),
        firstTimestamp: 1000,
        maxTimestamp: 1250,
        lastOffsetDelta: 2,
        producerId: Long.fromValue(-1),
        records,
      });
      const batch = decodeBatch(encoded.buffer);
      expect(batch).toMatchObject({
        baseOffset: 7n,
        compression,
        recordCount: 3,
        baseTimestampMs: 1000,
        maxTimestampMs: 1250,
        producerId: -1n,
      });
      expect(batch.records.map((r) => Buffer.from(r.value ?? []).toString())).toEqual(
        RECORDS.map((r) => Buffer.from(r.value ?? []).toString()),
      );
      const headerKeys = batch.records[1]?.headers?.map((h) => Buffer.from(h.key).toString());
      expect(headerKeys).toEqual(['trace']);
    },
  );
});
