/**
 * Durability policies: when may an append be acknowledged?
 *
 * | policy   | acknowledged when                                  | loss window on power failure      |
 * | -------- | -------------------------------------------------- | --------------------------------- |
 * | `none`   | the record is in the page cache (write returned)   | everything not yet written back by |
 * |          |                                                    | the OS (~30 s of dirty pages by    |
 * |          |                                                    | default, Linux's dirty_expire)     |
 * | `always` | an fdatasync covering the record returned          | nothing acknowledged              |
 * | `group`  | one shared fdatasync covering it returned; a sync  | nothing acknowledged; unacknowl-   |
 * |          | starts `groupMaxDelayMs` after the first unsynced  | edged appends: at most             |
 * |          | append (0: the next event-loop turn), or at once   | groupMaxBytes / groupMaxDelayMs    |
 * |          | when `groupMaxBytes` wait; appends made while a    | plus one sync's duration           |
 * |          | sync runs gather for the next one                  |                                   |
 *
 * `always` and `group` also sync a segment when it is rolled, so sealed segments are complete on
 * the device and recovery scans only the active one. Every policy syncs on a clean close.
 */
import { StorageError } from './errors.js';

export type DurabilityPolicy = 'none' | 'always' | 'group';
export const DURABILITY_POLICIES: readonly DurabilityPolicy[] = ['none', 'always', 'group'];

export interface GroupCommitOptions {
  readonly maxDelayMs: number;
  readonly maxBytes: number;
}

/** 0: no waiting beyond the current event-loop turn; producers that are ready join the sync. */
export const DEFAULT_GROUP_MAX_DELAY_MS = 0;
export const DEFAULT_GROUP_MAX_BYTES = 1024 * 1024;

export function parseDurabilityPolicy(value: string): DurabilityPolicy {
  if ((DURABILITY_POLICIES as readonly string[]).includes(value)) return value as DurabilityPolicy;
  throw new StorageError('INVALID_CONFIG', `durability must be one of ${DURABILITY_POLICIES.join(', ')}, got '${value}'`, {
    reason: 'durability',
  });
}
