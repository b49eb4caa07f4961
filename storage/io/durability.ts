/**
 * Durability policies: when may an append be acknowledged?
 *
 * | policy   | acknowledged when                                  | loss window on power failure      |
 * | -------- | -------------------------------------------------- | --------------------------------- |
 * | `none`   | the record is in the page cache (write returned)   | everything not yet written back by |
 * |          |                                                    | the OS (~30 s of dirty pages by    |
 * |          |                                                    | default, Linux's dirty_expire)     |
 * | `always` | an fdatasync of its own, started after the record | nothing acknowledged              |
 * |          | was written, returned (one sync per append)        |                                   |
 * | `group`  | one shared fdatasync covering it returned. With no | nothing acknowledged; unacknowl-   |
 * |          | sync running one starts at the end of this event-  | edged appends: those made during   |
 * |          | loop turn (after `groupMaxDelayMs` if asked for);  | one sync, or groupMaxBytes         |
 * |          | appends made while it runs gather and are synced   | (never-acknowledged appends wait   |
 * |          | together when it ends; the sync writes the group's | in memory until their sync)        |
 * |          | records with one write, then syncs                 |                                   |
 *
 * `always` and `group` also sync a segment when it is rolled, so sealed segments are complete on
 * the device and recovery scans only the active one. Every policy syncs on a clean close.
 */
import { StorageError } from '../errors.js';
import { checkInteger, checkMs } from '../config-checks.js';
import { MiB } from '../units.js';

export type DurabilityPolicy = 'none' | 'always' | 'group';
export const DURABILITY_POLICIES: readonly DurabilityPolicy[] = ['none', 'always', 'group'];

export interface GroupCommitOptions {
  readonly maxDelayMs: number;
  readonly maxBytes: number;
}

/**
 * Where the engine's fdatasyncs run (durability-engine.ts). `thread-pool`: on libuv's thread pool,
 * so the event loop never waits for the device and appends made meanwhile overlap the sync, at
 * the price of two thread hand-offs per sync (about a fifth of a synced append's rate on an SSD,
 * docs/storage.md). `inline`: on the event loop, which saves the hand-offs and stalls everything
 * else the process does for each sync (milliseconds on a hard disk). `adaptive`, the default:
 * inline a sync that covers one write at most while the syncs of this turn of the loop, the one
 * about to start counted at the longest of the log's recent syncs, stay within 0.5 ms
 * (loop-budget.ts), and inline in the loop's next turn when this turn's budget is spent; on the
 * thread pool a sync several writes share, every sync of a device whose syncs take longer than
 * that budget, and the first sync of a log, not yet measured.
 */
export type SyncMode = 'adaptive' | 'inline' | 'thread-pool';
export const SYNC_MODES: readonly SyncMode[] = ['adaptive', 'inline', 'thread-pool'];
export const DEFAULT_SYNC_MODE: SyncMode = 'adaptive';

export function parseSyncMode(value: string): SyncMode {
  return parseChoice('syncMode', value, SYNC_MODES);
}

/**
 * The policy a log or queue gets when none is chosen: `group`, which acknowledges only what an
 * fdatasync covered (docs/storage.md says why, and what Kafka, SQLite and JetStream do).
 */
export const DEFAULT_DURABILITY: DurabilityPolicy = 'group';

/** 0: no waiting beyond the current event-loop turn; producers that are ready join the sync. */
export const DEFAULT_GROUP_MAX_DELAY_MS = 0;
export const DEFAULT_GROUP_MAX_BYTES = MiB;

/** The group-commit bounds of a log's or queue's options, checked; defaults where absent. */
export function resolveGroupCommitOptions(
  maxDelayMs = DEFAULT_GROUP_MAX_DELAY_MS,
  maxBytes = DEFAULT_GROUP_MAX_BYTES,
): GroupCommitOptions {
  return {
    maxDelayMs: checkMs('groupMaxDelayMs', maxDelayMs, 0, 60_000),
    maxBytes: checkInteger('groupMaxBytes', maxBytes, 1, 1 << 30),
  };
}

/** Whether an acknowledgement under `policy` waits for an fdatasync (`always`, `group`). */
export function syncsBeforeAcknowledging(policy: DurabilityPolicy): boolean {
  return policy !== 'none';
}

export function parseDurabilityPolicy(value: string): DurabilityPolicy {
  return parseChoice('durability', value, DURABILITY_POLICIES);
}

/** `value` when it is one of `choices`; INVALID_CONFIG naming the option and the choices if not. */
function parseChoice<T extends string>(option: string, value: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new StorageError(
    'INVALID_CONFIG',
    `${option} must be one of ${choices.join(', ')}, got '${value}'`,
    {
      reason: option,
    },
  );
}
