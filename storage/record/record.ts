/**
 * The record format: one message as it sits in a segment file. Numbers are big-endian.
 *
 *   byte 0        4        8                16              16+A            4+length
 *        +--------+--------+----------------+---------------+---------------+
 *        | length | crc32c |       id       | [attributes]  |     body      |
 *        +--------+--------+----------------+---------------+---------------+
 *
 *   length      u32  bytes after this field (crc + id + attributes + body). Its top bit says an
 *                    attributes section follows the id; readers clear the bit before using it.
 *   crc32c      u32  CRC-32C (Castagnoli) over id, attributes and body — not over the length: a
 *                    damaged length makes the reader checksum the wrong bytes, and that fails.
 *                    With the attributes bit set, the CRC runs over one byte 0x01 first: a
 *                    flipped attributes bit changes no length, and without this it would turn
 *                    the body's first bytes into attributes (or attributes into body) unseen.
 *   id          u64  the record's offset in the log.
 *   attributes       present only when the top bit of length is set:
 *                      flags u8: bit 0 due time, bit 1 group id, bit 2 sequence id; bits 3-7 zero;
 *                        at least one bit set (a record without fields has no section)
 *                      then, for each set bit in that order, one u64:
 *                        dueTimeMs   when a delayed message becomes deliverable (ms since epoch)
 *                        groupId     ordered queues: the group the message is ordered within
 *                        sequenceId  ordered queues: the message's place within its group
 *   body        the message, exactly as the producer sent it.
 *
 * Asha's confirmation (the course, lesson 2): body {"order":4127,"email":"confirmation"} at id
 * 1,268,410 encodes to 53 bytes with length 0x31 and crc 0x4405f473.
 */
import { crc32c } from '@node-rs/crc32';
import { StorageError, assert } from '../errors.js';
import { putU32, readU64, writeU64 } from '../big-endian.js';
import { MiB } from '../units.js';

export const LENGTH_FIELD_BYTES = 4;
export const CRC_FIELD_BYTES = 4;
export const ID_FIELD_BYTES = 8;
export const RECORD_HEADER_BYTES = LENGTH_FIELD_BYTES + CRC_FIELD_BYTES + ID_FIELD_BYTES;
assert(RECORD_HEADER_BYTES === 4 + 4 + 8, 'record header is length + crc + id');

export const ATTRIBUTES_FLAG = 0x8000_0000;
const LENGTH_MASK = 0x7fff_ffff;
const FLAG_DUE_TIME = 0x01;
const FLAG_GROUP_ID = 0x02;
const FLAG_SEQUENCE_ID = 0x04;
const KNOWN_FLAGS = FLAG_DUE_TIME | FLAG_GROUP_ID | FLAG_SEQUENCE_ID;
/** Smallest legal value of the masked length field: crc + id, empty body. */
export const MIN_LENGTH_FIELD = CRC_FIELD_BYTES + ID_FIELD_BYTES;
export const DEFAULT_MAX_RECORD_BYTES = MiB;
/** Where the CRC of a record with attributes starts: the CRC of the byte 0x01. */
const ATTRIBUTES_CRC_SEED = crc32c(Buffer.of(0x01));

export interface RecordAttributes {
  readonly dueTimeMs?: number;
  readonly groupId?: bigint;
  readonly sequenceId?: bigint;
}

/** Bytes the attributes section takes, 0 when there is none. */
export function attributesSizeBytes(attributes: RecordAttributes | undefined): number {
  if (attributes === undefined) return 0;
  let fields = 0;
  if (attributes.dueTimeMs !== undefined) fields++;
  if (attributes.groupId !== undefined) fields++;
  if (attributes.sequenceId !== undefined) fields++;
  return fields === 0 ? 0 : 1 + 8 * fields;
}

/** Whole record size on disk, length field included. */
export function recordSizeBytes(bodyBytes: number, attributes?: RecordAttributes): number {
  return RECORD_HEADER_BYTES + attributesSizeBytes(attributes) + bodyBytes;
}

/**
 * Encodes one record into `target` at `at` and returns its size. The caller checks that it fits;
 * no allocation besides the CRC call.
 */
export function encodeRecordInto(
  target: Buffer,
  at: number,
  id: number,
  body: Uint8Array,
  attributes?: RecordAttributes,
): number {
  const attributesBytes = attributesSizeBytes(attributes);
  const size = RECORD_HEADER_BYTES + attributesBytes + body.length;
  assert(at + size <= target.length, 'record fits the target buffer');
  const lengthField = (size - LENGTH_FIELD_BYTES) | (attributesBytes > 0 ? ATTRIBUTES_FLAG : 0);
  putU32(target, lengthField >>> 0, at);
  writeU64(target, id, at + 8);
  if (attributesBytes > 0) writeAttributes(target, at + RECORD_HEADER_BYTES, attributes!);
  target.set(body, at + RECORD_HEADER_BYTES + attributesBytes);
  putU32(target, recordCrc(target, at, size, attributesBytes > 0), at + 4);
  return size;
}

/**
 * The bytes the last CRC covered. crc32c takes a whole Buffer, and a subarray costs about 50 ns,
 * a sixth of the CRC of 1 KiB: appends of one size into one write buffer reuse the view.
 */
const lastCrcView: { of: Buffer | null; start: number; end: number; view: Buffer } = {
  of: null,
  start: -1,
  end: -1,
  view: Buffer.alloc(0),
};

function recordCrc(buffer: Buffer, at: number, sizeBytes: number, hasAttributes: boolean): number {
  const start = at + 8;
  const end = at + sizeBytes;
  const last = lastCrcView;
  if (last.of !== buffer || last.start !== start || last.end !== end) {
    last.of = buffer;
    last.start = start;
    last.end = end;
    last.view = buffer.subarray(start, end);
  }
  return crc32c(last.view, hasAttributes ? ATTRIBUTES_CRC_SEED : 0);
}

function writeAttributes(target: Buffer, at: number, attributes: RecordAttributes): void {
  let flags = 0;
  let cursor = at + 1;
  if (attributes.dueTimeMs !== undefined) {
    flags |= FLAG_DUE_TIME;
    writeU64(target, attributes.dueTimeMs, cursor);
    cursor += 8;
  }
  if (attributes.groupId !== undefined) {
    flags |= FLAG_GROUP_ID;
    target.writeBigUInt64BE(attributes.groupId, cursor);
    cursor += 8;
  }
  if (attributes.sequenceId !== undefined) {
    flags |= FLAG_SEQUENCE_ID;
    target.writeBigUInt64BE(attributes.sequenceId, cursor);
  }
  target.writeUInt8(flags, at);
}

/** Allocates and encodes one record: for tests, tools and the CLI, not the hot path. */
export function encodeRecord(id: number, body: Uint8Array, attributes?: RecordAttributes): Buffer {
  const buffer = Buffer.alloc(recordSizeBytes(body.length, attributes));
  encodeRecordInto(buffer, 0, id, body, attributes);
  return buffer;
}

/** Why a frame is not a good record; `null` when it is good. */
export type FrameProblem =
  | 'length below minimum'
  | 'length above maximum'
  | 'truncated'
  | 'crc mismatch'
  | 'unexpected id'
  | 'bad attributes';

/**
 * Reads the masked length of the record at `at` and checks it is plausible. Returns the whole
 * record size, or a problem when the length cannot be a record's.
 */
export function frameSizeAt(
  buffer: Uint8Array,
  at: number,
  maxRecordBytes: number,
): number | FrameProblem {
  const lengthField = ((buffer as Buffer).readUInt32BE(at) & LENGTH_MASK) >>> 0;
  if (lengthField < MIN_LENGTH_FIELD) return 'length below minimum';
  const size = LENGTH_FIELD_BYTES + lengthField;
  if (size > maxRecordBytes) return 'length above maximum';
  return size;
}

/**
 * Checks the whole record at `buffer[at, at+sizeBytes)`: CRC, attributes flags and, when
 * `expectedId` is given, the id. Returns null when it is good.
 */
export function checkRecord(
  buffer: Uint8Array,
  at: number,
  sizeBytes: number,
  expectedId?: number,
): FrameProblem | null {
  const view = buffer as Buffer;
  const stored = view.readUInt32BE(at + 4);
  const hasAttributes = (view.readUInt32BE(at) & ATTRIBUTES_FLAG) !== 0;
  if (recordCrc(view, at, sizeBytes, hasAttributes) !== stored) return 'crc mismatch';
  if (expectedId !== undefined && readU64(view, at + 8) !== expectedId) return 'unexpected id';
  if (hasAttributes) {
    // No room for the flags byte, no field set (the encoder then writes no section) or an unknown
    // one: only foreign or crafted bytes with a matching CRC get here, and they are not served.
    if (sizeBytes <= RECORD_HEADER_BYTES) return 'bad attributes';
    const flags = view.readUInt8(at + RECORD_HEADER_BYTES);
    if (flags === 0 || (flags & ~KNOWN_FLAGS) !== 0) return 'bad attributes';
    if (attributesSizeBytesFromFlags(flags) > sizeBytes - RECORD_HEADER_BYTES)
      return 'bad attributes';
  }
  return null;
}

function attributesSizeBytesFromFlags(flags: number): number {
  let fields = 0;
  for (const bit of [FLAG_DUE_TIME, FLAG_GROUP_ID, FLAG_SEQUENCE_ID]) if (flags & bit) fields++;
  return 1 + 8 * fields;
}

export function recordIdAt(buffer: Uint8Array, at: number): number {
  return readU64(buffer, at + 8);
}

export function storedCrcAt(buffer: Uint8Array, at: number): number {
  return (buffer as Buffer).readUInt32BE(at + 4);
}

export interface DecodedRecord {
  readonly id: number;
  readonly attributes: RecordAttributes | undefined;
  /** A copy: the caller owns it, the read buffer can be reused. */
  readonly body: Buffer;
}

/** Decodes a record already checked with `checkRecord`. */
export function decodeCheckedRecord(
  buffer: Uint8Array,
  at: number,
  sizeBytes: number,
): DecodedRecord {
  const view = buffer as Buffer;
  const id = readU64(view, at + 8);
  let bodyStart = at + RECORD_HEADER_BYTES;
  let attributes: RecordAttributes | undefined;
  if ((view.readUInt32BE(at) & ATTRIBUTES_FLAG) !== 0) {
    attributes = readAttributes(view, bodyStart);
    bodyStart += attributesSizeBytes(attributes);
  }
  const body = Buffer.allocUnsafe(at + sizeBytes - bodyStart);
  view.copy(body, 0, bodyStart, at + sizeBytes);
  return { id, attributes, body };
}

function readAttributes(view: Buffer, at: number): RecordAttributes {
  const flags = view.readUInt8(at);
  const attributes: { dueTimeMs?: number; groupId?: bigint; sequenceId?: bigint } = {};
  let cursor = at + 1;
  if (flags & FLAG_DUE_TIME) {
    attributes.dueTimeMs = readU64(view, cursor);
    cursor += 8;
  }
  if (flags & FLAG_GROUP_ID) {
    attributes.groupId = view.readBigUInt64BE(cursor);
    cursor += 8;
  }
  if (flags & FLAG_SEQUENCE_ID) attributes.sequenceId = view.readBigUInt64BE(cursor);
  return attributes;
}

/**
 * Decodes a standalone encoded record, checking everything: for tests and tools. Throws
 * CORRUPT_RECORD rather than returning a damaged body.
 */
export function decodeRecord(
  buffer: Uint8Array,
  maxRecordBytes = DEFAULT_MAX_RECORD_BYTES,
): DecodedRecord {
  if (buffer.length < RECORD_HEADER_BYTES) throw corruptRecord('<buffer>', 0, 'truncated');
  const size = frameSizeAt(buffer, 0, maxRecordBytes);
  if (typeof size === 'string') throw corruptRecord('<buffer>', 0, size);
  if (size > buffer.length) throw corruptRecord('<buffer>', 0, 'truncated');
  const problem = checkRecord(buffer, 0, size);
  if (problem !== null) throw corruptRecord('<buffer>', 0, problem);
  return decodeCheckedRecord(buffer, 0, size);
}

export function corruptRecord(
  file: string,
  positionBytes: number,
  reason: string,
  offset?: number,
): StorageError {
  const what = offset === undefined ? 'a record' : `the record for offset ${offset}`;
  return new StorageError(
    'CORRUPT_RECORD',
    `${what} at position ${positionBytes} of ${file} is corrupt (${reason}); it is not served. ` +
      `Run 'loglab dump ${file} --verify' to see the damage; restore the segment from a replica or backup`,
    { file, positionBytes, reason, ...(offset === undefined ? {} : { offset: BigInt(offset) }) },
  );
}

export function recordTooLarge(sizeBytes: number, limitBytes: number): StorageError {
  return new StorageError(
    'RECORD_TOO_LARGE',
    `a record of ${sizeBytes} bytes exceeds the maximum record size of ${limitBytes} bytes; ` +
      'send a smaller body or open the log with a larger maxRecordBytes',
    { sizeBytes, limitBytes },
  );
}
