/** The log's refusals (log.ts), each with its code, what failed and what to do. */
import { type OffsetRange, StorageError, type StorageErrorCode } from '../errors.js';
import { MAX_APPEND_OFFSET } from '../units.js';

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

/** Codes of an append the log turned down before writing anything of that record. */
const REFUSED: ReadonlySet<StorageErrorCode> = new Set<StorageErrorCode>([
  'RECORD_TOO_LARGE',
  'OFFSET_LIMIT',
  'LOG_CLOSED',
  'LOG_READ_ONLY',
  'LOG_FENCED',
]);

/**
 * An append of several records that stopped at one (`failure`): `append: stored offsets 0–299;
 * record 300 refused: <what failure says>`, or `nothing stored (next offset N)`.
 * `which` names the record as the caller counts (`record 300`, `line 301`). The failure's code
 * and fields are kept, `stored` and `recordIndex` added, and the failure is the cause.
 */
export function appendStopped(
  failure: StorageError,
  stored: OffsetRange | null,
  recordIndex: number,
  which: string,
  endOffset: number,
): StorageError {
  const what =
    stored === null
      ? `nothing stored (next offset ${endOffset})`
      : `stored offsets ${stored.firstOffset}–${stored.lastOffset}`;
  const verb = REFUSED.has(failure.code) ? 'refused' : 'failed';
  return new StorageError(failure.code, `append: ${what}; ${which} ${verb}: ${failure.detail}`, {
    ...failure.context,
    stored,
    recordIndex,
    cause: failure,
  });
}
