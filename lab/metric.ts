/**
 * Builders for results metrics: a timing metric from repeated samples (summary, outliers and a
 * bootstrap interval of the median) and a deterministic counter metric.
 */
import type { Metric } from './results.js';
import type { SeededRandom } from './random.js';
import { bootstrapMedianCi, summarize } from './stats.js';

export type Labels = Record<string, string | number | boolean>;

export interface SampleMetricOptions {
  readonly random: SeededRandom;
  readonly kind?: 'timing' | 'ratio';
  readonly labels?: Labels;
  readonly description?: string;
}

/**
 * Summarises per-repetition samples. The interval needs two samples at least; with one, the
 * metric carries none rather than a zero-width interval that would claim certainty.
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
    kind: options.kind ?? 'timing',
    median: summary.median,
    p50: summary.p50,
    p90: summary.p90,
    p99: summary.p99,
    p999: summary.p999,
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
  if (samples.length >= 2) {
    const { ci95 } = bootstrapMedianCi(samples, options.random);
    metric.ci95 = [ci95[0], ci95[1]];
  }
  if (options.labels !== undefined) metric.labels = { ...options.labels };
  if (options.description !== undefined) metric.description = options.description;
  return metric;
}

/** A deterministic figure (bytes per message, fsyncs per message): one value, no interval. */
export function counterMetric(
  name: string,
  unit: string,
  value: number,
  labels?: Labels,
  description?: string,
): Metric {
  const metric: Metric = { name, unit, kind: 'counter', median: value };
  if (labels !== undefined) metric.labels = { ...labels };
  if (description !== undefined) metric.description = description;
  return metric;
}
