/** Typed errors shared by both queue designs. */
import { StorageError } from './errors.js';

export function unknownMessage(id: number, why: 'never received' | 'already deleted'): StorageError {
  return new StorageError(
    'UNKNOWN_MESSAGE',
    `cannot delete message ${id}: it was ${why}; delete only ids returned by receive, once each`,
    { offset: BigInt(Number.isSafeInteger(id) && id >= 0 ? id : 0), reason: why },
  );
}
