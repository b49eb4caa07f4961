/**
 * The recovery point (`recovery-point` beside the segments): where the last fdatasync left the
 * log complete on the device. Recovery after a crash scans from here instead of from the start
 * of the active segment; after a clean close it equals the end, so opening scans nothing.
 *
 *   payload (20 bytes): segment base offset u64 | position u32 | next offset u64
 *
 * It is written only after the log and its indexes up to that position were fdatasynced, so
 * everything before it can be trusted and everything after it is re-checked.
 */
import * as path from 'node:path';
import type { FileIO } from './file-io.js';
import { readCheckpointFile, writeCheckpointFile } from './checkpoint-file.js';
import { readU64, writeU64 } from './record.js';

export const RECOVERY_POINT_FILE = 'recovery-point';
const MAGIC = 0x4c4c5250; // "LLRP"
const PAYLOAD_BYTES = 20;

export interface RecoveryPoint {
  readonly segmentBaseOffset: number;
  readonly positionBytes: number;
  readonly nextOffset: number;
}

export function writeRecoveryPoint(io: FileIO, dir: string, point: RecoveryPoint): void {
  const payload = Buffer.alloc(PAYLOAD_BYTES);
  writeU64(payload, point.segmentBaseOffset, 0);
  payload.writeUInt32BE(point.positionBytes, 8);
  writeU64(payload, point.nextOffset, 12);
  writeCheckpointFile(io, path.join(dir, RECOVERY_POINT_FILE), MAGIC, payload);
}

/** The saved point, null when there is none, or the reason it cannot be used. */
export function readRecoveryPoint(io: FileIO, dir: string): RecoveryPoint | { unreadable: string } | null {
  const read = readCheckpointFile(io, path.join(dir, RECOVERY_POINT_FILE), MAGIC);
  if (read === null || 'unreadable' in read) return read;
  if (read.payload.length !== PAYLOAD_BYTES) return { unreadable: `payload of ${read.payload.length} bytes` };
  return {
    segmentBaseOffset: readU64(read.payload, 0),
    positionBytes: read.payload.readUInt32BE(8),
    nextOffset: readU64(read.payload, 12),
  };
}
