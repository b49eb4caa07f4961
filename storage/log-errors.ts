/** The log's refusals (log.ts), each with its code, what failed and what to do. */
import { StorageError } from './errors.js';
import { MAX_APPEND_OFFSET } from './units.js';

export function offsetOutOfRange(
  dir: string,
  offset: number,
  startOffset: number,
  endOffset: number,
): StorageError {
  return new StorageError(
    'OFFSET_OUT_OF_RANGE',
    `offset ${offset} is outside the log ${dir}, which holds offsets ${startOffset} to ${endOffset - 1}; ` +
      'ask for an offset in that range',
    { offset: BigInt(Math.max(0, Math.trunc(Number.isFinite(offset) ? offset : 0))) },
  );
}

export function logClosed(dir: string): StorageError {
  return new StorageError('LOG_CLOSED', `the log in ${dir} is closed; open it again to use it`);
}

/** `what` the caller asked, as a verb: "append to", "flush", "delete segments of". */
export function logReadOnly(dir: string, what: string): StorageError {
  return new StorageError(
    'LOG_READ_ONLY',
    `cannot ${what} the log in ${dir}: it was opened read-only; open it without readOnly to write`,
    { file: dir },
  );
}

/** Appending `records` from `endOffset` would reach `lastOffset`, past what the log stores. */
export function offsetLimit(
  dir: string,
  records: number,
  endOffset: number,
  lastOffset: number,
): StorageError {
  return new StorageError(
    'OFFSET_LIMIT',
    `appending ${records} record(s) to the log in ${dir} would reach offset ${lastOffset}, past ${MAX_APPEND_OFFSET}, ` +
      'the largest offset this log can store exactly; nothing was written. Start a new log with a lower base offset',
    { file: dir, fromOffset: endOffset, toOffset: lastOffset },
  );
}
