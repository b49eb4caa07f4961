/**
 * The log's record limit, stored beside the segments (`record-limit`): the largest
 * `maxRecordBytes` the log was ever opened with. Readers and recovery treat a length above the
 * limit as damage, so the limit must not shrink under records already written: a log reopened
 * with a smaller `maxRecordBytes` refuses larger appends but still reads, and recovers, the larger
 * records it holds.
 *
 *   payload (4 bytes): limit u32
 *
 * A log from before this file, or one whose file is unreadable, takes the limit it is opened with.
 */
import * as path from 'node:path';
import type { FileIO } from '../io/file-io.js';
import { readCheckpointFile, writeCheckpointFile } from '../io/checkpoint-file.js';
import { RECORD_LIMIT_FILE } from '../segments/segment-files.js';

const MAGIC = 0x4c4c524c; // "LLRL"
const PAYLOAD_BYTES = 4;

/**
 * The limit readers of the log in `dir` use: the larger of the stored one and `configuredBytes`.
 * Stores `configuredBytes` (durably, before any append can use it) when it is the larger.
 */
export function settleRecordLimit(io: FileIO, dir: string, configuredBytes: number): number {
  const stored = readRecordLimit(io, dir);
  if (stored !== null && stored >= configuredBytes) return stored;
  const payload = Buffer.alloc(PAYLOAD_BYTES);
  payload.writeUInt32BE(configuredBytes, 0);
  writeCheckpointFile(io, path.join(dir, RECORD_LIMIT_FILE), MAGIC, payload);
  return configuredBytes;
}

/** The stored limit; null when there is none or it cannot be read. */
export function readRecordLimit(io: FileIO, dir: string): number | null {
  const read = readCheckpointFile(io, path.join(dir, RECORD_LIMIT_FILE), MAGIC);
  if (read === null || 'unreadable' in read || read.payload.length !== PAYLOAD_BYTES) return null;
  return read.payload.readUInt32BE(0);
}
