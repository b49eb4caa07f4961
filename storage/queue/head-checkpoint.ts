/**
 * Design B's saved head (`head` beside the log): every message before it was deleted. Written
 * atomically every `checkpointIntervalMs` or `checkpointEveryDeletes` deletes, and on close.
 * After a restart every message from the saved head on is ready again (at-least-once): deletes
 * made after the last save are delivered a second time.
 *
 *   payload (8 bytes): head offset u64
 */
import * as path from 'node:path';
import type { FileIO } from '../io/file-io.js';
import { readCheckpointFile, writeCheckpointFile } from '../io/checkpoint-file.js';
import { readU64, writeU64 } from '../big-endian.js';
import { StorageError } from '../errors.js';
import { HEAD_CHECKPOINT_FILE } from '../segments/segment-files.js';

const MAGIC = 0x4c4c4844; // "LLHD"

export function writeHeadCheckpoint(io: FileIO, dir: string, headOffset: number): void {
  const payload = Buffer.alloc(8);
  writeU64(payload, headOffset, 0);
  writeCheckpointFile(io, path.join(dir, HEAD_CHECKPOINT_FILE), MAGIC, payload);
}

/** The saved head, or null when none was saved; a damaged file is an error naming it. */
export function readHeadCheckpoint(io: FileIO, dir: string): number | null {
  const file = path.join(dir, HEAD_CHECKPOINT_FILE);
  const read = readCheckpointFile(io, file, MAGIC);
  if (read === null) return null;
  if ('unreadable' in read || read.payload.length !== 8) {
    const reason =
      'unreadable' in read ? read.unreadable : `payload of ${read.payload.length} bytes`;
    throw new StorageError(
      'CORRUPT_CHECKPOINT',
      `the head checkpoint ${file} is damaged (${reason}); delete it to redeliver every message still in the log`,
      { file, reason },
    );
  }
  return readU64(read.payload, 0);
}
