/**
 * Small files that must never be seen half-written: the log's recovery point and the queue's
 * head. Written atomically (atomic-file.ts: temp file, fdatasync, rename, fsync of the directory)
 * and checked when read.
 *
 *   +-----------+-----------+-----------+----------------------+
 *   | magic u32 | bytes u32 | crc32c u32|  payload (bytes)     |
 *   +-----------+-----------+-----------+----------------------+
 *
 * The CRC covers the payload. A file that fails any check reads as "unreadable" with a reason;
 * the caller decides what that costs (the log scans more, the queue redelivers more).
 */
import { crc32c } from '@node-rs/crc32';
import { writeFileAtomically } from './atomic-file.js';
import type { FileIO } from './file-io.js';

const HEADER_BYTES = 12;

export type CheckpointRead = { readonly payload: Buffer } | { readonly unreadable: string } | null;

export function writeCheckpointFile(
  io: FileIO,
  filePath: string,
  magic: number,
  payload: Uint8Array,
): void {
  const bytes = Buffer.alloc(HEADER_BYTES + payload.length);
  bytes.writeUInt32BE(magic, 0);
  bytes.writeUInt32BE(payload.length, 4);
  bytes.writeUInt32BE(crc32c(payload), 8);
  bytes.set(payload, HEADER_BYTES);
  writeFileAtomically(io, filePath, bytes);
}

/** null when the file does not exist. */
export function readCheckpointFile(io: FileIO, filePath: string, magic: number): CheckpointRead {
  const bytes = io.readWholeFile(filePath);
  if (bytes === null) return null;
  if (bytes.length < HEADER_BYTES)
    return { unreadable: `${bytes.length} bytes, shorter than its header` };
  if (bytes.readUInt32BE(0) !== magic) return { unreadable: 'wrong magic number' };
  const length = bytes.readUInt32BE(4);
  if (HEADER_BYTES + length !== bytes.length)
    return { unreadable: `payload length ${length} does not match the file` };
  const payload = bytes.subarray(HEADER_BYTES);
  if (crc32c(payload) !== bytes.readUInt32BE(8)) return { unreadable: 'checksum mismatch' };
  return { payload };
}
