/**
 * An experiment's metrics, declared once in code (issue 15's results contract): each quantity
 * with its unit, class, direction and the label keys it carries. The experiment emits every
 * figure through its declaration, so a metric cannot leave with another unit or contract than
 * declared; charts, `plan --measured` and the contract test select figures through the same
 * declarations instead of repeating name strings.
 *
 *   export const PUZZLE_METRICS = declareMetrics('puzzle', {
 *     msgsPerSec: { unit: 'msgs/s', class: 'timing', direction: 'higher',
 *       labels: ['design', 'policy'] },
 *   });
 *   PUZZLE_METRICS.msgsPerSec.fromSamples('puzzle.A.always.msgsPerSec', samples, labels);
 *
 * A metric's name stays `<prefix>.<dims…>.<quantity>` (docs/report-contract.md): the declaration
 * checks the last segment, so names and baselines written before it keep their meaning. Two
 * declarations may share a quantity when its class differs by series (fsyncs per message are a
 * counter under `always`, a measurement under group commit): the key names the declaration,
 * `quantity` the last name segment.
 */
import { assert } from '../storage/errors.js';
import {
  type Labels,
  type SampleMetricOptions,
  counterMetric,
  measuredMetric,
  metricFromSamples,
} from './metric.js';
import type { Direction, Metric, MetricClass } from './metric-schema.js';

/** What `MetricSpec.in` reads of a results document (lab/results.ts's `Results`). */
interface MetricsDocument {
  readonly experiment: { readonly id: string };
  readonly metrics: readonly Metric[];
}

export interface MetricDeclaration {
  readonly unit: string;
  readonly class: MetricClass;
  readonly direction: Direction;
  /** A ratio of two figures of one run (kind `ratio`): compare gates it. Not for counters. */
  readonly ratio?: boolean;
  /** The label keys a metric of this quantity may carry. */
  readonly labels: readonly string[];
  /** The last segment of the metric's name; the declaration's key when left out. */
  readonly quantity?: string;
  /**
   * What a reader calls the quantity (`throughput`, `p99 send latency`): reports head tables
   * with it and keep the raw name beside it. Optional; reports fall back to the quantity.
   */
  readonly title?: string;
}

/** One declared quantity of one experiment: emits its metrics and finds them again. */
export class MetricSpec {
  readonly experimentId: string;
  readonly key: string;
  readonly quantity: string;
  readonly unit: string;
  readonly class: MetricClass;
  readonly direction: Direction;
  readonly ratio: boolean;
  /** The kind its metrics carry: `counter`, `ratio` for a within-run ratio, else `timing`. */
  readonly kind: Metric['kind'];
  readonly labelKeys: readonly string[];
  /** The declaration's human title; null when it has none. */
  readonly title: string | null;

  constructor(experimentId: string, key: string, declaration: MetricDeclaration) {
    assert(
      !(declaration.ratio === true && declaration.class === 'counter'),
      `${experimentId}.${key}: a counter is exact, not a ratio of timings`,
    );
    this.experimentId = experimentId;
    this.key = key;
    this.quantity = declaration.quantity ?? key;
    this.unit = declaration.unit;
    this.class = declaration.class;
    this.direction = declaration.direction;
    this.ratio = declaration.ratio === true;
    this.kind = this.class === 'counter' ? 'counter' : this.ratio ? 'ratio' : 'timing';
    this.labelKeys = [...declaration.labels];
    assert(
      declaration.title === undefined || declaration.title.trim() !== '',
      `${experimentId}.${key}: a title, when given, is not blank`,
    );
    this.title = declaration.title ?? null;
  }

  /** A counter's one exact value. */
  counter(name: string, value: number, labels: Labels, description?: string): Metric {
    assert(this.class === 'counter', `${this.#what()} is a ${this.class}, not a counter`);
    this.#check(name, labels);
    return counterMetric(name, this.unit, value, this.direction, labels, description);
  }

  /** One value the machine decided (no samples): compare judges it by the threshold alone. */
  measured(name: string, value: number, labels: Labels, description?: string): Metric {
    this.#check(name, labels);
    return measuredMetric(name, this.unit, value, this.#varying(), labels, description);
  }

  /** Per-round samples, summarised with their interval (lab/metric.ts metricFromSamples). */
  fromSamples(
    name: string,
    samples: readonly number[],
    labels: Labels,
    description?: string,
    options: Pick<SampleMetricOptions, 'random'> = {},
  ): Metric {
    this.#check(name, labels);
    return metricFromSamples(name, this.unit, samples, {
      ...this.#varying(),
      ...options,
      labels,
      ...(description === undefined ? {} : { description }),
    });
  }

  /**
   * A metric the runner summarised (`<design>.latencyNs`, `<design>.ratePerSec`) under this
   * declaration's name and unit; its figures are kept, and its direction must agree.
   */
  adopt(name: string, metric: Metric, labels?: Labels): Metric {
    assert(this.class !== 'counter', `${this.#what()} is a counter; the runner measures timings`);
    assert(
      metric.direction === this.direction,
      `${this.#what()} is ${this.direction} is better, the runner's ${metric.name} ` +
        `${metric.direction}`,
    );
    const result: Metric = {
      ...metric,
      name,
      unit: this.unit,
      kind: this.kind,
      class: this.class,
    };
    if (labels !== undefined) result.labels = { ...labels };
    this.#check(name, result.labels ?? {});
    return result;
  }

  /** Whether a metric of a results document is one of this declaration's. */
  matches(metric: Metric): boolean {
    return metric.name.endsWith(`.${this.quantity}`) && metric.class === this.class;
  }

  /** This declaration's metrics in a document of its experiment (none for another one). */
  in(results: MetricsDocument): Metric[] {
    if (results.experiment.id !== this.experimentId) return [];
    return results.metrics.filter((metric) => this.matches(metric));
  }

  #varying() {
    assert(this.class !== 'counter', `${this.#what()} is a counter: emit it with counter()`);
    return { class: this.class, direction: this.direction, ratio: this.ratio };
  }

  #check(name: string, labels: Labels): void {
    assert(
      name.endsWith(`.${this.quantity}`),
      `${this.#what()}: metric ${name} must end in .${this.quantity}`,
    );
    const undeclared = Object.keys(labels).filter((key) => !this.labelKeys.includes(key));
    assert(
      undeclared.length === 0,
      `${this.#what()}: label(s) ${undeclared.join(', ')} of ${name} are not declared`,
    );
  }

  #what(): string {
    return `${this.experimentId}.${this.key}`;
  }
}

export type MetricCatalog<K extends string = string> = { readonly [Key in K]: MetricSpec };

/** Declares an experiment's quantities; the result is what it emits through. */
export function declareMetrics<const T extends Record<string, MetricDeclaration>>(
  experimentId: string,
  declarations: T,
): MetricCatalog<keyof T & string> {
  const catalog: Record<string, MetricSpec> = {};
  for (const [key, declaration] of Object.entries(declarations)) {
    catalog[key] = new MetricSpec(experimentId, key, declaration);
  }
  return catalog as MetricCatalog<keyof T & string>;
}

/** The experiment a catalog declares metrics for. */
export function experimentOf(catalog: MetricCatalog): string {
  const ids = new Set(Object.values(catalog).map((spec) => spec.experimentId));
  assert(ids.size === 1, `a catalog declares one experiment's metrics, not ${[...ids].join(', ')}`);
  return [...ids][0]!;
}

/**
 * What a reader calls each titled quantity of a catalog, written into its results documents so
 * that reports head tables with it without the catalog. Two declarations of one quantity share
 * its title.
 */
export function titlesOf(catalog: MetricCatalog): Record<string, string> {
  const titles: Record<string, string> = {};
  for (const spec of Object.values(catalog)) {
    if (spec.title === null) continue;
    const given = titles[spec.quantity];
    assert(
      given === undefined || given === spec.title,
      `${spec.experimentId}.${spec.quantity} is titled both '${given}' and '${spec.title}'`,
    );
    titles[spec.quantity] = spec.title;
  }
  return titles;
}

/** The declaration a metric was emitted through, or undefined when none of the catalog's fits. */
export function declarationOf(catalog: MetricCatalog, metric: Metric): MetricSpec | undefined {
  return Object.values(catalog).find(
    (spec) =>
      spec.matches(metric) &&
      spec.unit === metric.unit &&
      spec.direction === metric.direction &&
      (metric.kind === 'ratio') === spec.ratio,
  );
}

/** Throws when a metric was not emitted through one of the catalog's declarations. */
export function assertDeclared(
  experimentId: string,
  catalog: MetricCatalog,
  metrics: readonly Metric[],
): void {
  const undeclared = metrics.filter((metric) => declarationOf(catalog, metric) === undefined);
  assert(
    undeclared.length === 0,
    `${experimentId} emitted metrics its catalog does not declare ` +
      `(name's last segment, unit, class, direction, kind): ${undeclared
        .map(
          (metric) =>
            `${metric.name} (${metric.unit}, ${metric.class}, ${metric.direction}, ${metric.kind})`,
        )
        .join('; ')}`,
  );
}
