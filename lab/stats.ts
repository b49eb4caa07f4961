/**
 * Summary statistics for repeated measurements: robust centre and spread, outliers counted (never
 * dropped), a distribution-free confidence interval for the median, and a percentile-bootstrap
 * interval for the relative change between two sets of samples (what `compare` judges with).
 *
 * The median's interval is exact at every sample size it is given for: two order statistics
 * x(j) ≤ m ≤ x(n+1-j), whose coverage is a binomial sum and needs no assumption about the
 * distribution. Below MEDIAN_CI_MIN_SAMPLES no pair reaches 95% (at n = 5, [min, max] covers
 * 93.8%), so there is no interval at all: a percentile bootstrap of 2–5 rounds is [min, max] and
 * covers 50–94%. Percentiles are given only with enough samples to put one beyond them
 * (PERCENTILE_MIN_SAMPLES): a p99 of five values is their maximum under another name.
 *
 * Quantiles use simple-statistics' linear interpolation (type 7 in R, numpy's default), so a
 * hand computation with that rule reproduces every figure here.
 */
import {
  coefficientOfVariation,
  max,
  median as ssMedian,
  medianAbsoluteDeviation,
  min,
  quantileSorted,
} from 'simple-statistics';
import { assert } from '../storage/errors.js';

/** Tukey's fences: beyond 1.5 IQR is a mild outlier, beyond 3 IQR a severe one. */
const MILD_FENCE_IQR = 1.5;
const SEVERE_FENCE_IQR = 3;

export interface OutlierReport {
  /** The fences in the samples' unit: [q1 - 3 IQR, q1 - 1.5 IQR, q3 + 1.5 IQR, q3 + 3 IQR]. */
  readonly fences: readonly [number, number, number, number];
  readonly lowSevere: number;
  readonly lowMild: number;
  readonly highMild: number;
  readonly highSevere: number;
}

/** Confidence of every interval loglab reports for a median. */
export const CI_LEVEL = 0.95;
/** The fewest samples whose [min, max] covers the median with CI_LEVEL: 1 - 2/2^6 = 96.9%. */
export const MEDIAN_CI_MIN_SAMPLES = 6;
/** Above this many samples the binomial ranks come from the normal approximation. */
const EXACT_RANKS_MAX_SAMPLES = 1_000;
/** The standard normal quantile at 97.5%. */
const Z_975 = 1.959963984540054;
/**
 * Samples a percentile needs before it is reported: p99 needs 100 (one sample beyond it), p999
 * needs 1,000, p90 needs 10.
 */
export const PERCENTILE_MIN_SAMPLES = { p90: 10, p99: 100, p999: 1_000 } as const;
export type TailPercentile = keyof typeof PERCENTILE_MIN_SAMPLES;
export const TAIL_PERCENTILES: Readonly<Record<TailPercentile, number>> = {
  p90: 90,
  p99: 99,
  p999: 99.9,
};

export interface Summary {
  readonly count: number;
  readonly min: number;
  /** The 50th percentile of the samples; `p50` is the same number, never another one. */
  readonly median: number;
  readonly p50: number;
  /** Present with PERCENTILE_MIN_SAMPLES.p90 samples or more. */
  readonly p90?: number;
  /** Present with PERCENTILE_MIN_SAMPLES.p99 samples or more. */
  readonly p99?: number;
  /** Present with PERCENTILE_MIN_SAMPLES.p999 samples or more. */
  readonly p999?: number;
  readonly max: number;
  /** Median absolute deviation, unscaled (not multiplied by 1.4826). */
  readonly mad: number;
  /** Sample standard deviation over the mean; null for fewer than two samples or a zero mean. */
  readonly cv: number | null;
  readonly outliers: OutlierReport;
}

export interface Interval {
  readonly estimate: number;
  readonly ci95: readonly [number, number];
}

function assertSamples(values: readonly number[], what: string): void {
  assert(values.length > 0, `${what} needs at least one sample`);
  assert(values.every(Number.isFinite), `${what} needs finite samples`);
}

function sortedCopy(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

export function median(values: readonly number[]): number {
  assertSamples(values, 'median');
  return ssMedian([...values]);
}

/** The p-th percentile, p in [0, 100], by linear interpolation between closest ranks. */
export function percentile(values: readonly number[], p: number): number {
  assertSamples(values, 'percentile');
  assert(p >= 0 && p <= 100, `percentile must be in [0, 100]: ${p}`);
  return quantileSorted(sortedCopy(values), p / 100);
}

/** Counts samples beyond Tukey's fences; the samples themselves are left alone. */
export function tukeyOutliers(values: readonly number[]): OutlierReport {
  assertSamples(values, 'tukeyOutliers');
  const sorted = sortedCopy(values);
  const q1 = quantileSorted(sorted, 0.25);
  const q3 = quantileSorted(sorted, 0.75);
  const iqr = q3 - q1;
  const fences = [
    q1 - SEVERE_FENCE_IQR * iqr,
    q1 - MILD_FENCE_IQR * iqr,
    q3 + MILD_FENCE_IQR * iqr,
    q3 + SEVERE_FENCE_IQR * iqr,
  ] as const;
  let lowSevere = 0;
  let lowMild = 0;
  let highMild = 0;
  let highSevere = 0;
  for (const value of sorted) {
    if (value < fences[0]) lowSevere++;
    else if (value < fences[1]) lowMild++;
    else if (value > fences[3]) highSevere++;
    else if (value > fences[2]) highMild++;
  }
  return { fences, lowSevere, lowMild, highMild, highSevere };
}

/** The tail percentiles `count` samples support, each read by `at(percentile in [0, 100])`. */
export function supportedPercentiles(
  count: number,
  at: (percentile: number) => number,
): { p90?: number; p99?: number; p999?: number } {
  assert(Number.isSafeInteger(count), `count must be an integer: ${count}`);
  const tails: { p90?: number; p99?: number; p999?: number } = {};
  for (const name of Object.keys(PERCENTILE_MIN_SAMPLES) as TailPercentile[]) {
    if (count >= PERCENTILE_MIN_SAMPLES[name]) tails[name] = at(TAIL_PERCENTILES[name]);
  }
  return tails;
}

export function summarize(values: readonly number[]): Summary {
  assertSamples(values, 'summarize');
  const sorted = sortedCopy(values);
  const centre = quantileSorted(sorted, 0.5);
  const meanIsZero = sorted.every((value) => value === 0);
  return {
    count: sorted.length,
    min: min(sorted),
    median: centre,
    p50: centre,
    ...supportedPercentiles(sorted.length, (p) => quantileSorted(sorted, p / 100)),
    max: max(sorted),
    mad: medianAbsoluteDeviation(sorted),
    cv: sorted.length < 2 || meanIsZero ? null : coefficientOfVariation(sorted),
    outliers: tukeyOutliers(sorted),
  };
}

/**
 * Ranks (1-based) of the order statistics [x(j), x(n+1-j)] that bound the median with at least
 * CI_LEVEL coverage, the narrowest such symmetric pair; null below MEDIAN_CI_MIN_SAMPLES.
 * Coverage is P(j ≤ B ≤ n - j) for B ~ Binomial(n, 1/2), the number of samples below the true
 * median: exact up to EXACT_RANKS_MAX_SAMPLES, the normal approximation above (where it errs by
 * well under a rank).
 */
export function medianCiRanks(count: number): readonly [number, number] | null {
  assert(Number.isSafeInteger(count), `count must be an integer: ${count}`);
  assert(count >= 0, `count must be >= 0: ${count}`);
  if (count < MEDIAN_CI_MIN_SAMPLES) return null;
  if (count > EXACT_RANKS_MAX_SAMPLES) {
    const j = Math.max(1, Math.floor((count - Z_975 * Math.sqrt(count)) / 2));
    return [j, count + 1 - j];
  }
  return exactRanks(count, CI_LEVEL);
}

/**
 * The narrowest symmetric order-statistic interval with at least `level` coverage of the median,
 * computed exactly; [x(1), x(n)] when even that falls short (`medianCiCoverage` says how far).
 */
export function medianRanksAt(count: number, level: number): readonly [number, number] {
  assert(Number.isSafeInteger(count) && count >= 1, `count must be a positive integer: ${count}`);
  assert(level > 0 && level < 1, `a level is a probability: ${level}`);
  const [j, k] = exactRanks(count, level);
  return j === 0 ? [1, count] : [j, k];
}

/** The largest j with P(B ≤ j - 1) ≤ (1 - level) / 2; pmf in log space so large counts do not underflow. */
function exactRanks(count: number, level: number): readonly [number, number] {
  const tail = (1 - level) / 2;
  let logChoose = 0;
  let below = 0;
  let j = 0;
  for (let i = 0; i < count; i++) {
    if (i > 0) logChoose += Math.log(count - i + 1) - Math.log(i);
    below += Math.exp(logChoose - count * Math.LN2);
    if (below > tail) break;
    j = i + 1;
  }
  return [j, count + 1 - j];
}

/** Coverage of [x(j), x(n+1-j)] for the median of `count` samples: 1 - 2 P(B ≤ j - 1). */
export function medianCiCoverage(count: number, j: number): number {
  assert(j >= 1 && 2 * j <= count + 1, `ranks ${j}, ${count + 1 - j} are not an interval`);
  let logChoose = 0;
  let below = 0;
  for (let i = 0; i < j; i++) {
    if (i > 0) logChoose += Math.log(count - i + 1) - Math.log(i);
    below += Math.exp(logChoose - count * Math.LN2);
  }
  return 1 - 2 * below;
}

/**
 * Exact distribution-free 95% interval of the median from order statistics; null below
 * MEDIAN_CI_MIN_SAMPLES, where no interval of the samples reaches 95%.
 */
export function medianCi(values: readonly number[]): Interval | null {
  assertSamples(values, 'medianCi');
  const ranks = medianCiRanks(values.length);
  if (ranks === null) return null;
  const sorted = sortedCopy(values);
  const low = sorted[ranks[0] - 1];
  const high = sorted[ranks[1] - 1];
  assert(low !== undefined && high !== undefined, `ranks ${ranks.join(', ')} out of range`);
  return { estimate: quantileSorted(sorted, 0.5), ci95: [low, high] };
}
