/**
 * The recovery point (`recovery-point` beside the segments): where the last fdatasync left the
 * log complete on the device. Recovery after a crash scans from here instead of from the start
 * of the active segment; after a clean close it equals the end, so opening scans nothing.
 *
 *   payload (21 bytes): segment base offset u64 | position u32 | next offset u64 | flags u8
 *   flags bit 0, sealing: this segment may be sealed without waiting for its sync (a roll
 *                under `none`, log-sync.ts rollIfFull), so a crash may leave its records ending
 *                before the next segment begins. Every point a log saves under `none` says so
 *                (a roll then need not save the same point again to say it); it matters only
 *                once a later segment exists.
 *   (a 20-byte payload, from before the flags, reads as flags 0)
 *
 * It is written only after the log and its indexes up to that position were fdatasynced, so
 * everything before it can be trusted and everything after it is re-checked.
 */
import * as path from 'node:path';
import { type DurabilityPolicy, syncsBeforeAcknowledging } from '../io/durability.js';
import type { FileIO } from '../io/file-io.js';
import { readCheckpointFile, writeCheckpointFile } from '../io/checkpoint-file.js';
import { readU64, writeU64 } from '../big-endian.js';
import { RECOVERY_POINT_FILE } from './segment-files.js';

const MAGIC = 0x4c4c5250; // "LLRP"
const FIRST_PAYLOAD_BYTES = 20;
const PAYLOAD_BYTES = 21;
const SEALING_FLAG = 1;

export interface RecoveryPoint {
  readonly segmentBaseOffset: number;
  readonly positionBytes: number;
  readonly nextOffset: number;
  /** The segment is being sealed before it is synced (see the flags above). */
  readonly sealing?: boolean;
}

export function writeRecoveryPoint(io: FileIO, dir: string, point: RecoveryPoint): void {
  const payload = Buffer.alloc(PAYLOAD_BYTES);
  writeU64(payload, point.segmentBaseOffset, 0);
  payload.writeUInt32BE(point.positionBytes, 8);
  writeU64(payload, point.nextOffset, 12);
  payload.writeUInt8(point.sealing === true ? SEALING_FLAG : 0, 20);
  writeCheckpointFile(io, path.join(dir, RECOVERY_POINT_FILE), MAGIC, payload);
}

/**
 * Whether a log under `durability` saves its points with the sealing flag: under `none`, where
 * a roll seals without waiting for its sync, every point does (see the flags above).
 */
export function sealingUnder(durability: DurabilityPolicy): boolean {
  return !syncsBeforeAcknowledging(durability);
}

/** The saved point, null when there is none, or the reason it cannot be used. */
export function readRecoveryPoint(
  io: FileIO,
  dir: string,
): RecoveryPoint | { unreadable: string } | null {
  const read = readCheckpointFile(io, path.join(dir, RECOVERY_POINT_FILE), MAGIC);
  if (read === null || 'unreadable' in read) return read;
  const { payload } = read;
  if (payload.length !== PAYLOAD_BYTES && payload.length !== FIRST_PAYLOAD_BYTES) {
    return { unreadable: `payload of ${payload.length} bytes` };
  }
  const point = {
    segmentBaseOffset: readU64(payload, 0),
    positionBytes: payload.readUInt32BE(8),
    nextOffset: readU64(payload, 12),
  };
  const flags = payload.length === PAYLOAD_BYTES ? payload.readUInt8(20) : 0;
  if (flags === 0) return point;
  if (flags !== SEALING_FLAG) return { unreadable: `unknown flags 0x${flags.toString(16)}` };
  return { ...point, sealing: true };
}
