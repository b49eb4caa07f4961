/**
 * A Measurement collects the repetitions of one design in one mode and turns them into results
 * metrics. The loops that fill it are in runner.ts.
 *
 * Per-operation latencies go into HDR histograms allocated once (3 significant digits, up to an
 * hour), so recording costs no allocation; each repetition records into its own histogram, whose
 * median becomes one sample before it is added to the totals.
 */
import { build, type Histogram } from 'hdr-histogram-js';
import { assert } from '../storage/errors.js';
import { type Labels, metricFromSamples } from './metric.js';
import type { SeededRandom } from '../storage/sim/prng.js';
import { medianCiRanks, supportedPercentiles } from './stats.js';
import type { Metric } from './results.js';

/**
 * `sync` and `async` are closed loops (the next operation starts when the previous one returns);
 * the open-loop modes start operations on a schedule. A figure never mixes modes: an `await`
 * adds its own cost.
 */
export type RunMode = 'sync' | 'async' | 'open-loop-sync' | 'open-loop-async';

export interface Repetition {
  readonly ops: number;
  readonly elapsedNs: number;
  readonly ratePerSec: number;
  /** Median latency of this repetition (from the intended start in open-loop modes). */
  readonly latencyNsP50: number;
  /** Open-loop modes: median time from the actual start; null in closed loops. */
  readonly serviceNsP50: number | null;
}

export interface RunSummary {
  readonly name: string;
  readonly mode: RunMode;
  readonly ops: number;
  readonly checksum: number;
  readonly ratePerSec: Metric;
  readonly latencyNs: Metric;
  /** Open-loop modes only: time from the actual start, to set beside `latencyNs`. */
  readonly serviceNs?: Metric;
  /** The metrics above, in order, ready to push into a results document. */
  readonly metrics: readonly Metric[];
}

/** An hour in nanoseconds: far beyond any single operation loglab measures. */
const HISTOGRAM_HIGHEST_NS = 3_600_000_000_000;
const HISTOGRAM_SIGNIFICANT_DIGITS = 3;

function newHistogram(): Histogram {
  return build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: HISTOGRAM_HIGHEST_NS,
    numberOfSignificantValueDigits: HISTOGRAM_SIGNIFICANT_DIGITS,
    autoResize: true,
  });
}

export function isOpenLoop(mode: RunMode): boolean {
  return mode === 'open-loop-sync' || mode === 'open-loop-async';
}

/** Repetitions of one design in one mode, accumulated across calls (and interleaved rounds). */
export class Measurement {
  readonly name: string;
  readonly mode: RunMode;
  readonly labels: Labels;
  readonly repetitions: Repetition[] = [];
  /** Latency of every measured operation, all repetitions. */
  readonly latencyNs: Histogram = newHistogram();
  /** Open-loop modes: time from the actual start of every operation. */
  readonly serviceNs: Histogram = newHistogram();
  /** The current repetition records here; the loops in runner.ts write to these directly. */
  readonly repetitionLatencyNs: Histogram = newHistogram();
  readonly repetitionServiceNs: Histogram = newHistogram();
  #checksum = 0;
  #nextIndex = 0;

  constructor(name: string, mode: RunMode, labels: Labels = {}) {
    assert(name.length > 0, 'a measurement needs a name');
    assert(!('mode' in labels), 'the label `mode` is set from the measurement mode');
    this.name = name;
    this.mode = mode;
    this.labels = { ...labels };
  }

  get checksum(): number {
    return this.#checksum;
  }

  get ops(): number {
    return this.latencyNs.totalCount;
  }

  /** The index the next operation gets; indexes run on across repetitions so rounds differ. */
  get nextIndex(): number {
    return this.#nextIndex;
  }

  /** Records that `count` more operation indexes were used (warm-up included). */
  advanceIndexes(count: number): void {
    assert(Number.isSafeInteger(count), `index count must be an integer: ${count}`);
    assert(count >= 0, `index count must be >= 0: ${count}`);
    this.#nextIndex += count;
  }

  /**
   * Folds an operation's result into the checksum: a sum modulo 2^32, so concurrent operations
   * finishing in any order give the same checksum.
   */
  consume(value: number): void {
    this.#checksum = (this.#checksum + (value | 0)) | 0;
  }

  /** Starts a repetition, dropping what a failed one may have left in its histograms. */
  beginRepetition(): void {
    this.repetitionLatencyNs.reset();
    this.repetitionServiceNs.reset();
  }

  /** Closes a repetition: its medians become samples, then its histograms join the totals. */
  endRepetition(ops: number, elapsedNs: number): Repetition {
    assert(ops > 0, `a repetition of ${this.name} ran no operation`);
    assert(elapsedNs > 0, `a repetition of ${this.name} took no time`);
    const repetition: Repetition = {
      ops,
      elapsedNs,
      ratePerSec: ops / (elapsedNs / 1e9),
      latencyNsP50: this.repetitionLatencyNs.getValueAtPercentile(50),
      serviceNsP50: isOpenLoop(this.mode)
        ? this.repetitionServiceNs.getValueAtPercentile(50)
        : null,
    };
    this.latencyNs.add(this.repetitionLatencyNs);
    this.serviceNs.add(this.repetitionServiceNs);
    this.repetitionLatencyNs.reset();
    this.repetitionServiceNs.reset();
    this.repetitions.push(repetition);
    return repetition;
  }

  summarize(random: SeededRandom): RunSummary {
    assert(this.repetitions.length > 0, `${this.name} has no repetition to summarise`);
    const labels = { ...this.labels, mode: this.mode };
    const ratePerSec = metricFromSamples(
      `${this.name}.ratePerSec`,
      'ops/s',
      this.repetitions.map((repetition) => repetition.ratePerSec),
      {
        random,
        class: 'timing',
        direction: 'higher',
        labels,
        description: `operations per second, one sample per repetition (${this.mode})`,
      },
    );
    const open = isOpenLoop(this.mode);
    const latencyWhat = open ? 'latency from the intended start' : 'latency';
    const latencyNs = this.#histogramMetric('latencyNs', random, labels, latencyWhat);
    const serviceNs = open
      ? this.#histogramMetric('serviceNs', random, labels, 'latency from the actual start')
      : null;
    return {
      name: this.name,
      mode: this.mode,
      ops: this.ops,
      checksum: this.#checksum,
      ratePerSec,
      latencyNs,
      ...(serviceNs === null ? {} : { serviceNs }),
      metrics: serviceNs === null ? [ratePerSec, latencyNs] : [ratePerSec, latencyNs, serviceNs],
    };
  }

  /**
   * A per-operation figure: `median` (= `p50`), the tail percentiles and the 95% interval are
   * over every operation, from the histogram, so the interval has thousands of samples where the
   * rounds give a handful; tails appear only with enough operations (stats.ts). `samples`, `mad`,
   * `cv` and the outlier counts are over the per-repetition medians: how far the figure moves
   * between repetitions, which `compare` judges.
   */
  #histogramMetric(
    field: 'latencyNs' | 'serviceNs',
    random: SeededRandom,
    labels: Labels,
    what: string,
  ): Metric {
    const histogram = this[field];
    const samples = this.repetitions.map((repetition) =>
      field === 'latencyNs' ? repetition.latencyNsP50 : (repetition.serviceNsP50 ?? 0),
    );
    const count = histogram.totalCount;
    const metric = metricFromSamples(`${this.name}.${field}`, 'ns', samples, {
      random,
      class: 'timing',
      direction: 'lower',
      labels,
      description:
        `${what} (${this.mode}); median, percentiles and interval over all ${count} ` +
        'operations, spread and samples over the per-repetition medians',
    });
    // A percentile is reported as its bucket's highest equivalent value, which can pass the
    // largest value actually recorded; no percentile is above the maximum.
    const at = (percentile: number) =>
      Math.min(histogram.getValueAtPercentile(percentile), histogram.maxValue);
    const centre = at(50);
    const ranks = medianCiRanks(count);
    const { ci95: _roundsInterval, p90: _p90, p99: _p99, p999: _p999, ...rest } = metric;
    return {
      ...rest,
      median: centre,
      p50: centre,
      ...supportedPercentiles(count, at),
      ...(ranks === null ? {} : { ci95: rankInterval(ranks, count, at, centre) }),
      max: histogram.maxValue,
      count,
    };
  }
}

/** The values at 1-based ranks `ranks` of `count`, widened to hold `centre` (bucket rounding). */
function rankInterval(
  ranks: readonly [number, number],
  count: number,
  at: (percentile: number) => number,
  centre: number,
): [number, number] {
  const low = Math.min(at((100 * ranks[0]) / count), centre);
  const high = Math.max(at((100 * ranks[1]) / count), centre);
  return [low, high];
}
