/**
 * Durability policies: when may an append be acknowledged?
 *
 * | policy   | acknowledged when                                  | loss window on power failure      |
 * | -------- | -------------------------------------------------- | --------------------------------- |
 * | `none`   | the record is in the page cache (write returned)   | everything not yet written back by |
 * |          |                                                    | the OS (~30 s of dirty pages by    |
 * |          |                                                    | default), at most since last roll  |
 * | `always` | an fdatasync covering the record returned          | nothing acknowledged              |
 * | `group`  | one shared fdatasync covering it returned; a sync  | nothing acknowledged; unacknowl-   |
 * |          | starts `groupMaxDelayMs` after the first unsynced  | edged appends: at most             |
 * |          | append, or at once when `groupMaxBytes` wait       | groupMaxBytes / groupMaxDelayMs    |
 *
 * Every policy fdatasyncs a segment when it is rolled and on a clean close, so sealed segments
 * are always complete on the device (NSQ syncs on every new file for the same reason).
 */
import { StorageError } from './errors.js';

export type DurabilityPolicy = 'none' | 'always' | 'group';
export const DURABILITY_POLICIES: readonly DurabilityPolicy[] = ['none', 'always', 'group'];

export interface GroupCommitOptions {
  readonly maxDelayMs: number;
  readonly maxBytes: number;
}

export const DEFAULT_GROUP_MAX_DELAY_MS = 2;
export const DEFAULT_GROUP_MAX_BYTES = 1024 * 1024;

export function parseDurabilityPolicy(value: string): DurabilityPolicy {
  if ((DURABILITY_POLICIES as readonly string[]).includes(value)) return value as DurabilityPolicy;
  throw new StorageError('INVALID_CONFIG', `durability must be one of ${DURABILITY_POLICIES.join(', ')}, got '${value}'`, {
    reason: 'durability',
  });
}
