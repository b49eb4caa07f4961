/**
 * Judging a change against a baseline build run beside it (`--against REF`): both builds ran the
 * same workload in turns (baseline, change, change, baseline, …), so for every metric each round
 * pair gives a ratio change / baseline in which the machine's speed of that minute divides out.
 * The verdict reads the median of those ratios and its exact order-statistic interval:
 *
 * - the interval's coverage is 95% for one figure, more for many: a gate judges some dozen
 *   figures at once, and at 95% each an unchanged build would fail one run in three or four;
 *   so every interval is taken at 1 - 5%/m for a family of m gated varying figures (Bonferroni;
 *   with ten pairs and up to 25 figures that is the pairs' whole range), and the rule line says
 *   what coverage the pairs reached;
 * - a metric regressed when the interval excludes 1 and the median moves the wrong way by more
 *   than the threshold: the requested one (5% by default) from PAIRS_FOR_REQUESTED_THRESHOLD
 *   pairs on, at least FEWER_PAIRS_THRESHOLD below that; with fewer than MEDIAN_CI_MIN_SAMPLES
 *   pairs no interval reaches 95% and nothing varying is gated (the output says so);
 * - timings, measurements and ratios alike: taking turns is what makes raw timings comparable;
 * - counters compare exactly, as in a comparison of two files; one that differs between two
 *   runs of one build is not decided by the code, and a warning says so;
 * - informational metrics are reported, never gated.
 */
import {
  COUNTER_RELATIVE_TOLERANCE,
  DEFAULT_THRESHOLD,
  type Comparison,
  type MetricComparison,
} from './compare.js';
import type { Direction, Metric, Results } from '../results.js';
import {
  CI_LEVEL,
  MEDIAN_CI_MIN_SAMPLES,
  median,
  medianCiCoverage,
  medianRanksAt,
} from '../stats.js';

/** From this many round pairs on, the requested threshold applies as it is. */
export const PAIRS_FOR_REQUESTED_THRESHOLD = 10;
/** The smallest threshold for a figure from 6 to 9 round pairs: its interval is wide. */
export const FEWER_PAIRS_THRESHOLD = 0.1;

/** One workload's documents, round pair by round pair: `baseline[i]` ran beside `current[i]`. */
export interface PairedRuns {
  readonly experimentId: string;
  readonly baselineLabel: string;
  readonly currentLabel: string;
  readonly baseline: readonly Results[];
  readonly current: readonly Results[];
}

/** The threshold a figure of `pairs` round pairs is judged by, or why it is not gated. */
export function pairedThreshold(
  pairs: number,
  requestedRatio: number,
):
  | { readonly ratio: number; readonly note: string }
  | { readonly ratio: null; readonly note: string } {
  if (pairs < MEDIAN_CI_MIN_SAMPLES) {
    return {
      ratio: null,
      note: `${pairs} round pair(s), an interval needs ${MEDIAN_CI_MIN_SAMPLES}`,
    };
  }
  if (pairs >= PAIRS_FOR_REQUESTED_THRESHOLD) {
    return {
      ratio: requestedRatio,
      note: `${pairs} round pairs, threshold ${percent(requestedRatio)}`,
    };
  }
  const ratio = Math.max(requestedRatio, FEWER_PAIRS_THRESHOLD);
  return {
    ratio,
    note:
      `${pairs} round pairs (fewer than ${PAIRS_FOR_REQUESTED_THRESHOLD}), ` +
      `threshold ${percent(ratio)}`,
  };
}

const percent = (ratio: number) => `${Number((ratio * 100).toFixed(1))}%`;

function metricsByName(results: Results): Map<string, Metric> {
  return new Map(results.metrics.map((metric) => [metric.name, metric]));
}

/** The metric's value in every run of one side, in pair order; undefined where a run lacks it. */
function valuesOf(runs: readonly Results[], name: string): (number | undefined)[] {
  return runs.map((results) => metricsByName(results).get(name)?.median);
}

function worse(direction: Direction, change: number): boolean {
  return direction === 'higher' ? change < 0 : change > 0;
}

interface Judgement {
  readonly verdict: MetricComparison['verdict'];
  readonly thresholdRatio: number | null;
  readonly notGated: string | null;
  /** The relative change the verdict read: of the medians for a counter, of the ratios else. */
  readonly change: number | null;
  readonly ci95: readonly [number, number] | null;
  readonly note: string | null;
  readonly gated: boolean;
}

/** Whether a verdict can fail the comparison, and why not where it cannot. */
function gate(direction: Direction, roundsTooFew: string | null) {
  const notGated =
    direction === 'informational' ? 'informational, no direction is better' : roundsTooFew;
  return { gated: notGated === null, notGated };
}

function judgeCounter(
  name: string,
  before: readonly number[],
  after: readonly number[],
  direction: Direction,
  warnings: string[],
): Judgement {
  for (const [side, values] of [
    ['baseline', before],
    ['current', after],
  ] as const) {
    if (new Set(values).size > 1) {
      warnings.push(
        `counter ${name} differs between runs of the ${side} build ` +
          `(${Math.min(...values)} to ${Math.max(...values)}): the machine decides it, not the code`,
      );
    }
  }
  const [old, now] = [median(before), median(after)];
  const scale = Math.max(Math.abs(old), Math.abs(now));
  const changed = Math.abs(now - old) > COUNTER_RELATIVE_TOLERANCE * scale;
  let verdict: MetricComparison['verdict'] = 'unchanged';
  if (changed && direction === 'informational') verdict = 'changed';
  else if (changed) verdict = worse(direction, now - old) ? 'regressed' : 'improved';
  return {
    verdict,
    change: old === 0 ? null : now / old - 1,
    ci95: null,
    note: 'counter: compared exactly',
    thresholdRatio: null,
    ...gate(direction, null),
  };
}

function judgeVarying(
  before: readonly number[],
  after: readonly number[],
  direction: Direction,
  options: PairedOptions,
): Judgement {
  const ratios = before.flatMap((old, i) => (old > 0 ? [after[i]! / old] : []));
  if (ratios.length === 0) {
    const note = 'unavailable: the baseline is 0';
    const judged = { change: null, ci95: null, note, thresholdRatio: null };
    return { verdict: 'within noise', ...judged, gated: false, notGated: note };
  }
  const threshold = pairedThreshold(ratios.length, options.thresholdRatio);
  const change = median(ratios) - 1;
  const ci95 =
    ratios.length < MEDIAN_CI_MIN_SAMPLES ? null : intervalOfChange(ratios, options.level);
  const judged = {
    change,
    ci95,
    note: threshold.note,
    thresholdRatio: threshold.ratio,
    ...gate(direction, threshold.ratio === null ? threshold.note : null),
  };
  const excludesOne = ci95 !== null && (ci95[0] > 0 || ci95[1] < 0);
  const counts = threshold.ratio !== null && excludesOne && Math.abs(change) > threshold.ratio;
  if (!counts) return { verdict: 'within noise', ...judged };
  if (direction === 'informational') return { verdict: 'changed', ...judged };
  return { verdict: worse(direction, change) ? 'regressed' : 'improved', ...judged };
}

function comparePairedMetric(
  metric: Metric,
  runs: PairedRuns,
  options: PairedOptions,
  warnings: string[],
): MetricComparison | null {
  const beforeAll = valuesOf(runs.baseline, metric.name);
  const afterAll = valuesOf(runs.current, metric.name);
  // A pair counts where both of its runs have the figure (an experiment may skip one, with a note).
  const pairs = beforeAll.flatMap((old, i) =>
    old !== undefined && afterAll[i] !== undefined ? [[old, afterAll[i]!] as const] : [],
  );
  if (pairs.length === 0) return null;
  const before = pairs.map(([old]) => old);
  const after = pairs.map(([, now]) => now);
  const judged =
    metric.class === 'counter'
      ? judgeCounter(metric.name, before, after, metric.direction, warnings)
      : judgeVarying(before, after, metric.direction, options);
  const [old, now] = [median(before), median(after)];
  return {
    name: metric.name,
    unit: metric.unit,
    kind: metric.kind,
    class: metric.class,
    baseline: old,
    current: now,
    change: judged.change,
    difference: now - old,
    ci95: judged.ci95,
    intervalNote: judged.note,
    direction: metric.direction,
    verdict: judged.verdict,
    thresholdRatio: judged.thresholdRatio,
    gated: judged.gated,
    notGated: judged.notGated,
  };
}

/** Which metrics one side has that the other lacks, or whose unit or class moved: warnings. */
function contractWarnings(runs: PairedRuns): string[] {
  const before = metricsByName(runs.baseline[0]!);
  const after = metricsByName(runs.current[0]!);
  const warnings: string[] = [];
  const added = [...after.keys()].filter((name) => !before.has(name));
  const dropped = [...before.keys()].filter((name) => !after.has(name));
  if (added.length > 0) {
    warnings.push(`new in ${runs.currentLabel}, nothing to judge them by: ${added.join(', ')}`);
  }
  if (dropped.length > 0) warnings.push(`dropped by ${runs.currentLabel}: ${dropped.join(', ')}`);
  for (const [name, old] of before) {
    const now = after.get(name);
    if (now === undefined) continue;
    if (now.unit !== old.unit || now.class !== old.class) {
      warnings.push(
        `${name} is not compared: ${old.unit} (${old.class}) in ${runs.baselineLabel}, ` +
          `${now.unit} (${now.class}) in ${runs.currentLabel}`,
      );
    }
  }
  return warnings;
}

/**
 * How a set of workloads is judged: the threshold asked for, and the coverage of each metric's
 * interval, raised above 95% so that the whole family of gated varying figures together raises
 * a false alarm in at most FAMILY_ERROR of the runs of an unchanged build (Bonferroni).
 */
export interface PairedOptions {
  readonly thresholdRatio: number;
  readonly level: number;
  readonly family: number;
}

/** The false alarms a whole gate may raise, over all its varying figures together. */
export const FAMILY_ERROR = 0.05;

/** The interval of the relative change at `level`, or the widest the pairs allow. */
function intervalOfChange(ratios: readonly number[], level: number): readonly [number, number] {
  const sorted = [...ratios].sort((a, b) => a - b);
  const [low, high] = medianRanksAt(sorted.length, level);
  return [sorted[low - 1]! - 1, sorted[high - 1]! - 1];
}

/** The metrics of a workload that can fail by their ratios: directed, not counters. */
function varyingGated(runs: PairedRuns): number {
  const before = metricsByName(runs.baseline[0]!);
  return runs.current[0]!.metrics.filter((metric) => {
    const old = before.get(metric.name);
    return (
      old !== undefined &&
      old.unit === metric.unit &&
      old.class === metric.class &&
      metric.class !== 'counter' &&
      metric.direction !== 'informational'
    );
  }).length;
}

/** Every workload of one gate, each metric's interval at the level its family needs. */
export function comparePairedSet(
  workloads: readonly PairedRuns[],
  thresholdRatio: number,
): Comparison[] {
  const family = workloads.reduce((sum, runs) => sum + varyingGated(runs), 0);
  const level = Math.max(CI_LEVEL, 1 - FAMILY_ERROR / Math.max(1, family));
  return workloads.map((runs) => comparePaired(runs, { thresholdRatio, level, family }));
}

/** The sentence of the rule on each metric's interval, the coverage the pairs reach. */
function levelNote(pairs: number, options: PairedOptions): string {
  const [low] = medianRanksAt(pairs, options.level);
  const coverage = medianCiCoverage(pairs, low);
  const reached = coverage >= options.level;
  const percentOf = (p: number) => `${Number((p * 100).toFixed(2))}%`;
  return (
    `each interval at ${percentOf(coverage)}` +
    (options.family > 1 ? ` (a family of ${options.family} gated figures` : ' (') +
    (reached
      ? `${options.family > 1 ? ': ' : ''}${Number((FAMILY_ERROR * 100).toFixed(1))}% false alarms in all at most)`
      : `${options.family > 1 ? ': ' : ''}short of the ${percentOf(options.level)} it needs: more pairs make it so)`)
  );
}

/** Metric by metric, the change's verdict over the round pairs of one workload. */
export function comparePaired(
  runs: PairedRuns,
  options: PairedOptions = { thresholdRatio: DEFAULT_THRESHOLD, level: CI_LEVEL, family: 1 },
): Comparison {
  const { thresholdRatio } = options;
  if (runs.baseline.length === 0 || runs.baseline.length !== runs.current.length) {
    throw new Error(
      `paired runs of ${runs.experimentId} need as many baseline runs as current ones, ` +
        `got ${runs.baseline.length} and ${runs.current.length}`,
    );
  }
  const warnings = contractWarnings(runs);
  const before = metricsByName(runs.baseline[0]!);
  const comparable = metricsByName(runs.current[0]!);
  const metrics = [...comparable.values()].flatMap((metric) => {
    const old = before.get(metric.name);
    if (old === undefined || old.unit !== metric.unit || old.class !== metric.class) return [];
    const compared = comparePairedMetric(metric, runs, options, warnings);
    return compared === null ? [] : [compared];
  });
  const threshold = pairedThreshold(runs.baseline.length, thresholdRatio);
  const pairs =
    threshold.ratio === null
      ? `${threshold.note}: nothing varying gated`
      : `${threshold.note}; ${levelNote(runs.baseline.length, options)}`;
  return {
    experimentId: runs.experimentId,
    baselineFile: runs.baselineLabel,
    currentFile: runs.currentLabel,
    thresholdRatio,
    measurementThresholdRatio: threshold.ratio ?? thresholdRatio,
    gateTimings: true,
    metrics,
    warnings,
    failures: metrics.filter((metric) => metric.gated && metric.verdict === 'regressed'),
    rule:
      `the two builds in turns, each metric judged by its round pairs' ratios: ${pairs}; ` +
      'counters exact; informational never fail',
  };
}
