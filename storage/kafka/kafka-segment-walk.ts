/**
 * Reading a Kafka `.log` segment as it is, batch after batch, for people and for statistics
 * (`loglab dump`, `loglab plan --from-segments`): nothing is opened for writing, nothing is
 * recovered, and a damaged batch is reported where it lies instead of ending the read.
 *
 *   position 0            p1                   p2
 *   | batch (61-byte header + records) | batch | ... | torn tail or zeros? |
 *
 * Each batch is framed from its header alone (batched-log-frame.ts, the same reader the batched
 * log steps with), then its CRC-32C is computed over attributes to the end (kafka-batch.ts's
 * rule). The header's fields are taken through the codec's own decodeBatchHeader even when the
 * CRC fails, so a damaged batch is printed with the fields it claims (Kafka's dump prints
 * `isvalid: false` the same way): the codec is handed a copy carrying the computed CRC, and the
 * stored one is reported. Records are decoded (decompressed, every varint and count checked)
 * only for a batch whose CRC holds: damaged bytes are never served as records.
 *
 * The walk goes on past a batch whose CRC or records fail, since its length still frames it.
 * It stops at bytes that frame no batch (another magic, a length out of range, a batch running
 * past the end): those bytes to the end of the file are the tail, reported as zeros (a
 * preallocated segment a broker did not trim) or as damage (a torn write, an overwritten file).
 */
import { crc32c } from '@node-rs/crc32';
import type { FileIO } from '../io/file-io.js';
import { StorageError, isStorageError } from '../errors.js';
import { ReadWindow, endOfNonZeroBytes } from '../io/read-window.js';
import {
  BATCH_HEADER_BYTES,
  DEFAULT_DECOMPRESSION_FACTOR,
  DEFAULT_MAX_BATCH_BYTES,
  decodeBatch,
  decodeBatchHeader,
  type KafkaBatch,
  type KafkaBatchHeader,
} from './kafka-batch.js';
import { type BatchFrame, readBatchFrame } from './batched-log-frame.js';
import { KAFKA_COMPRESSIONS } from './kafka-compression.js';

const CRC_AT = 17;
const CODEC_MASK = 0x07;
const ATTRIBUTES_AT = 21;
const WALK_WINDOW_BYTES = 1 << 20;
/** A batch larger than this is refused as a frame: Kafka's segments stay below 2 GiB. */
export const WALK_MAX_BATCH_BYTES = 0x7fff_ffff;

export interface WalkedBatch {
  readonly positionBytes: number;
  readonly frame: BatchFrame;
  /** The header's fields as stored (crc included), also when the CRC fails; null: unreadable. */
  readonly header: KafkaBatchHeader | null;
  /** The codec attributes bits 0-2 name, `unknown(N)` for an id Kafka does not define. */
  readonly codec: string;
  readonly computedCrc: number;
  readonly crcValid: boolean;
  /** The decoded records; null when not asked for, or when the CRC or the records fail. */
  readonly batch: KafkaBatch | null;
  /** Why the batch is damaged (CRC, records, codec); null when sound as far as it was read. */
  readonly problem: string | null;
}

/** Bytes after the last batch the walk could frame: zeros, or damage. */
export interface WalkTail {
  readonly positionBytes: number;
  readonly sizeBytes: number;
  /** Every byte of the tail is zero (preallocated space), so no batch was lost in it. */
  readonly zeros: boolean;
  /** Why no batch frames there (for zeros too: what the frame reader said). */
  readonly problem: string;
}

export interface WalkEnd {
  readonly fileSizeBytes: number;
  readonly tail: WalkTail | null;
}

export interface WalkOptions {
  /** Decode each sound batch's records (decompressing them); else headers and CRC only. */
  readonly decodeRecords: boolean;
  /** Compressed records may expand to this before a batch is refused as a size bomb. */
  readonly maxDecompressedBytes?: number;
}

/** Every batch of the `.log` at `logPath`, in file order; returns where the batches ended. */
export function* walkKafkaSegment(
  io: FileIO,
  logPath: string,
  options: WalkOptions,
): Generator<WalkedBatch, WalkEnd> {
  const handle = io.openReadOnly(logPath);
  try {
    const fileSizeBytes = io.sizeBytes(handle);
    const window = new ReadWindow(io, WALK_WINDOW_BYTES);
    window.bind(handle);
    let position = 0;
    while (position < fileSizeBytes) {
      const framed = frameAt(window, position, fileSizeBytes);
      if (typeof framed === 'string') {
        return { fileSizeBytes, tail: tailAt(window, position, fileSizeBytes, framed) };
      }
      const bytes = window.buffer.subarray(framed.at, framed.at + framed.frame.sizeBytes);
      yield walked(bytes, position, framed.frame, options);
      position += framed.frame.sizeBytes;
    }
    return { fileSizeBytes, tail: null };
  } finally {
    io.close(handle);
  }
}

function frameAt(
  window: ReadWindow,
  position: number,
  fileSizeBytes: number,
): { frame: BatchFrame; at: number } | string {
  const headerAt = window.ensure(position, BATCH_HEADER_BYTES, fileSizeBytes);
  if (headerAt < 0) {
    return `${fileSizeBytes - position} bytes at the end, less than a 61-byte batch header`;
  }
  const frame = readBatchFrame(window.buffer, headerAt, WALK_MAX_BATCH_BYTES);
  if (typeof frame === 'string') return frame;
  const at = window.ensure(position, frame.sizeBytes, fileSizeBytes);
  if (at < 0) {
    const missingBytes = position + frame.sizeBytes - fileSizeBytes;
    return (
      `a ${frame.sizeBytes}-byte batch (offsets ${frame.baseOffset} to ${frame.lastOffset}) ` +
      `runs ${missingBytes} bytes past the end of the file`
    );
  }
  return { frame, at };
}

function tailAt(
  window: ReadWindow,
  position: number,
  fileSizeBytes: number,
  problem: string,
): WalkTail {
  const dataEnd = endOfNonZeroBytes(window, position, fileSizeBytes);
  return {
    positionBytes: position,
    sizeBytes: fileSizeBytes - position,
    zeros: dataEnd <= position,
    problem,
  };
}

function walked(
  bytes: Buffer,
  positionBytes: number,
  frame: BatchFrame,
  options: WalkOptions,
): WalkedBatch {
  const storedCrc = bytes.readUInt32BE(CRC_AT);
  const computedCrc = crc32c(bytes.subarray(ATTRIBUTES_AT));
  const crcValid = storedCrc === computedCrc;
  const codecId = bytes.readInt16BE(ATTRIBUTES_AT) & CODEC_MASK;
  const codec = KAFKA_COMPRESSIONS[codecId] ?? `unknown(${codecId})`;
  const base = { positionBytes, frame, computedCrc, crcValid, codec };
  const fields = headerFields(bytes, crcValid, codecId);
  if (typeof fields === 'string') return { ...base, header: null, batch: null, problem: fields };
  const header = { ...fields, crc: storedCrc };
  const unknownCodec = `compression codec ${codecId} is not one Kafka defines`;
  const problem = !crcValid
    ? `crc ${storedCrc} stored, ${computedCrc} computed`
    : codecId >= KAFKA_COMPRESSIONS.length
      ? unknownCodec
      : null;
  if (problem !== null || !options.decodeRecords) return { ...base, header, batch: null, problem };
  const decoded = decodeRecordsOf(bytes, frame, options);
  if (typeof decoded === 'string') return { ...base, header, batch: null, problem: decoded };
  return { ...base, header, batch: decoded, problem: offsetProblem(decoded, frame) };
}

/**
 * The codec's reading of the header. With a bad CRC (or a codec id Kafka does not define) it
 * reads a copy carrying the computed CRC (and codec bits cleared): the fields as stored, never
 * records. A string when even that fails (a base timestamp beyond 2^53 ms).
 */
function headerFields(
  bytes: Buffer,
  crcValid: boolean,
  codecId: number,
): KafkaBatchHeader | string {
  let view = bytes;
  if (!crcValid || codecId >= KAFKA_COMPRESSIONS.length) {
    view = Buffer.from(bytes);
    view.writeInt16BE(view.readInt16BE(ATTRIBUTES_AT) & ~CODEC_MASK, ATTRIBUTES_AT);
    view.writeUInt32BE(crc32c(view.subarray(ATTRIBUTES_AT)), CRC_AT);
  }
  try {
    return decodeBatchHeader(view, { maxBatchBytes: bytes.length });
  } catch (error) {
    if (!isStorageError(error, 'CORRUPT_BATCH')) throw error;
    return error.context.reason ?? error.message;
  }
}

function decodeRecordsOf(
  bytes: Buffer,
  frame: BatchFrame,
  options: WalkOptions,
): KafkaBatch | string {
  const maxDecompressedBytes =
    options.maxDecompressedBytes ??
    Math.max(frame.sizeBytes, DEFAULT_MAX_BATCH_BYTES) * DEFAULT_DECOMPRESSION_FACTOR;
  try {
    return decodeBatch(bytes, { maxBatchBytes: bytes.length, maxDecompressedBytes });
  } catch (error) {
    if (!isStorageError(error, 'CORRUPT_BATCH')) throw error;
    return error.context.reason ?? error.message;
  }
}

/** Records must sit at increasing offsets inside [baseOffset, lastOffset]. */
function offsetProblem(batch: KafkaBatch, frame: BatchFrame): string | null {
  let previousDelta = -1;
  const lastDelta = frame.lastOffset - frame.baseOffset;
  for (const record of batch.records) {
    if (record.offsetDelta <= previousDelta) {
      return (
        `record offset delta ${record.offsetDelta} after ${previousDelta}: ` +
        'offsets must increase'
      );
    }
    if (record.offsetDelta > lastDelta) {
      return (
        `record offset delta ${record.offsetDelta} past the batch's lastOffsetDelta ` +
        `${lastDelta}`
      );
    }
    previousDelta = record.offsetDelta;
  }
  return null;
}

/** CORRUPT_BATCH for a batch a reader of segment files cannot use, naming file and position. */
export function damagedSegmentBatch(
  file: string,
  positionBytes: number,
  reason: string,
  advice: string,
): StorageError {
  return new StorageError(
    'CORRUPT_BATCH',
    `kafka segment: the batch at byte ${positionBytes} of ${file} is damaged (${reason}); ` +
      advice,
    { file, positionBytes, reason },
  );
}
