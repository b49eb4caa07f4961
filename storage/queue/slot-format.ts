/**
 * The bytes of design A's slot file (slot-file.ts): a header slot, then fixed slots updated in
 * place.
 *
 *   slot 0 is the file header:  magic u32 "LLSF" | version u32 = 2 | slotBytes u32 | zeros
 *
 *   slot i (i >= 1), big-endian:
 *   byte 0         4        5        6          8             12         20 (28)
 *        +---------+--------+--------+----------+-------------+----------+---------------+------+
 *        | crc32c  | state  | flags  | reserved | bodyBytes   | id       | [dueTimeMs]   | body |
 *        |  u32    |  u8    |  u8    |   u16    |    u32      |   u64    |     u64       |      |
 *        +---------+--------+--------+----------+-------------+----------+---------------+------+
 *   state: 0 free, 1 full, 2 deleted. flags bit 0: a due time follows the id.
 *   crc32c covers everything after the state byte (flags to the end of the body) — not the state,
 *   which delete rewrites alone. The CRC comes first so that a send's write that lands only a
 *   prefix (a short write, then a power cut) cannot put a FULL state byte over a deleted
 *   message without also putting the new CRC over it: the old message then fails its check
 *   instead of coming back.
 *
 * Slot i lies at byte (i + 1) * slotBytes: the header takes the first slot's room.
 */
import { crc32c } from '@node-rs/crc32';
import { writeFileAtomically } from '../io/atomic-file.js';
import { StorageError, assert } from '../errors.js';
import type { FileHandle, FileIO } from '../io/file-io.js';
import { readU64, writeU64 } from '../big-endian.js';

export const SLOT_HEADER_BYTES = 20;
assert(
  SLOT_HEADER_BYTES === 4 + 1 + 1 + 2 + 4 + 8,
  'slot header is crc, state, flags, reserved, length, id',
);
/** Where the state byte sits in a slot: after the CRC. */
export const STATE_AT = 4;
export const DUE_TIME_BYTES = 8;
const FLAG_DUE_TIME = 0x01;
export const STATE_FREE = 0;
export const STATE_FULL = 1;
export const STATE_DELETED = 2;
const FILE_MAGIC = 0x4c4c5346; // "LLSF"
const FILE_VERSION = 2;
const FILE_HEADER_BYTES = 12;

/** Where slot `slot` starts in the file. */
export function slotPositionBytes(slot: number, slotBytes: number): number {
  return (slot + 1) * slotBytes;
}

/** The header slot of a new file: magic, version, slot size, zeros. */
export function encodeFileHeader(slotBytes: number): Buffer {
  const header = Buffer.alloc(slotBytes);
  header.writeUInt32BE(FILE_MAGIC, 0);
  header.writeUInt32BE(FILE_VERSION, 4);
  header.writeUInt32BE(slotBytes, 8);
  return header;
}

/**
 * A new slot file appears whole or not at all, under every policy: its header is written and
 * synced under a temporary name, renamed into place, and the rename made durable. Created in
 * place, a power cut could leave the name with a header that never landed — a file that no
 * longer opens — or take the name, and every synced slot, away.
 */
export function createSlotFile(io: FileIO, filePath: string, slotBytes: number): void {
  writeFileAtomically(io, filePath, encodeFileHeader(slotBytes));
}

/**
 * Reads the file header and refuses a file that is not a slot file (INVALID_QUEUE_FILE) or has
 * slots of another size than `slotBytes` (INVALID_CONFIG).
 */
export function checkFileHeader(
  io: FileIO,
  handle: FileHandle,
  filePath: string,
  slotBytes: number,
): void {
  const header = Buffer.alloc(FILE_HEADER_BYTES);
  io.read(handle, header, 0, FILE_HEADER_BYTES, 0);
  if (header.readUInt32BE(0) !== FILE_MAGIC || header.readUInt32BE(4) !== FILE_VERSION) {
    throw new StorageError(
      'INVALID_QUEUE_FILE',
      `${filePath} is not a loglab slot file (bad magic or version); open the queue on ` +
        'another directory, or move that file away',
      { file: filePath },
    );
  }
  const fileSlotBytes = header.readUInt32BE(8);
  if (fileSlotBytes !== slotBytes) {
    throw new StorageError(
      'INVALID_CONFIG',
      `${filePath} has ${fileSlotBytes}-byte slots, but ${slotBytes} were asked for; ` +
        `open it with slotBytes ${fileSlotBytes}`,
      { file: filePath, reason: 'slotBytes' },
    );
  }
}

/** Encodes a full slot into `buffer` (one slot long): header, due time when given, body, zeros. */
export function encodeSlot(
  buffer: Buffer,
  id: number,
  body: Uint8Array,
  dueMs: number | undefined,
): void {
  buffer.fill(0, 0, SLOT_HEADER_BYTES + DUE_TIME_BYTES);
  buffer.writeUInt8(STATE_FULL, STATE_AT);
  buffer.writeUInt8(dueMs === undefined ? 0 : FLAG_DUE_TIME, 5);
  buffer.writeUInt32BE(body.length, 8);
  writeU64(buffer, id, 12);
  const bodyStart = SLOT_HEADER_BYTES + (dueMs === undefined ? 0 : DUE_TIME_BYTES);
  if (dueMs !== undefined) writeU64(buffer, dueMs, SLOT_HEADER_BYTES);
  buffer.set(body, bodyStart);
  buffer.fill(0, bodyStart + body.length);
  buffer.writeUInt32BE(slotCrc(buffer, bodyStart + body.length), 0);
}

export interface ParsedSlot {
  readonly state: number;
  readonly id: number;
  readonly dueMs: number | undefined;
  readonly bodyStart: number;
  readonly bodyBytes: number;
}

/** Checks a slot's CRC; null when a full or deleted slot fails it (free slots are not checked). */
export function parseSlot(slot: Buffer): ParsedSlot | null {
  const state = slot.readUInt8(STATE_AT);
  if (state === STATE_FREE) return { state, id: 0, dueMs: undefined, bodyStart: 0, bodyBytes: 0 };
  if (state !== STATE_FULL && state !== STATE_DELETED) return null;
  const flags = slot.readUInt8(5);
  const bodyStart = SLOT_HEADER_BYTES + (flags & FLAG_DUE_TIME ? DUE_TIME_BYTES : 0);
  const bodyBytes = slot.readUInt32BE(8);
  if ((flags & ~FLAG_DUE_TIME) !== 0 || bodyStart + bodyBytes > slot.length) return null;
  if (slotCrc(slot, bodyStart + bodyBytes) !== slot.readUInt32BE(0)) return null;
  const dueMs = flags & FLAG_DUE_TIME ? readU64(slot, SLOT_HEADER_BYTES) : undefined;
  return { state, id: readU64(slot, 12), dueMs, bodyStart, bodyBytes };
}

function slotCrc(slot: Buffer, endBytes: number): number {
  return crc32c(slot.subarray(STATE_AT + 1, endBytes));
}

/** Reads `count` slots from `first` into `buffer`; past the end of the file they read as zeros. */
export function readSlots(
  io: FileIO,
  handle: FileHandle,
  slotBytes: number,
  buffer: Buffer,
  count: number,
  first: number,
): void {
  const length = count * slotBytes;
  const got = io.read(handle, buffer, 0, length, slotPositionBytes(first, slotBytes));
  buffer.fill(0, got, length);
}
