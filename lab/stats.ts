/**
 * Summary statistics for repeated measurements: robust centre and spread, outliers counted (never
 * dropped), and percentile-bootstrap confidence intervals for the median and for the relative
 * change between two sets of samples (what `compare` turns into a verdict).
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
import type { SeededRandom } from './random.js';

/** Resamples per bootstrap; 10,000 keeps the 2.5% and 97.5% tails stable to about 1%. */
export const BOOTSTRAP_RESAMPLES = 10_000;
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

export interface Summary {
  readonly count: number;
  readonly min: number;
  readonly median: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
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

function assertResamples(resamples: number): void {
  assert(Number.isInteger(resamples), `resamples must be an integer: ${resamples}`);
  assert(resamples > 0, `resamples must be positive: ${resamples}`);
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
    p90: quantileSorted(sorted, 0.9),
    p99: quantileSorted(sorted, 0.99),
    p999: quantileSorted(sorted, 0.999),
    max: max(sorted),
    mad: medianAbsoluteDeviation(sorted),
    cv: sorted.length < 2 || meanIsZero ? null : coefficientOfVariation(sorted),
    outliers: tukeyOutliers(sorted),
  };
}

/** Median of `count` values drawn with replacement from `source`, using `scratch` as space. */
function resampledMedian(
  source: readonly number[],
  scratch: Float64Array,
  random: SeededRandom,
): number {
  for (let i = 0; i < scratch.length; i++) scratch[i] = source[random.int(source.length)] ?? 0;
  scratch.sort();
  const middle = scratch.length >>> 1;
  if (scratch.length % 2 === 1) return scratch[middle] ?? 0;
  return ((scratch[middle - 1] ?? 0) + (scratch[middle] ?? 0)) / 2;
}

function percentileInterval(draws: Float64Array): readonly [number, number] {
  draws.sort();
  const sorted = Array.from(draws);
  return [quantileSorted(sorted, 0.025), quantileSorted(sorted, 0.975)];
}

/** Percentile-bootstrap 95% confidence interval of the median. */
export function bootstrapMedianCi(
  values: readonly number[],
  random: SeededRandom,
  resamples = BOOTSTRAP_RESAMPLES,
): Interval {
  assertSamples(values, 'bootstrapMedianCi');
  assertResamples(resamples);
  const scratch = new Float64Array(values.length);
  const draws = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) draws[r] = resampledMedian(values, scratch, random);
  return { estimate: median(values), ci95: percentileInterval(draws) };
}

/**
 * Relative change of the median from `baseline` to `current` (0.2 = 20% higher), with a
 * percentile-bootstrap 95% interval from resampling both sets independently.
 */
export function bootstrapRelativeChangeCi(
  baseline: readonly number[],
  current: readonly number[],
  random: SeededRandom,
  resamples = BOOTSTRAP_RESAMPLES,
): Interval {
  assertSamples(baseline, 'bootstrapRelativeChangeCi baseline');
  assertSamples(current, 'bootstrapRelativeChangeCi current');
  assert(baseline.every((value) => value > 0), 'relative change needs a positive baseline');
  assertResamples(resamples);
  const baselineScratch = new Float64Array(baseline.length);
  const currentScratch = new Float64Array(current.length);
  const draws = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    const before = resampledMedian(baseline, baselineScratch, random);
    draws[r] = resampledMedian(current, currentScratch, random) / before - 1;
  }
  return { estimate: median(current) / median(baseline) - 1, ci95: percentileInterval(draws) };
}
