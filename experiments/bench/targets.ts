/**
 * The figures the storage issues set as targets, checked against a bench's results. A target is
 * either a bound on a metric's median or a ratio that must be reached.
 */
import type { Results } from '../../lab/results.js';
import { MiB } from '../../storage/index.js';

/**
 * Rounds of the benches whose targets are ratios near their bounds (storage, queue). Full runs take
 * eleven, so a target's 95% interval (stats.ts medianCi) runs from the second to the tenth round,
 * not over every round, and can clear a bound the ratio is near.
 */
export const TARGET_ROUNDS = { quick: 3, full: 11 } as const;

export interface Target {
  readonly metric: string;
  readonly atLeast?: number;
  readonly atMost?: number;
  readonly why: string;
}

export const STORAGE_TARGETS: readonly Target[] = [
  {
    metric: 'append.batched.bytesPerSec',
    atLeast: 500e6,
    why: 'batched appends at 500 MB/s or more',
  },
  { metric: 'append.always.vsRawFs', atLeast: 0.9, why: 'always within 10% of write+fdatasync' },
  { metric: 'append.group.vsAlways', atLeast: 10, why: 'group commit at 16 producers 10x always' },
  {
    metric: 'append.always.inline.vsFioSeqSync',
    atLeast: 0.95,
    why: "always, syncing on its own thread as fio's psync does, within 5% of fio's sequential 1 KiB + fdatasync on a laid-out file (issue 43)",
  },
  {
    metric: 'append.always.vsFioSeqSync',
    atLeast: 0.9,
    why: "always with the default (adaptive) syncs within 10% of fio's sequential 1 KiB + fdatasync (issue 43)",
  },
  {
    metric: 'append.always.threadPool.vsNodeThreadPoolSync',
    atLeast: 0.95,
    why: 'always with thread-pool syncs within 5% of plain Node syncing on the thread pool (issue 20: the hand-off is Node’s, not the log’s)',
  },
  {
    metric: 'append.none.vsChecksummedFs',
    atLeast: 0.82,
    why: 'unbatched appends within 18% of the checksummed fs.writeSync loop (issue 43)',
  },
  {
    metric: 'lookup.warm.p50Ns',
    atMost: 3_500,
    why: 'warm lookup p50 at most 3.5 us (issue 43; beside it lookup.warm.vsPread says how much of it is the bare pread, and checkedPreadP50Ns what a pread and the check alone take)',
  },
  { metric: 'lookup.warm.p99Ns', atMost: 50_000, why: 'warm lookup p99 at most 50 us' },
  { metric: 'recovery.scan.bytesPerSec', atLeast: 500e6, why: 'recovery scan at 500 MB/s or more' },
  { metric: 'append.rssGrowthBytes', atMost: 64 * MiB, why: 'resident set grows under 64 MiB' },
  {
    metric: 'kafka.encode.none.bytesPerSec',
    atLeast: 1e9,
    why: 'Kafka v2 encode of 100 x 1 KiB at 1 GB/s or more',
  },
  {
    metric: 'kafka.decode.none.bytesPerSec',
    atLeast: 1e9,
    why: 'Kafka v2 decode of 100 x 1 KiB at 1 GB/s or more',
  },
  {
    metric: 'kafka.decode.lz4.bytesPerSec',
    atLeast: 500e6,
    why: 'lz4 batch decode at 500 MB/s of output or more',
  },
  {
    metric: 'kafka.append.batch100.none.vsOwnLogBatched',
    atLeast: 0.9,
    why: 'batched log within 10% of loglab appendBatch',
  },
];

export const QUEUE_TARGETS: readonly Target[] = [
  {
    metric: 'queue.B.inFlightTrackingBytesPerMsg',
    atMost: 100,
    why: 'at most ~100 bytes of memory per message in flight',
  },
  {
    metric: 'queue.B.always.vsLogAppend',
    atLeast: 0.95,
    why: 'a design B cycle under always costs no more than its one synced append (issue 20)',
  },
];

export interface TargetCheck {
  readonly target: Target;
  readonly value: number | null;
  readonly met: boolean | null;
  /** The metric's 95% interval of the median; null for an exact figure or too few rounds. */
  readonly ci95: readonly [number, number] | null;
  /**
   * Whether the whole interval lies on the verdict's side of the bound: with 95% confidence the
   * median many runs of this code would settle on gets the same verdict. False when the interval
   * spans the bound, where this run's verdict is within its noise. Null without an interval.
   */
  readonly clearOfNoise: boolean | null;
}

function meets(target: Target, value: number): boolean {
  return (
    (target.atLeast === undefined || value >= target.atLeast) &&
    (target.atMost === undefined || value <= target.atMost)
  );
}

/** Whether some value in `interval` meets the target (the allowed range and it overlap). */
function reaches(target: Target, [low, high]: readonly [number, number]): boolean {
  return (
    (target.atLeast === undefined || high >= target.atLeast) &&
    (target.atMost === undefined || low <= target.atMost)
  );
}

export function checkTargets(results: Results, targets: readonly Target[]): TargetCheck[] {
  return targets.map((target) => {
    const metric = results.metrics.find((candidate) => candidate.name === target.metric);
    if (metric === undefined)
      return { target, value: null, met: null, ci95: null, clearOfNoise: null };
    const met = meets(target, metric.median);
    const ci95 = metric.ci95 ?? null;
    const clearOfNoise =
      ci95 === null ? null : met ? ci95.every((end) => meets(target, end)) : !reaches(target, ci95);
    return { target, value: metric.median, met, ci95, clearOfNoise };
  });
}
