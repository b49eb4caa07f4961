/**
 * Bencher Metric Format (BMF) JSON, what `bencher run --adapter json --file F` reads:
 *
 *   { "<benchmark>": { "<measure slug>": { "value": n, "lower_value"?: n, "upper_value"?: n } } }
 *
 * A metric's dotted name is split at its last dot: `puzzle.A.always.msgsPerSec` is benchmark
 * `puzzle.A.always`, measure `msgs-per-sec` (a measure is identified by a kebab-case slug of at
 * most 64 characters; loglab names carry the unit last, so the slug names it). `value` is the
 * median, `lower_value` and `upper_value` the 95% interval of the median when there is one.
 * BMF has no direction: Bencher sets it per measure with a threshold (a lower boundary when
 * higher is better, an upper one when lower is), so the export lists the measures of each
 * direction for the caller to print. Informational metrics are left out, as for
 * github-action-benchmark.
 */
import type { NamedResults } from '../results-documents.js';
import { LabError } from '../errors.js';
import type { Metric } from '../results.js';
import type { BetterDirection, LeftOut } from './github-action-benchmark.js';

/** Bencher's limit on a measure slug. */
export const BENCHER_SLUG_MAX_CHARS = 64;

export interface BencherMetric {
  readonly value: number;
  readonly lower_value?: number;
  readonly upper_value?: number;
}

export type BencherMetricFormat = Record<string, Record<string, BencherMetric>>;

export interface BencherExport {
  readonly bmf: BencherMetricFormat;
  /** Measure slugs by the direction that is better, for the thresholds to set. */
  readonly measures: Readonly<Record<BetterDirection, readonly string[]>>;
  readonly informational: readonly LeftOut[];
}

/**
 * `msgsPerSec` → `msgs-per-sec`, `ratioBA` → `ratio-ba`,
 * `latencyNsP99` → `latency-ns-p99`.
 */
export function measureSlug(quantity: string): string {
  return quantity
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** The benchmark and measure a metric is filed under; a name without a dot is its experiment's. */
export function benchmarkAndMeasure(metric: Metric, experimentId: string): [string, string] {
  const dot = metric.name.lastIndexOf('.');
  const benchmark = dot < 0 ? experimentId : metric.name.slice(0, dot);
  const slug = measureSlug(metric.name.slice(dot + 1));
  if (slug === '' || slug.length > BENCHER_SLUG_MAX_CHARS) {
    throw new LabError(
      'INVALID_RESULTS',
      `export: ${metric.name} gives the measure slug ` +
        `'${slug}', which Bencher refuses (1 to ${BENCHER_SLUG_MAX_CHARS} characters); ` +
        'rename the metric',
    );
  }
  return [benchmark, slug];
}

function bencherMetric(metric: Metric): BencherMetric {
  if (metric.ci95 === undefined) return { value: metric.median };
  return { value: metric.median, lower_value: metric.ci95[0], upper_value: metric.ci95[1] };
}

export function toBencherMetricFormat(docs: readonly NamedResults[]): BencherExport {
  // Maps, not objects: a benchmark named `__proto__` must stay a key.
  const benchmarks = new Map<string, Map<string, BencherMetric>>();
  const measures = { higher: new Set<string>(), lower: new Set<string>() };
  const informational: LeftOut[] = [];
  for (const { results } of docs) {
    const id = results.experiment.id;
    const left = results.metrics.filter((metric) => metric.direction === 'informational');
    if (left.length > 0) informational.push({ experimentId: id, names: left.map((m) => m.name) });
    for (const metric of results.metrics) {
      if (metric.direction === 'informational') continue;
      const [benchmark, slug] = benchmarkAndMeasure(metric, id);
      const measuresOf = benchmarks.get(benchmark) ?? new Map<string, BencherMetric>();
      benchmarks.set(benchmark, measuresOf);
      if (measuresOf.has(slug)) {
        throw new LabError(
          'INVALID_RESULTS',
          `export: two metrics of ${id} give benchmark ` +
            `${benchmark}, measure ${slug}; rename one of them`,
        );
      }
      measuresOf.set(slug, bencherMetric(metric));
      measures[metric.direction].add(slug);
    }
  }
  const bmf: BencherMetricFormat = Object.fromEntries(
    [...benchmarks].map(([benchmark, byMeasure]) => [benchmark, Object.fromEntries(byMeasure)]),
  );
  const sorted = (slugs: Set<string>) => [...slugs].sort();
  const byDirection = { higher: sorted(measures.higher), lower: sorted(measures.lower) };
  return { bmf, measures: byDirection, informational };
}
