/**
 * Kafka's variable-length integers (org.apache.kafka.common.utils.ByteUtils): zigzag, then
 * 7 bits a byte, least significant group first, top bit set on every byte but the last.
 *
 *   value   zigzag   bytes
 *       0        0   00
 *      -1        1   01
 *       1        2   02
 *      64      128   80 01
 *
 *   varint   int32, at most 5 bytes (record length, offset delta, key/value/header lengths)
 *   varlong  int64, at most 10 bytes (timestamp delta); exact here while |value| < 2^53
 *
 * Reads never run past the end they are given: a varint that does is CORRUPT_BATCH, since the
 * only varints this module reads are inside record batches.
 */
import { StorageError, assert } from '../errors.js';

export const MAX_VARINT_BYTES = 5;
export const MAX_VARLONG_BYTES = 10;
/** Below this magnitude a zigzag varlong fits 49 bits, so plain number arithmetic stays exact. */
const FAST_VARLONG_LIMIT = 2 ** 48;

/** Bytes `value` takes as a zigzag varint. */
export function varintSizeBytes(value: number): number {
  assert(Number.isInteger(value) && value >= -0x8000_0000 && value <= 0x7fff_ffff, 'int32');
  let zigzag = ((value << 1) ^ (value >> 31)) >>> 0;
  let bytes = 1;
  while (zigzag >= 0x80) {
    zigzag >>>= 7;
    bytes++;
  }
  return bytes;
}

/** Bytes `value` takes as a zigzag varlong. */
export function varlongSizeBytes(value: number): number {
  assert(Number.isSafeInteger(value), 'varlong values are safe integers here');
  let zigzag = value >= 0 ? value * 2 : -value * 2 - 1;
  if (zigzag >= 2 ** 53) return varlongSizeBig(value);
  let bytes = 1;
  while (zigzag >= 0x80) {
    zigzag = Math.floor(zigzag / 0x80);
    bytes++;
  }
  return bytes;
}

function varlongSizeBig(value: number): number {
  let zigzag = BigInt.asUintN(64, (BigInt(value) << 1n) ^ (BigInt(value) >> 63n));
  let bytes = 1;
  while (zigzag >= 0x80n) {
    zigzag >>= 7n;
    bytes++;
  }
  return bytes;
}

/** Writes `value` as a zigzag varint at `at`; returns the position after it. */
export function writeVarint(buffer: Uint8Array, value: number, at: number): number {
  let zigzag = ((value << 1) ^ (value >> 31)) >>> 0;
  while (zigzag >= 0x80) {
    buffer[at++] = (zigzag & 0x7f) | 0x80;
    zigzag >>>= 7;
  }
  buffer[at++] = zigzag;
  return at;
}

/** Writes `value` as a zigzag varlong at `at`; returns the position after it. */
export function writeVarlong(buffer: Uint8Array, value: number, at: number): number {
  assert(Number.isSafeInteger(value), 'varlong values are safe integers here');
  if (Math.abs(value) >= FAST_VARLONG_LIMIT) return writeVarlongBig(buffer, value, at);
  let zigzag = value >= 0 ? value * 2 : -value * 2 - 1;
  while (zigzag >= 0x80) {
    buffer[at++] = (zigzag % 0x80) | 0x80;
    zigzag = Math.floor(zigzag / 0x80);
  }
  buffer[at++] = zigzag;
  return at;
}

function writeVarlongBig(buffer: Uint8Array, value: number, at: number): number {
  let zigzag = BigInt.asUintN(64, (BigInt(value) << 1n) ^ (BigInt(value) >> 63n));
  while (zigzag >= 0x80n) {
    buffer[at++] = Number(zigzag & 0x7fn) | 0x80;
    zigzag >>= 7n;
  }
  buffer[at++] = Number(zigzag);
  return at;
}

/**
 * A read position inside one byte range of a batch. `where` names the range in errors
 * ('records' or 'decompressed records'), because positions inside a decompressed blob are not
 * positions in the file.
 */
export class VarintCursor {
  readonly bytes: Uint8Array;
  readonly where: string;
  positionBytes: number;
  endBytes: number;

  constructor(bytes: Uint8Array, startBytes: number, endBytes: number, where: string) {
    assert(startBytes >= 0 && startBytes <= endBytes, 'cursor start within range');
    assert(endBytes <= bytes.length, 'cursor end within buffer');
    this.bytes = bytes;
    this.positionBytes = startBytes;
    this.endBytes = endBytes;
    this.where = where;
  }

  remainingBytes(): number {
    return this.endBytes - this.positionBytes;
  }

  readInt8(): number {
    if (this.positionBytes >= this.endBytes) throw this.pastEnd('an attributes byte');
    return ((this.bytes[this.positionBytes++] as number) << 24) >> 24;
  }

  readVarint(): number {
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (this.positionBytes >= this.endBytes) throw this.pastEnd('a varint');
      const byte = this.bytes[this.positionBytes++] as number;
      result |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return (result >>> 1) ^ -(result & 1);
    }
    throw this.corrupt(`a varint longer than ${MAX_VARINT_BYTES} bytes`);
  }

  readVarlong(): number {
    const start = this.positionBytes;
    let result = 0;
    for (let i = 0; i < 7; i++) {
      if (this.positionBytes >= this.endBytes) throw this.pastEnd('a varlong');
      const byte = this.bytes[this.positionBytes++] as number;
      result += (byte & 0x7f) * 2 ** (7 * i);
      if ((byte & 0x80) === 0) return result % 2 === 0 ? result / 2 : -(result + 1) / 2;
    }
    this.positionBytes = start;
    return this.readVarlongBig();
  }

  /** Takes `lengthBytes` bytes as a view (no copy). */
  readBytes(lengthBytes: number, what: string): Uint8Array {
    if (lengthBytes > this.remainingBytes()) throw this.pastEnd(what);
    const view = this.bytes.subarray(this.positionBytes, this.positionBytes + lengthBytes);
    this.positionBytes += lengthBytes;
    return view;
  }

  corrupt(reason: string): StorageError {
    return new StorageError(
      'CORRUPT_BATCH',
      `kafka batch: ${reason} at byte ${this.positionBytes} of the ${this.where}; ` +
        'the batch is damaged: restore the segment from a replica or truncate before the batch',
      { positionBytes: this.positionBytes, reason },
    );
  }

  private pastEnd(what: string): StorageError {
    return this.corrupt(`${what} runs past the end of its ${this.endBytes}-byte range`);
  }

  private readVarlongBig(): number {
    let zigzag = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.positionBytes >= this.endBytes) throw this.pastEnd('a varlong');
      const byte = this.bytes[this.positionBytes++] as number;
      zigzag |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) !== 0) continue;
      const value = BigInt.asIntN(64, (zigzag >> 1n) ^ -(zigzag & 1n));
      if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER)) {
        throw this.corrupt(`a varlong of ${value} (beyond 2^53, not a plausible time delta)`);
      }
      return Number(value);
    }
    throw this.corrupt(`a varlong longer than ${MAX_VARLONG_BYTES} bytes`);
  }
}
