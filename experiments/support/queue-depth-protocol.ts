/**
 * What the queue-depth experiment and its child process (queue-depth-child.ts) pass each other:
 * the child's configuration, as JSON on its command line, and its report, as JSON on its
 * standard output.
 */
import type { BlockDevice, IoUringState, Metric } from '../../lab/index.js';
import type { WarmUp } from '../../lab/runner.js';

export type Method = 'random-write' | 'append' | 'slot-send';
export const METHODS: readonly Method[] = ['random-write', 'append', 'slot-send'];
export type Engine = 'libuv' | 'io_uring';
/** The methods fio has an equivalent job for (scripts/fio/<method>.fio). */
export type FioMethod = 'random-write' | 'append';
export const FIO_METHODS: readonly FioMethod[] = ['random-write', 'append'];

/** fio's jobs, run in the child's rounds beside ours: each round pairs one of ours with one. */
export interface FioConfig {
  readonly jobFiles: Readonly<Record<FioMethod, string>>;
  /** How long one fio run may take, start-up included, before it is stopped. */
  readonly runTimeoutMs: number;
}

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
  /**
   * Design-A queue directories whose slot files hold a backlog, one per operation in flight (at
   * least `depth` of them).
   */
  readonly slotDirs: readonly string[];
  readonly slotBytes: number;
  /** The disk under the files, for its in-flight count and queue time; null when none. */
  readonly device: BlockDevice | null;
  readonly seed: number;
  /** fio's jobs to pair with ours in every round, or null (not installed, or not this depth). */
  readonly fio: FioConfig | null;
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

/**
 * fio's runs of one method, one per round: rate and latency as the runner summarises ours
 * (latency over every I/O of every round, from fio's bins), or why fio gave no figures.
 */
export type FioReport =
  | {
      readonly ok: true;
      readonly ioMode: string;
      readonly ratePerSec: Metric;
      readonly latencyNs: Metric;
    }
  | { readonly ok: false; readonly reason: string };

export interface ChildReport {
  readonly methods: Partial<Record<Method, MethodReport>>;
  /** Present for the methods fio ran beside (ChildConfig.fio). */
  readonly fio: Partial<Record<FioMethod, FioReport>>;
  readonly ioUring: IoUringState;
  readonly threadPoolSize: string | null;
}
