/**
 * The statistics of `loglab history check`, in the manner of Bencher's t-test thresholds: the
 * history of a metric is the medians of its last N runs (the window) on one machine; a new run's
 * median is judged against the limits a Student's t distribution fitted to them puts at the
 * boundary's quantile. With boundary 0.99, a metric that did not change falls beyond its bad-side
 * limit in 1 check of 100.
 *
 * One difference from Bencher, which scales its t distribution by the window's population
 * standard deviation: here the limits are the exact prediction interval for one new value of the
 * same normal distribution, mean ± t(boundary, n − 1) · s · √(1 + 1/n) with s the sample standard
 * deviation, so the false-alarm rate is what the boundary says at every window size (Bencher's
 * is higher: its 0.99 limit sits at the 0.981 quantile of the new value's distribution at n = 5,
 * the 0.984 at n = 10).
 *
 * Medians of runs, not the rounds inside them: rounds of one run share the machine's state of the
 * moment, so their spread understates how far the next run may land; runs are what vary from
 * commit to commit.
 */
import { gammaln, mean, sampleStandardDeviation } from 'simple-statistics';
import { assert } from '../../storage/errors.js';

/** Runs in the window unless `--window` says otherwise, as in Bencher's examples. */
export const DEFAULT_WINDOW_RUNS = 10;
/** The quantile of the t distribution each limit sits at unless `--boundary` says otherwise. */
export const DEFAULT_BOUNDARY = 0.99;
/** The fewest runs with a spread: one run has none, and the limits need one. */
export const MIN_WINDOW_RUNS = 2;

/** Continued fractions converge in a few dozen terms for the arguments a t test gives. */
const MAX_FRACTION_TERMS = 300;
const FRACTION_EPSILON = 1e-15;
/** Keeps Lentz's method away from dividing by zero. */
const TINY = 1e-300;
/** Bisection halves the bracket this often: far past a double's precision. */
const BISECTION_STEPS = 200;

function clampAwayFromZero(value: number): number {
  return Math.abs(value) < TINY ? TINY : value;
}

/** The continued fraction of the incomplete beta function, by Lentz's method. */
function betaFraction(x: number, a: number, b: number): number {
  let c = 1;
  let d = 1 / clampAwayFromZero(1 - ((a + b) * x) / (a + 1));
  let fraction = d;
  for (let m = 1; m <= MAX_FRACTION_TERMS; m++) {
    const even = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 / clampAwayFromZero(1 + even * d);
    c = clampAwayFromZero(1 + even / c);
    fraction *= d * c;
    const odd = (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 / clampAwayFromZero(1 + odd * d);
    c = clampAwayFromZero(1 + odd / c);
    const step = d * c;
    fraction *= step;
    if (Math.abs(step - 1) < FRACTION_EPSILON) break;
  }
  return fraction;
}

/** The regularized incomplete beta function I_x(a, b). */
export function regularizedBeta(x: number, a: number, b: number): number {
  assert(a > 0 && b > 0, `regularizedBeta needs positive shapes: ${a}, ${b}`);
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const logFront =
    a * Math.log(x) + b * Math.log(1 - x) - (gammaln(a) + gammaln(b) - gammaln(a + b));
  // The fraction converges fast on this side of the mean of the beta distribution only.
  if (x < (a + 1) / (a + b + 2)) return (Math.exp(logFront) * betaFraction(x, a, b)) / a;
  return 1 - (Math.exp(logFront) * betaFraction(1 - x, b, a)) / b;
}

/** P(T ≤ t) for Student's t distribution with `degrees` degrees of freedom. */
export function studentTCdf(t: number, degrees: number): number {
  assert(degrees > 0, `degrees of freedom must be positive: ${degrees}`);
  const tail = 0.5 * regularizedBeta(degrees / (degrees + t * t), degrees / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The t with P(T ≤ t) = probability, for probability in [0.5, 1), by bisection. */
export function studentTQuantile(probability: number, degrees: number): number {
  assert(probability >= 0.5 && probability < 1, `probability must be in [0.5, 1): ${probability}`);
  let high = 1;
  while (studentTCdf(high, degrees) < probability) high *= 2;
  let low = 0;
  for (let step = 0; step < BISECTION_STEPS && high - low > 0; step++) {
    const middle = (low + high) / 2;
    if (middle === low || middle === high) break;
    if (studentTCdf(middle, degrees) < probability) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}

export interface TTestLimits {
  readonly mean: number;
  /** Sample standard deviation of the window. */
  readonly sd: number;
  readonly runs: number;
  /** t(boundary, runs − 1). */
  readonly t: number;
  readonly lower: number;
  readonly upper: number;
}

/** Why a window gives no limits. */
export type NoLimits = 'too few runs' | 'no spread';

/** The limits a new value is judged by, from the window's values; the reason when none. */
export function tTestLimits(values: readonly number[], boundary: number): TTestLimits | NoLimits {
  assert(boundary > 0.5 && boundary < 1, `boundary must be in (0.5, 1): ${boundary}`);
  assert(values.every(Number.isFinite), 'tTestLimits needs finite values');
  if (values.length < MIN_WINDOW_RUNS) return 'too few runs';
  const centre = mean([...values]);
  const sd = sampleStandardDeviation([...values]);
  if (sd === 0) return 'no spread';
  const runs = values.length;
  const t = studentTQuantile(boundary, runs - 1);
  const half = t * sd * Math.sqrt(1 + 1 / runs);
  return { mean: centre, sd, runs, t, lower: centre - half, upper: centre + half };
}
