/** The batched log's refusals (batched-log.ts), each with its code and what to do. */
import type { BatchedLogConfig } from './batched-log-config.js';
import type { BatchFrame } from './batched-log-frame.js';
import { StorageError } from '../errors.js';

export function closedError(dir: string): StorageError {
  return new StorageError('LOG_CLOSED', `batched log ${dir} is closed; open it again`);
}

export function batchTooLarge(sizeBytes: number, config: BatchedLogConfig): StorageError {
  return new StorageError(
    'RECORD_TOO_LARGE',
    `batched log: a batch of ${sizeBytes} bytes is over maxBatchBytes ${config.maxBatchBytes} ` +
      "(Kafka's message.max.bytes); split the records into smaller batches",
    { sizeBytes, limitBytes: config.maxBatchBytes },
  );
}

export function offsetLimit(frame: BatchFrame): StorageError {
  return new StorageError(
    'OFFSET_LIMIT',
    `batched log: offsets up to ${frame.lastOffset} would pass 2^53 - 2, the last offset this ` +
      'log stores exactly; start a new log',
    { fromOffset: frame.baseOffset, toOffset: frame.lastOffset },
  );
}

export function readOnlyError(dir: string): StorageError {
  return new StorageError(
    'LOG_READ_ONLY',
    `batched log ${dir} is open read-only; open it without readOnly to append`,
  );
}

export function outOfRange(offset: number, startOffset: number, endOffset: number): StorageError {
  return new StorageError(
    'OFFSET_OUT_OF_RANGE',
    `batched log: offset ${offset} is outside [${startOffset}, ${endOffset}); ` +
      'read an offset in that range',
    { offset: BigInt(offset), fromOffset: startOffset, toOffset: endOffset },
  );
}
