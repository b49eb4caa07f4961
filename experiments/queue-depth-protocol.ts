/**
 * What the queue-depth experiment and its child process (queue-depth-child.ts) pass each other:
 * the child's configuration, as JSON on its command line, and its report, as JSON on its
 * standard output.
 */
import type { BlockDevice, IoUringState, Metric } from '../lab/index.js';
import type { WarmUp } from '../lab/runner.js';

export type Method = 'random-write' | 'append' | 'slot-send';
export const METHODS: readonly Method[] = ['random-write', 'append', 'slot-send'];
export type Engine = 'libuv' | 'io_uring';

export interface ChildConfig {
  readonly depth: number;
  readonly methods: readonly Method[];
  readonly rounds: number;
  /** Length of one repetition of one method. */
  readonly seconds: number;
  /** Length of each method's warm-up before the rounds: timed, then discarded. */
  readonly warmUpSeconds: number;
  readonly blockBytes: number;
  /** Preallocated, written through: random writes overwrite its blocks. */
  readonly randomFile: string;
  readonly randomFileBytes: number;
  /** Created here, appended to, removed at the end. */
  readonly appendFile: string;
  /** Slot files with a backlog, one per operation in flight (at least `depth` of them). */
  readonly slotFiles: readonly string[];
  readonly slotBytes: number;
  /** The disk under the files, for its in-flight count and queue time; null when none. */
  readonly device: BlockDevice | null;
  readonly seed: number;
}

export interface MethodReport {
  /** How each write reached the device: O_DIRECT, O_DSYNC, or write+fdatasync. */
  readonly ioMode: string;
  readonly fallbackReason: string | null;
  readonly ratePerSec: Metric;
  readonly latencyNs: Metric;
  /** Mean of the device's sampled writes in flight, one per repetition; empty when unread. */
  readonly reachedDepthPerRepetition: number[];
  readonly reachedDepthMax: number;
  /** Time requests spent at the device over elapsed time (iostat's aqu-sz), per repetition. */
  readonly averageQueuePerRepetition: number[];
  /** The warm-up before the rounds, discarded from every figure. */
  readonly warmUp: WarmUp;
}

export interface ChildReport {
  readonly methods: Partial<Record<Method, MethodReport>>;
  readonly ioUring: IoUringState;
  readonly threadPoolSize: string | null;
}
