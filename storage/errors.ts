/**
 * Typed storage errors. Every error carries a stable `code` a caller can switch on, context fields
 * (file, position, sizes), and a message that says what failed, where, and what to do about it.
 * Corruption is thrown, never returned as data. Also what every part uses around them: `assert`
 * for programmer mistakes, `ioError` for a failed file call (NodeFileIO's and the simulated
 * disk's alike), and `ignoreFailure` for a step taken on the way out of another failure.
 */

export type StorageErrorCode =
  | 'CORRUPT_RECORD'
  | 'RECORD_TOO_LARGE'
  | 'OFFSET_OUT_OF_RANGE'
  | 'INVALID_CONFIG'
  | 'INVALID_SEGMENT_FILE'
  | 'LOG_CLOSED'
  | 'LOG_FENCED'
  /** A queue stopped accepting writes after an I/O failure: fix the disk, then reopen it. */
  | 'QUEUE_FENCED'
  /** A queue was used after `close()`. */
  | 'QUEUE_CLOSED'
  | 'IO_ERROR'
  | 'SHORT_IO'
  /** A queue's send of a body over its `maxBodyBytes` (or over what its slot or record holds). */
  | 'MESSAGE_TOO_LARGE'
  /** A queue's file is not what the queue wrote (a slot file with a bad magic or version). */
  | 'INVALID_QUEUE_FILE'
  | 'UNKNOWN_MESSAGE'
  | 'CORRUPT_CHECKPOINT'
  /** Another process (or another open in this one) holds the log for writing. */
  | 'LOG_LOCKED'
  /** Another process (or another open in this one) holds the queue for writing. */
  | 'QUEUE_LOCKED'
  /** File locks cannot be taken on this platform (the native lock addon did not load). */
  | 'LOCK_UNAVAILABLE'
  /** A read-only open found no log in the directory. */
  | 'LOG_NOT_FOUND'
  /** A write was asked of a log opened read-only. */
  | 'LOG_READ_ONLY'
  /** Offsets are missing between two segments (a segment was lost or moved away). */
  | 'LOG_GAP'
  /** A segment's first record carries another offset than its file name says. */
  | 'SEGMENT_NAME_MISMATCH'
  /** A segment holds records at or past the next segment's base offset. */
  | 'SEGMENT_OVERLAP'
  /** The next offset would not fit the offsets this log can store exactly (2^53 - 1). */
  | 'OFFSET_LIMIT'
  /** A Kafka record batch failed a check on read (magic, CRC, lengths, varints, codec, size). */
  | 'CORRUPT_BATCH'
  /** A compression codec's native library did not load on this platform. */
  | 'CODEC_UNAVAILABLE'
  /**
   * An entry under the name of one of a log's or queue's files that is not a regular file it
   * may write (a symbolic link, a directory, a FIFO, socket or device, a file another name links):
   * move it out of the directory (directory-entries.ts).
   */
  | 'UNSAFE_ENTRY';

/** Offsets `firstOffset` to `lastOffset`, both included. */
export interface OffsetRange {
  readonly firstOffset: number;
  readonly lastOffset: number;
}

export interface StorageErrorContext {
  readonly file?: string;
  readonly positionBytes?: number;
  readonly offset?: bigint;
  readonly sizeBytes?: number;
  readonly limitBytes?: number;
  /** Where a broken segment chain starts and ends, or another offset range the error names. */
  readonly fromOffset?: number;
  readonly toOffset?: number;
  /** Who holds a lock, as far as is known (pid, host, since). */
  readonly holder?: string;
  readonly reason?: string;
  /** An append of several records that stopped: the record that stopped it, counted from 0. */
  readonly recordIndex?: number;
  /** What that append stored before it stopped (still in the log); null when nothing. */
  readonly stored?: OffsetRange | null;
  readonly cause?: unknown;
}

export class StorageError extends Error {
  readonly code: StorageErrorCode;
  readonly context: StorageErrorContext;
  /** The message without its `storage: ` prefix, for an error that quotes this one. */
  readonly detail: string;

  constructor(code: StorageErrorCode, message: string, context: StorageErrorContext = {}) {
    super(
      `storage: ${message}`,
      context.cause === undefined ? undefined : { cause: context.cause },
    );
    this.name = 'StorageError';
    this.code = code;
    this.context = context;
    this.detail = message;
  }
}

export function isStorageError(error: unknown, code?: StorageErrorCode): error is StorageError {
  return error instanceof StorageError && (code === undefined || error.code === code);
}

/** Programmer mistakes: fail loudly, at function entry, one condition each. */
export function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}

/**
 * Runs a step taken on the way out of a failure that is already reported (closing, cutting back,
 * removing a spare): an attempt to leave less behind, whose own failure is dropped.
 */
export function ignoreFailure(action: () => void): void {
  try {
    action();
  } catch {
    // The caller is already failing; this step was an attempt to leave less behind.
  }
}

/** What to do about a failed call, by errno; most need a look at the disk. */
const IO_ERROR_ADVICE: Readonly<Record<string, string>> = {
  EMFILE: 'too many open files in this process: raise the limit (ulimit -n) or open fewer logs',
  ENFILE: 'too many open files on this system: raise fs.file-max or close other programs',
  ENOSPC: 'the disk is full: free space on it',
};
const DEFAULT_IO_ERROR_ADVICE = 'check the disk, its free space and permissions';

/** The IO_ERROR both NodeFileIO and SimDisk throw: the errno in `reason`, advice in the text. */
export function ioError(operation: string, file: string, cause: unknown): StorageError {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code ?? 'unknown';
  const advice = IO_ERROR_ADVICE[code] ?? DEFAULT_IO_ERROR_ADVICE;
  return new StorageError(
    'IO_ERROR',
    `${operation} failed on ${file} (${code}); ${advice}, then reopen the log`,
    {
      file,
      reason: code,
      cause,
    },
  );
}
