/**
 * Builders for results metrics, and the one place a metric's contract is declared: its class
 * (who decides the figure) and its direction (which way is better). Both are required
 * parameters, so a metric without them does not compile. docs/results-format.md gives the rules
 * `compare` applies to each class.
 *
 * - `counter`: decided by the code alone (write calls, bytes the code wrote, fdatasyncs it issues
 *   one per message, index bytes): one value, compared exactly.
 * - `measurement`: decided by the machine (whole-disk device bytes, I/Os and flushes, syncs under
 *   group commit, loss windows, anything read from /proc or /sys): varies run to run.
 * - `timing`: durations, rates, and ratios of them.
 */
import type { Direction, Metric, MetricClass } from './metric-schema.js';
import type { SeededRandom } from '../storage/sim/prng.js';
import { medianCi, type Summary, summarize } from './stats.js';

export type { Direction, MetricClass } from './metric-schema.js';
export type Labels = Record<string, string | number | boolean>;

/** What varies from run to run: everything but a counter. */
export type VaryingClass = Exclude<MetricClass, 'counter'>;

export interface VaryingContract {
  readonly class: VaryingClass;
  readonly direction: Direction;
  /**
   * A ratio of two figures measured within one run (B over A): the machine's speed divides out,
   * so compare gates it by default (kind `ratio`).
   */
  readonly ratio?: boolean;
}

export interface SampleMetricOptions extends VaryingContract {
  /** Unused since the median's interval is exact (stats.ts medianCi); kept for callers. */
  readonly random?: SeededRandom;
  readonly labels?: Labels;
  readonly description?: string;
}

function tails(summary: Summary): Pick<Metric, 'p90' | 'p99' | 'p999'> {
  const present: { p90?: number; p99?: number; p999?: number } = {};
  if (summary.p90 !== undefined) present.p90 = summary.p90;
  if (summary.p99 !== undefined) present.p99 = summary.p99;
  if (summary.p999 !== undefined) present.p999 = summary.p999;
  return present;
}

function kindOf(contract: VaryingContract): Metric['kind'] {
  return contract.ratio === true ? 'ratio' : 'timing';
}

/**
 * Summarises per-repetition samples (one per round). `median` and `p50` are one number, the
 * rounds' median. The 95% interval is the exact order-statistic one (stats.ts medianCi) and
 * needs six rounds: with fewer the metric carries none, and `count` states n. Tail percentiles
 * appear only with enough rounds to support them (stats.ts PERCENTILE_MIN_SAMPLES).
 */
export function metricFromSamples(
  name: string,
  unit: string,
  samples: readonly number[],
  options: SampleMetricOptions,
): Metric {
  const summary = summarize(samples);
  const metric: Metric = {
    name,
    unit,
    kind: kindOf(options),
    class: options.class,
    direction: options.direction,
    median: summary.median,
    p50: summary.median,
    ...tails(summary),
    max: summary.max,
    count: summary.count,
    mad: summary.mad,
    samples: [...samples],
    outliers: {
      lowSevere: summary.outliers.lowSevere,
      lowMild: summary.outliers.lowMild,
      highMild: summary.outliers.highMild,
      highSevere: summary.outliers.highSevere,
    },
  };
  if (summary.cv !== null) metric.cv = summary.cv;
  const interval = medianCi(samples);
  if (interval !== null) metric.ci95 = [interval.ci95[0], interval.ci95[1]];
  if (options.labels !== undefined) metric.labels = { ...options.labels };
  if (options.description !== undefined) metric.description = options.description;
  return metric;
}

/** A figure the code alone decides (bytes per message, fsyncs per message): exact, no interval. */
export function counterMetric(
  name: string,
  unit: string,
  value: number,
  direction: Direction,
  labels?: Labels,
  description?: string,
): Metric {
  const metric: Metric = {
    name,
    unit,
    kind: 'counter',
    class: 'counter',
    direction,
    median: value,
  };
  if (labels !== undefined) metric.labels = { ...labels };
  if (description !== undefined) metric.description = description;
  return metric;
}

/**
 * One value the machine or the clock decided (whole-disk bytes per message over a phase, syncs
 * under group commit): no samples, so compare judges it by the threshold alone.
 */
export function measuredMetric(
  name: string,
  unit: string,
  value: number,
  contract: VaryingContract,
  labels?: Labels,
  description?: string,
): Metric {
  const metric: Metric = {
    name,
    unit,
    kind: kindOf(contract),
    class: contract.class,
    direction: contract.direction,
    median: value,
  };
  if (labels !== undefined) metric.labels = { ...labels };
  if (description !== undefined) metric.description = description;
  return metric;
}
