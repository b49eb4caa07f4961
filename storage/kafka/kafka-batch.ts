/**
 * Kafka's record batch, format v2 (magic 2): how a Kafka .log segment and the produce/fetch
 * protocol hold records. Numbers in the header are big-endian.
 *
 *   byte 0            8        12       16 17      21    23     27        35        43
 *        +------------+--------+--------+--+-------+-----+------+---------+---------+---
 *        | baseOffset | batch  | leader |m | crc   |attr | last | base    | max     |
 *        |    i64     | length | epoch  |a | u32   | i16 |offset| timestmp| timestmp| ...
 *        |            |  i32   |  i32   |g |       |     |delta | i64     | i64     |
 *        +------------+--------+--------+--+-------+-----+------+---------+---------+---
 *     43         51       53         57       61
 *    ---+----------+--------+----------+--------+------------------------------------+
 *       | producer | prod.  | base     | record | records (compressed as one blob     |
 *       | id  i64  | epoch  | sequence | count  |  when attributes bits 0-2 are set)  |
 *       |          |  i16   |   i32    |  i32   |                                     |
 *    ---+----------+--------+----------+--------+------------------------------------+
 *
 *   batchLength  bytes after the field itself: the whole batch is 12 + batchLength bytes
 *   crc          CRC-32C (Castagnoli) over attributes to the end of the batch. It skips the
 *                leader epoch, which a broker rewrites without recomputing the CRC
 *   attributes   bits 0-2 codec (kafka-compression.ts), bit 3 timestamp type (1 = log append
 *                time), bit 4 transactional, bit 5 control, bit 6 delete horizon (KIP-534:
 *                baseTimestamp is then the horizon); higher bits unused
 *
 * Each record (varint and varlong are zigzag, kafka-varint.ts):
 *
 *   length varint | attributes i8 | timestampDelta varlong | offsetDelta varint |
 *   keyLength varint | key | valueLength varint | value | headerCount varint |
 *   { headerKeyLength varint | headerKey | headerValueLength varint | headerValue }*
 *
 *   length counts the bytes after itself; a key, value or header value of length -1 is null.
 *   offset = baseOffset + offsetDelta, timestamp = baseTimestamp + timestampDelta.
 *
 * Types chosen: baseOffset and producerId are bigint (int64 in Kafka; producer ids come from a
 * 64-bit counter). Timestamps are numbers of ms and are checked to be safe integers on read
 * (2^53 ms is 285,000 years). Keys, values and header fields are views into the input or the
 * decompressed blob, not copies.
 *
 * Every decode checks the magic, the batch length against the buffer, the CRC, every varint
 * and length against its record, and the record count against the records. Any failure is a
 * CORRUPT_BATCH StorageError with a `reason`; nothing damaged is returned as data.
 *
 * The batch decoded by hand in ../shared/seeds/004_bb62643935f5b191.txt: baseOffset 0, batchLength
 * 70, partitionLeaderEpoch 0, magic 2, crc 3516512333 (d1 99 b8 4d).
 *
 * Why this file is over 450 lines: the header layout drawn above is what both the encoder and
 * the decoder follow, field by field (offsets, attribute bits, the CRC's span); split apart,
 * each half would carry a copy of those constants or import the other's internals.
 */
import { crc32c } from '@node-rs/crc32';
import { StorageError, assert } from '../errors.js';
import {
  KAFKA_COMPRESSIONS,
  compressRecords,
  decompressRecords,
  type KafkaCompression,
} from './kafka-compression.js';
import {
  VarintCursor,
  varintSizeBytes,
  varlongSizeBytes,
  writeVarint,
  writeVarlong,
} from './kafka-varint.js';

export type { KafkaCompression } from './kafka-compression.js';

export const BATCH_HEADER_BYTES = 61;
/** Bytes before batchLength's count starts: baseOffset and batchLength itself. */
export const BATCH_LOG_OVERHEAD_BYTES = 8 + 4;
const CRC_AT = 17;
const ATTRIBUTES_AT = 21;
assert(BATCH_HEADER_BYTES === 8 + 4 + 4 + 1 + 4 + 2 + 4 + 8 + 8 + 8 + 2 + 4 + 4, 'v2 header');
assert(ATTRIBUTES_AT === CRC_AT + 4, 'the crc covers attributes onwards');
export const KAFKA_MAGIC_V2 = 2;
/** Kafka's default message.max.bytes (1 MiB + the 12-byte log overhead). */
export const DEFAULT_MAX_BATCH_BYTES = 1_048_588;
/** Decompressed records may be this many times maxBatchBytes before a batch is refused. */
export const DEFAULT_DECOMPRESSION_FACTOR = 32;
/** The smallest record: seven one-byte varints (length, attrs, deltas, key, value, headers). */
const MIN_RECORD_BYTES = 7;

const CODEC_MASK = 0x07;
const TIMESTAMP_TYPE_BIT = 0x08;
const TRANSACTIONAL_BIT = 0x10;
const CONTROL_BIT = 0x20;
const DELETE_HORIZON_BIT = 0x40;

export type KafkaTimestampType = 'create' | 'log-append';

export interface KafkaHeader {
  readonly key: Uint8Array;
  readonly value: Uint8Array | null;
}

export interface KafkaRecord {
  /** Unused by Kafka so far; kept so a batch re-encodes byte for byte. */
  readonly attributes?: number;
  readonly timestampDeltaMs: number;
  readonly offsetDelta: number;
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  readonly headers?: readonly KafkaHeader[];
}

/** What encodeBatch needs; fields left out take the defaults a Kafka producer writes. */
export interface KafkaBatchInput {
  readonly baseOffset: bigint;
  readonly partitionLeaderEpoch?: number;
  readonly compression?: KafkaCompression;
  readonly timestampType?: KafkaTimestampType;
  readonly isTransactional?: boolean;
  readonly isControl?: boolean;
  readonly hasDeleteHorizon?: boolean;
  /** Defaults to the last record's offsetDelta (0 with no records). */
  readonly lastOffsetDelta?: number;
  readonly baseTimestampMs: number;
  /** Defaults to the largest record timestamp (baseTimestampMs with no records). */
  readonly maxTimestampMs?: number;
  readonly producerId?: bigint;
  readonly producerEpoch?: number;
  readonly baseSequence?: number;
  readonly records: readonly KafkaRecord[];
}

export interface KafkaBatchHeader {
  readonly baseOffset: bigint;
  readonly batchLengthBytes: number;
  readonly partitionLeaderEpoch: number;
  readonly magic: number;
  readonly crc: number;
  readonly attributes: number;
  readonly compression: KafkaCompression;
  readonly timestampType: KafkaTimestampType;
  readonly isTransactional: boolean;
  readonly isControl: boolean;
  readonly hasDeleteHorizon: boolean;
  readonly lastOffsetDelta: number;
  readonly baseTimestampMs: number;
  readonly maxTimestampMs: number;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  readonly recordCount: number;
}

export interface KafkaBatch extends KafkaBatchHeader {
  readonly records: readonly KafkaRecord[];
  /** The whole batch on disk: 12 + batchLengthBytes. */
  readonly sizeBytes: number;
}

export interface DecodeBatchOptions {
  /** A batch longer than this is refused before its CRC is computed. */
  readonly maxBatchBytes?: number;
  /** Refuse compressed records expanding past this (default maxBatchBytes × 32). */
  readonly maxDecompressedBytes?: number;
}

/**
 * Encodes one batch; async because zstd's compressor is. Uncompressed records are encoded
 * straight into the batch (no copy), into `scratch` when given and large enough (the caller
 * then owns the bytes only until it reuses the scratch: a fresh buffer per batch costs its
 * pages' first-touch faults, a fifth of the encode on 100 KiB batches); compressed ones into a
 * buffer the codec reads. Every byte is written, so nothing needs zero-filling.
 */
export async function encodeBatch(input: KafkaBatchInput, scratch?: Buffer): Promise<Buffer> {
  const compression = input.compression ?? 'none';
  if (compression === 'none') {
    const plan = planRecords(input.records);
    const sizeBytes = BATCH_HEADER_BYTES + plan.totalBytes;
    const batch =
      scratch !== undefined && scratch.length >= sizeBytes
        ? scratch.subarray(0, sizeBytes)
        : Buffer.allocUnsafe(sizeBytes);
    writeRecords(batch, BATCH_HEADER_BYTES, input.records, plan);
    return finishBatch(batch, input, compression);
  }
  const records = await compressRecords(compression, encodeRecords(input.records));
  const batch = Buffer.allocUnsafe(BATCH_HEADER_BYTES + records.length);
  batch.set(records, BATCH_HEADER_BYTES);
  return finishBatch(batch, input, compression);
}

function finishBatch(batch: Buffer, input: KafkaBatchInput, codec: KafkaCompression): Buffer {
  writeHeader(batch, input, codec);
  batch.writeUInt32BE(crc32c(batch.subarray(ATTRIBUTES_AT)), CRC_AT);
  return batch;
}

function writeHeader(batch: Buffer, input: KafkaBatchInput, codec: KafkaCompression): void {
  const records = input.records;
  const last = records[records.length - 1];
  batch.writeBigInt64BE(input.baseOffset, 0);
  batch.writeInt32BE(batch.length - BATCH_LOG_OVERHEAD_BYTES, 8);
  batch.writeInt32BE(input.partitionLeaderEpoch ?? -1, 12);
  batch.writeInt8(KAFKA_MAGIC_V2, 16);
  batch.writeInt16BE(attributesOf(input, codec), ATTRIBUTES_AT);
  batch.writeInt32BE(input.lastOffsetDelta ?? last?.offsetDelta ?? 0, 23);
  batch.writeBigInt64BE(BigInt(input.baseTimestampMs), 27);
  batch.writeBigInt64BE(BigInt(input.maxTimestampMs ?? maxTimestampOf(input)), 35);
  batch.writeBigInt64BE(input.producerId ?? -1n, 43);
  batch.writeInt16BE(input.producerEpoch ?? -1, 51);
  batch.writeInt32BE(input.baseSequence ?? -1, 53);
  batch.writeInt32BE(records.length, 57);
}

function attributesOf(input: KafkaBatchInput, codec: KafkaCompression): number {
  return (
    KAFKA_COMPRESSIONS.indexOf(codec) |
    (input.timestampType === 'log-append' ? TIMESTAMP_TYPE_BIT : 0) |
    (input.isTransactional === true ? TRANSACTIONAL_BIT : 0) |
    (input.isControl === true ? CONTROL_BIT : 0) |
    (input.hasDeleteHorizon === true ? DELETE_HORIZON_BIT : 0)
  );
}

function maxTimestampOf(input: KafkaBatchInput): number {
  let maxDeltaMs = 0;
  for (const record of input.records) maxDeltaMs = Math.max(maxDeltaMs, record.timestampDeltaMs);
  return input.baseTimestampMs + maxDeltaMs;
}

/** The records section of a batch, uncompressed. */
export function encodeRecords(records: readonly KafkaRecord[]): Uint8Array {
  const plan = planRecords(records);
  const out = Buffer.allocUnsafe(plan.totalBytes);
  writeRecords(out, 0, records, plan);
  return out;
}

/** Each record's body size (what its length varint says) and the section's total. */
interface RecordsPlan {
  readonly bodySizes: Int32Array;
  readonly totalBytes: number;
}

function planRecords(records: readonly KafkaRecord[]): RecordsPlan {
  const bodySizes = new Int32Array(records.length);
  let totalBytes = 0;
  for (let i = 0; i < records.length; i++) {
    const bodyBytes = recordBodyBytes(records[i] as KafkaRecord);
    bodySizes[i] = bodyBytes;
    totalBytes += varintSizeBytes(bodyBytes) + bodyBytes;
  }
  return { bodySizes, totalBytes };
}

function writeRecords(
  out: Buffer,
  startBytes: number,
  records: readonly KafkaRecord[],
  plan: RecordsPlan,
): void {
  let at = startBytes;
  for (let i = 0; i < records.length; i++) {
    at = writeVarint(out, plan.bodySizes[i] as number, at);
    at = writeRecordBody(out, records[i] as KafkaRecord, at);
  }
  assert(at === startBytes + plan.totalBytes, 'records filled their computed size');
}

const NO_HEADERS: readonly KafkaHeader[] = [];

function recordBodyBytes(record: KafkaRecord): number {
  const headers = record.headers ?? NO_HEADERS;
  let sizeBytes =
    1 +
    varlongSizeBytes(record.timestampDeltaMs) +
    varintSizeBytes(record.offsetDelta) +
    nullableBytes(record.key) +
    nullableBytes(record.value) +
    varintSizeBytes(headers.length);
  for (const header of headers) {
    sizeBytes += nullableBytes(header.key) + nullableBytes(header.value);
  }
  return sizeBytes;
}

function nullableBytes(field: Uint8Array | null): number {
  return field === null ? 1 : varintSizeBytes(field.length) + field.length;
}

function writeRecordBody(out: Buffer, record: KafkaRecord, at: number): number {
  out.writeInt8(record.attributes ?? 0, at++);
  at = writeVarlong(out, record.timestampDeltaMs, at);
  at = writeVarint(out, record.offsetDelta, at);
  at = writeNullable(out, record.key, at);
  at = writeNullable(out, record.value, at);
  const headers = record.headers ?? NO_HEADERS;
  at = writeVarint(out, headers.length, at);
  for (const header of headers) {
    at = writeNullable(out, header.key, at);
    at = writeNullable(out, header.value, at);
  }
  return at;
}

function writeNullable(out: Buffer, field: Uint8Array | null, at: number): number {
  if (field === null) return writeVarint(out, -1, at);
  at = writeVarint(out, field.length, at);
  out.set(field, at);
  return at + field.length;
}

/**
 * Decodes the header of the batch at the start of `bytes` and checks its magic, length and
 * CRC. `bytes` may run on past the batch (a segment read); `sizeBytes` says where it ends.
 */
export function decodeBatchHeader(
  bytes: Uint8Array,
  options: DecodeBatchOptions = {},
): KafkaBatchHeader & { readonly sizeBytes: number } {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  checkFraming(view, options.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES);
  const sizeBytes = BATCH_LOG_OVERHEAD_BYTES + view.readInt32BE(8);
  const batch = view.subarray(0, sizeBytes);
  checkCrc(batch);
  return { ...readHeaderFields(batch), sizeBytes };
}

function checkFraming(view: Buffer, maxBatchBytes: number): void {
  if (view.length < BATCH_HEADER_BYTES) {
    throw corrupt(`only ${view.length} bytes, less than the 61-byte header`, view.length);
  }
  const magic = view.readInt8(16);
  if (magic !== KAFKA_MAGIC_V2) {
    throw corrupt(`magic ${magic}, this reader knows format v2 (magic 2) only`, 16);
  }
  const batchLengthBytes = view.readInt32BE(8);
  const sizeBytes = BATCH_LOG_OVERHEAD_BYTES + batchLengthBytes;
  if (sizeBytes < BATCH_HEADER_BYTES) {
    throw corrupt(`batch length ${batchLengthBytes} is shorter than the header`, 8);
  }
  if (sizeBytes > maxBatchBytes) {
    throw corrupt(`batch of ${sizeBytes} bytes is over maxBatchBytes ${maxBatchBytes}`, 8);
  }
  if (sizeBytes > view.length) {
    throw corrupt(`batch length ${batchLengthBytes} runs past the ${view.length} bytes read`, 8);
  }
}

function checkCrc(batch: Buffer): void {
  const storedCrc = batch.readUInt32BE(CRC_AT);
  const computedCrc = crc32c(batch.subarray(ATTRIBUTES_AT));
  if (storedCrc !== computedCrc) {
    throw corrupt(`crc ${storedCrc} stored, ${computedCrc} computed`, CRC_AT);
  }
}

function readHeaderFields(batch: Buffer): KafkaBatchHeader {
  const attributes = batch.readInt16BE(ATTRIBUTES_AT);
  const compression = KAFKA_COMPRESSIONS[attributes & CODEC_MASK];
  if (compression === undefined) {
    throw corrupt(`compression codec ${attributes & CODEC_MASK} is not one Kafka defines`, 21);
  }
  return {
    baseOffset: batch.readBigInt64BE(0),
    batchLengthBytes: batch.readInt32BE(8),
    partitionLeaderEpoch: batch.readInt32BE(12),
    magic: batch.readInt8(16),
    crc: batch.readUInt32BE(CRC_AT),
    attributes,
    compression,
    timestampType: (attributes & TIMESTAMP_TYPE_BIT) !== 0 ? 'log-append' : 'create',
    isTransactional: (attributes & TRANSACTIONAL_BIT) !== 0,
    isControl: (attributes & CONTROL_BIT) !== 0,
    hasDeleteHorizon: (attributes & DELETE_HORIZON_BIT) !== 0,
    lastOffsetDelta: batch.readInt32BE(23),
    baseTimestampMs: safeTimestamp(batch, 27),
    maxTimestampMs: safeTimestamp(batch, 35),
    producerId: batch.readBigInt64BE(43),
    producerEpoch: batch.readInt16BE(51),
    baseSequence: batch.readInt32BE(53),
    recordCount: batch.readInt32BE(57),
  };
}

function safeTimestamp(batch: Buffer, at: number): number {
  const value = batch.readBigInt64BE(at);
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw corrupt(`timestamp ${value} ms is beyond 2^53`, at);
  }
  return Number(value);
}

/** Decodes and checks the whole batch at the start of `bytes`, records included. */
export function decodeBatch(bytes: Uint8Array, options: DecodeBatchOptions = {}): KafkaBatch {
  const header = decodeBatchHeader(bytes, options);
  const maxBatchBytes = options.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES;
  const limitBytes = options.maxDecompressedBytes ?? maxBatchBytes * DEFAULT_DECOMPRESSION_FACTOR;
  const blob = bytes.subarray(BATCH_HEADER_BYTES, header.sizeBytes);
  const plain = blob.length === 0 ? blob : decompressRecords(header.compression, blob, limitBytes);
  const where =
    header.compression === 'none' ? 'records' : `${header.compression}-decompressed records`;
  const cursor = new VarintCursor(plain, 0, plain.length, where);
  const records = decodeRecords(cursor, header.recordCount);
  return { ...header, records };
}

function decodeRecords(cursor: VarintCursor, recordCount: number): KafkaRecord[] {
  if (recordCount < 0 || recordCount * MIN_RECORD_BYTES > cursor.remainingBytes()) {
    throw cursor.corrupt(
      `record count ${recordCount} cannot fit the ${cursor.remainingBytes()} bytes of records`,
    );
  }
  const records = new Array<KafkaRecord>(recordCount);
  for (let i = 0; i < recordCount; i++) records[i] = decodeRecord(cursor);
  if (cursor.remainingBytes() !== 0) {
    throw cursor.corrupt(
      `${cursor.remainingBytes()} bytes follow the ${recordCount} records the header counts`,
    );
  }
  return records;
}

function decodeRecord(cursor: VarintCursor): KafkaRecord {
  const lengthBytes = cursor.readVarint();
  if (lengthBytes < 0 || lengthBytes > cursor.remainingBytes()) {
    const leftBytes = cursor.remainingBytes();
    throw cursor.corrupt(`record length ${lengthBytes} outside the ${leftBytes} bytes left`);
  }
  const batchEnd = cursor.endBytes;
  cursor.endBytes = cursor.positionBytes + lengthBytes;
  const attributes = cursor.readInt8();
  const timestampDeltaMs = cursor.readVarlong();
  const offsetDelta = cursor.readVarint();
  const key = readNullable(cursor, 'key');
  const value = readNullable(cursor, 'value');
  const headers = readHeaders(cursor);
  if (cursor.remainingBytes() !== 0) {
    throw cursor.corrupt(`record length ${lengthBytes} leaves ${cursor.remainingBytes()} unread`);
  }
  cursor.endBytes = batchEnd;
  return { attributes, timestampDeltaMs, offsetDelta, key, value, headers };
}

function readNullable(cursor: VarintCursor, what: string): Uint8Array | null {
  const lengthBytes = cursor.readVarint();
  if (lengthBytes === -1) return null;
  if (lengthBytes < -1) throw cursor.corrupt(`${what} length ${lengthBytes}`);
  return cursor.readBytes(lengthBytes, `a ${lengthBytes}-byte ${what}`);
}

function readHeaders(cursor: VarintCursor): KafkaHeader[] {
  const count = cursor.readVarint();
  if (count < 0 || count * 2 > cursor.remainingBytes()) {
    throw cursor.corrupt(`header count ${count} cannot fit the record`);
  }
  const headers = new Array<KafkaHeader>(count);
  for (let i = 0; i < count; i++) {
    const key = readNullable(cursor, 'header key');
    if (key === null) throw cursor.corrupt('a null header key');
    headers[i] = { key, value: readNullable(cursor, 'header value') };
  }
  return headers;
}

function corrupt(reason: string, positionBytes: number): StorageError {
  return new StorageError(
    'CORRUPT_BATCH',
    `kafka batch: ${reason} (byte ${positionBytes} of the batch); the batch is damaged or not ` +
      'a Kafka v2 batch: restore the segment from a replica or truncate before the batch',
    { positionBytes, reason },
  );
}

/** A record's timestamp: the batch's max timestamp when the broker set log-append time. */
export function recordTimestampMs(batch: KafkaBatch, record: KafkaRecord): number {
  if (batch.timestampType === 'log-append') return batch.maxTimestampMs;
  return batch.baseTimestampMs + record.timestampDeltaMs;
}
