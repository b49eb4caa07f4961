/**
 * A small file replaced whole or not at all: the bytes are written under `<file>.tmp`,
 * fdatasynced, closed, renamed over `<file>`, and the rename made durable with an fsync of the
 * directory. After any crash a reader finds the old file or the new one, never a part of either.
 * The checkpoint files (the log's recovery point, the queue's head, the record limit) and a new
 * slot file's header are written this way.
 *
 * When a call fails, its error is the one thrown: a close that fails on the way out (as it may,
 * on the same dead disk) is dropped rather than put in its place, so the caller learns that the
 * write or the sync failed, not merely that a handle would not close.
 */
import * as path from 'node:path';
import { closeAfterFailure, type FileIO, openEmptied } from './file-io.js';

/** Where a file written atomically is written before its rename: `<file>.tmp`. */
export const TEMPORARY_SUFFIX = '.tmp';

export function writeFileAtomically(io: FileIO, filePath: string, bytes: Uint8Array): void {
  const tmpPath = `${filePath}${TEMPORARY_SUFFIX}`;
  // A `.tmp` left by a crash holds bytes; the usual one was renamed away and is new.
  const handle = openEmptied(io, tmpPath);
  try {
    io.write(handle, bytes, 0, bytes.length, 0);
    io.fdatasync(handle);
  } catch (error) {
    closeAfterFailure(io, handle);
    throw error;
  }
  io.close(handle);
  io.rename(tmpPath, filePath);
  io.fsyncDir(path.dirname(filePath));
}
