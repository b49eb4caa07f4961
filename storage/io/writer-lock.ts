/**
 * One writer per log. Two processes appending to one log (or one slot file) overwrite each
 * other's acknowledged records, so a writer first takes an exclusive lock that no other process,
 * and no other open in this one, can also take, and that a crashed holder does not keep: the
 * kernel drops it with the holder's descriptor (FileIO.lockExclusive; an OFD lock on Linux).
 *
 * The holder writes who it is into the lock file (`pid 1234 on host vm1 since
 * 2026-12-01T15:30:00Z`); a refused opener reads that back to name the holder in its error. The
 * text only informs: the lock is the kernel's, so a stale text left by a dead process blocks
 * nobody, and an unreadable one only makes the holder "unknown".
 *
 * A log's lock file is `<dir>/.lock` (Kafka's name); a slot file's is `<path>.lock` beside it.
 * Readers take no lock.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { StorageError, assert, isStorageError } from '../errors.js';
import { mkdirpDurable } from './durable-dir.js';
import type { FileIO, FileLock } from './file-io.js';
import { wallClockMs } from './wall-clock.js';

export const LOG_LOCK_FILE = '.lock';
/** The most of a lock file's text an error quotes: anyone can write into that file. */
const HOLDER_MAX_CHARS = 200;

export function lockPathForLog(dir: string): string {
  return path.join(dir, LOG_LOCK_FILE);
}

export function lockPathForSlotFile(slotFilePath: string): string {
  return `${slotFilePath}.lock`;
}

export interface WriterLock {
  readonly lockPath: string;
  /** Lets the next writer in; a second call does nothing. */
  release(): void;
}

class HeldWriterLock implements WriterLock {
  readonly lockPath: string;
  readonly #lock: FileLock;
  #released = false;

  constructor(lockPath: string, lock: FileLock) {
    this.lockPath = lockPath;
    this.#lock = lock;
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#lock.release();
  }
}

/**
 * Takes the writer lock at `lockPath` (creating the file) and records this process as its
 * holder; `what` names the locked thing in the error ("the log in /data/q"). Throws LOG_LOCKED,
 * naming the holder where its text says, when someone else holds it.
 */
export function acquireWriterLock(io: FileIO, lockPath: string, what: string): WriterLock {
  assert(lockPath.length > 0, 'lockPath must not be empty');
  assert(what.length > 0, 'what must not be empty');
  const lock = io.lockExclusive(lockPath);
  if (lock === null) throw lockedError(lockPath, what, awaitHolder(io, lockPath));
  try {
    lock.writeHolder(describeThisProcess());
  } catch (error) {
    // A disk that cannot take these few bytes fails the writer soon anyway; say so now.
    releaseAfterFailure(lock);
    throw error;
  }
  return new HeldWriterLock(lockPath, lock);
}

/**
 * Opens the log in `dir` for writing with `open`, under the log's writer lock (`<dir>/.lock`):
 * the directory is made durable first (durable-dir.ts), the lock is taken before anything in the
 * directory is read (a second writer would recover, cut and append under the first one's feet),
 * and released again when `open` fails. `what` names the log in a LOG_LOCKED error.
 */
export function openUnderWriterLock<T>(
  io: FileIO,
  dir: string,
  what: string,
  open: (lock: WriterLock) => T,
): T {
  mkdirpDurable(io, dir);
  const lock = acquireWriterLock(io, lockPathForLog(dir), what);
  try {
    return open(lock);
  } catch (error) {
    releaseAfterFailure(lock);
    throw error;
  }
}

/** Releases `lock` on the way out of another failure: that one is reported, this one dropped. */
export function releaseAfterFailure(lock: { release(): void }): void {
  try {
    lock.release();
  } catch {
    // The caller rethrows the failure that brought it here.
  }
}

/** `pid 1234 on host vm1 since 2026-12-01T15:30:00Z`. */
export function describeThisProcess(): string {
  const since = new Date(wallClockMs()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return `pid ${process.pid} on host ${os.hostname()} since ${since}`;
}

/** The holder's text, cleaned for an error message; null when missing, empty or unreadable. */
/**
 * The holder's text, waiting a little when there is none yet: a holder writes it just after
 * taking the lock, so a refused opener that came in between would otherwise name nobody.
 */
function awaitHolder(io: FileIO, lockPath: string): string | null {
  for (let attempt = 0; ; attempt++) {
    const holder = readHolder(io, lockPath);
    if (holder !== null || attempt === HOLDER_WAIT_ATTEMPTS) return holder;
    Atomics.wait(HOLDER_WAIT_CELL, 0, 0, HOLDER_WAIT_STEP_MS);
  }
}

const HOLDER_WAIT_ATTEMPTS = 10;
const HOLDER_WAIT_STEP_MS = 5;
/** Atomics.wait needs a shared cell to wait on; nothing ever wakes it, so each wait times out. */
const HOLDER_WAIT_CELL = new Int32Array(new SharedArrayBuffer(4));

function readHolder(io: FileIO, lockPath: string): string | null {
  let content: Buffer | null;
  try {
    content = io.readWholeFile(lockPath);
  } catch (error) {
    // Only information is lost (Windows, for one, refuses to read locked bytes).
    if (isStorageError(error)) return null;
    throw error;
  }
  if (content === null) return null;
  // Up to 4 UTF-8 bytes a character: enough bytes for HOLDER_MAX_CHARS, however written.
  const text = content
    .toString('utf8', 0, Math.min(content.length, HOLDER_MAX_CHARS * 4))
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .trim()
    .slice(0, HOLDER_MAX_CHARS);
  return text.length === 0 ? null : text;
}

function lockedError(lockPath: string, what: string, holder: string | null): StorageError {
  const by = holder === null ? 'the holder did not say who it is' : `held by ${holder}`;
  return new StorageError(
    'LOG_LOCKED',
    `cannot open ${what} for writing: another writer has it locked (${by}; lock file ` +
      `${lockPath}); close the other writer first; read-only commands (\`loglab read\`, ` +
      '`loglab dump`) need no lock',
    holder === null ? { file: lockPath } : { file: lockPath, holder },
  );
}
