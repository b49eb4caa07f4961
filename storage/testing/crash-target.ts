/**
 * What the crash loop drives: the raw Log and both queue designs, behind one small interface.
 * A driver opens its target on a (possibly crashed) SimDisk; the open target takes random steps
 * against the model and, after a reopen, hands back every message it still holds.
 */
import type { DurabilityPolicy, SyncMode } from '../io/durability.js';
import { isStorageError } from '../errors.js';
import type { Log } from '../log/log.js';
import { type SimDisk, SimPowerCutError } from '../sim/sim-disk.js';
import type { SeededRandom } from '../sim/prng.js';
import type { CrashModel, Found } from './crash-model.js';

/** Where every target keeps its files on the simulated disk. */
export const CRASH_DATA_DIR = '/data';

export type CrashTargetName = 'log' | 'log-queue' | 'slot-file';
export const CRASH_TARGETS: readonly CrashTargetName[] = ['log', 'log-queue', 'slot-file'];

/** Sizes drawn per iteration: small, so segments roll and slot files grow often. */
export interface TargetConfig {
  readonly durability: DurabilityPolicy;
  readonly segmentBytes: number;
  /** Preallocation under always and group: several extents a segment, or the whole one at once. */
  readonly preallocateExtentBytes: number;
  readonly indexIntervalBytes: number;
  readonly groupMaxBytes: number;
  readonly slotBytes: number;
  readonly chunkSlots: number;
  readonly checkpointEveryDeletes: number;
  /** Drawn for some iterations of the raw log: see ReuseProfile. */
  readonly reuse: ReuseProfile | null;
  /**
   * The raw log's `pageAlign` (page-alignment.ts) under `always` and `group`, where a page size is
   * set: on, power cuts land in segments with gaps; off, a torn record can lie over a reused
   * file's older records in every page.
   */
  readonly pageAlign: boolean;
  /**
   * The raw log's `directWrites` (direct-write.ts) under `always` and `group`: each write
   * rewrites the data's last 512-byte block before its records and zeroes the rest of its own.
   */
  readonly directWrites: boolean;
  /**
   * Where the target's syncs run. Under `adaptive` (the default) the loop's clock is the
   * iteration's SimLoopClock, so each sync is placed (inline, in the next turn, on the pool) by
   * lengths drawn from the seed and an iteration replays exactly.
   */
  readonly syncMode: SyncMode;
}

/**
 * Segment reuse exercised (log.ts): the consumer keeps up and retention runs often, so under
 * `always` and `group` retention leaves a spare at nearly every roll and the next roll reuses it,
 * and the power fails inside reused files with an older segment's records behind the tail. Body
 * lengths say what those records look like: all one length (`one-size`, every older record
 * starts exactly where a new one does), spread (`mixed`), or a new spread each round
 * (`by-round`: the older records are of other sizes than the ones written over them).
 */
export interface ReuseProfile {
  readonly bodies: 'one-size' | 'mixed' | 'by-round';
  /** The one length under `one-size`. */
  readonly bodyBytes: number;
  /**
   * The log's `pageBytes` (page-fill.ts): 0 leaves every older record behind the tail; 512 zeroes
   * the rest of a page and leaves those after it; 4096 (the default) zeroes whole small segments,
   * so only a power cut that loses a fill's sectors brings older records back behind the tail.
   */
  readonly pageBytes: number;
  /**
   * The log's `layOutSpares` (spare-segment.ts): off, every spare is one retention kept, as before
   * layouts; on, a laid-out spare may take a roll retention's would have. Iterations without a
   * reuse profile lay out spares (the default).
   */
  readonly layOutSpares: boolean;
}

/** A clock the loop moves by hand: deadlines, due times and time-index entries. */
export class ManualClock {
  ms = 1_700_000_000_000;

  nowMs(): number {
    return this.ms;
  }
}

export interface StepContext {
  readonly rng: SeededRandom;
  readonly model: CrashModel;
  readonly clock: ManualClock;
  /** Every error an operation threw goes here; only typed I/O failures are allowed. */
  readonly onError: (error: unknown, operation: string) => void;
  /**
   * Arms a power cut at one of the next `calls` FileIO calls: an operation that writes next is
   * cut between its write and the sync that would have made it durable.
   */
  readonly cutPowerWithin: (calls: number) => void;
}

export interface OpenTarget {
  /** One random operation: a send, a receive, a delete, a roll, retention, a checkpoint… */
  step(context: StepContext): Promise<void>;
  /** After a reopen: every message the target still holds, by key, each exactly once. */
  drain(context: StepContext): Found[];
  /** The key (offset or id) the next send gets. */
  readonly endKey: number;
  /** Keys below this are known to be synced (the log's synced end); 0 when none are. */
  readonly syncedKeyBound: number;
  /** The log underneath (the raw Log, LogQueue's); null for the slot file. */
  readonly log: Log | null;
  close(): Promise<void>;
}

export interface TargetDriver {
  readonly name: CrashTargetName;
  /** Whether an acknowledged delete survives a crash under `durability`. */
  deletesAreDurable(durability: DurabilityPolicy): boolean;
  /** What a second writer's open throws: the log's code, or the queue's for a queue. */
  readonly lockedCode: 'LOG_LOCKED' | 'QUEUE_LOCKED';
  /** The directory of the log underneath, for the outside events; null for the slot file. */
  readonly logDir: string | null;
  /** Opens on `disk`; `report` records a violation found while opening. */
  open(
    disk: SimDisk,
    config: TargetConfig,
    clock: ManualClock,
    report: (text: string) => void,
  ): OpenTarget;
}

/** Largest body the target takes: a slot holds its header and a due time besides the body. */
export function bodyMaxBytes(config: TargetConfig): number {
  return Math.min(200, config.slotBytes - 28);
}

export function pickWeighted<T extends string>(
  rng: SeededRandom,
  choices: ReadonlyArray<readonly [T, number]>,
): T {
  const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
  let draw = rng.nextInt(total);
  for (const [choice, weight] of choices) {
    if (draw < weight) return choice;
    draw -= weight;
  }
  throw new Error('pickWeighted: weights must be positive integers');
}

export function isPowerCut(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof SimPowerCutError) return true;
  }
  return false;
}

export function describeError(error: unknown): string {
  if (isStorageError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
