/**
 * Typed errors shared by both queue designs: a queue reports in its own codes (QUEUE_CLOSED,
 * QUEUE_FENCED, QUEUE_LOCKED, MESSAGE_TOO_LARGE, UNKNOWN_MESSAGE), never in those of the log
 * under design B or of the writer lock, and names the directory it was opened on.
 */
import { StorageError, isStorageError } from '../errors.js';

export function unknownMessage(
  id: number,
  why: 'never received' | 'already deleted',
): StorageError {
  return new StorageError(
    'UNKNOWN_MESSAGE',
    `cannot delete message ${id}: it was ${why}; delete only ids returned by receive, once each`,
    { offset: BigInt(Number.isSafeInteger(id) && id >= 0 ? id : 0), reason: why },
  );
}

/** A body over `limitBytes`; `why` says which limit it is and what raises it. */
export function messageTooLarge(bodyBytes: number, limitBytes: number, why: string): StorageError {
  return new StorageError(
    'MESSAGE_TOO_LARGE',
    `a body of ${bodyBytes} bytes is over this queue's limit of ${limitBytes} bytes (${why}); ` +
      'send a smaller body, or open the queue with a larger maxBodyBytes',
    { sizeBytes: bodyBytes, limitBytes },
  );
}

export function queueClosed(subject: string): StorageError {
  return new StorageError('QUEUE_CLOSED', `${subject} is closed; open it again to use it`);
}

/**
 * The queue's own code for what the log under it threw: LOG_FENCED becomes QUEUE_FENCED and
 * LOG_CLOSED becomes QUEUE_CLOSED, the log's error kept as the cause; anything else is returned
 * as it is.
 */
export function asQueueError(error: unknown, subject: string): unknown {
  if (isStorageError(error, 'LOG_FENCED')) {
    return new StorageError(
      'QUEUE_FENCED',
      `${subject} stopped accepting writes after its log failed a write or sync; ` +
        'fix the disk, then reopen the queue: recovery keeps only what reached the device',
      { cause: error },
    );
  }
  if (isStorageError(error, 'LOG_CLOSED')) {
    return new StorageError('QUEUE_CLOSED', `${subject} is closed; open it again to use it`, {
      cause: error,
    });
  }
  return error;
}

/** What to do when creating or opening a queue's directory failed with this errno. */
const DIR_ADVICE: Readonly<Record<string, string>> = {
  EACCES:
    'give this user write permission on it (and search permission on its parents), or ' +
    'open the queue in a directory it may write',
  EPERM: 'give this user write permission on it, or open the queue in a directory it may write',
  EROFS: 'it is on a read-only file system: open the queue in a directory on a writable one',
  ENOTDIR: 'part of that path is a file, not a directory: choose another directory',
  EEXIST: 'a file of that name is in the way: move it, or choose another directory',
  EISDIR: 'a directory stands where the queue keeps a file: move it, or choose another directory',
  ENOENT:
    'part of the path vanished while it was being created: check what removes it, then ' +
    'open the queue again',
};

/**
 * What opening a queue in `dir` failed with, in the queue's words: another writer's lock
 * (LOG_LOCKED, from the log under design B or the slot file's lock) becomes QUEUE_LOCKED, an
 * unusable directory queueDirError's IO_ERROR; anything else is returned as it is.
 */
export function queueOpenError(error: unknown, dir: string): unknown {
  if (!isStorageError(error, 'LOG_LOCKED')) return queueDirError(error, dir);
  const { holder } = error.context;
  const file = error.context.file ?? dir;
  const by = holder === undefined ? 'it did not say who it is' : `held by ${holder}`;
  return new StorageError(
    'QUEUE_LOCKED',
    `cannot open the queue in ${dir} for writing: another writer, in another process or ` +
      `another open in this one, holds it (${by}; lock file ${file}); close that writer first, ` +
      'or open the queue in another directory',
    holder === undefined ? { file, cause: error } : { file, holder, cause: error },
  );
}

/**
 * Rewords an I/O error about the queue's directory or a file in it (the path was unusable, not
 * the disk) so that it names the directory and says what to do; the errno stays in `reason`, the
 * original error in `cause`. Other errors are returned as they are.
 */
export function queueDirError(error: unknown, dir: string): unknown {
  if (!isStorageError(error, 'IO_ERROR')) return error;
  const errno = error.context.reason ?? '';
  const advice = DIR_ADVICE[errno];
  if (advice === undefined) return error;
  const where = error.context.file === undefined ? '' : ` on ${error.context.file}`;
  return new StorageError(
    'IO_ERROR',
    `cannot create or open the queue directory ${dir} (${errno}${where}); ${advice}`,
    { file: dir, reason: errno, cause: error },
  );
}
