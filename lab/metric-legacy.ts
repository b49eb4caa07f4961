/**
 * The metric contract of a results file written before metrics carried a class and a direction
 * (docs/sample-report/*.json, older baselines): inferred here from kind, name and unit, the way
 * compare judged such files before, so that they stay readable. Nothing else guesses: metrics
 * written now declare both (lab/metric.ts), and compare says when a file's were inferred.
 *
 * Direction: a quantity named here decides first, because units such as `msgs`, `count` and
 * `ratio` go either way; then the unit (rates rise; times, sizes and per-message costs fall);
 * a metric neither rule knows is `informational`. Class: a `counter` whose figure the machine
 * decides (whole-disk device figures, syncs and loss windows under group commit) is a
 * `measurement`, as are device figures stored as timings; other counters stay counters, and
 * timings and ratios are timings.
 */
import type { Direction, Metric, MetricClass } from './metric-schema.js';

export type LegacyMetric = Omit<Metric, 'class' | 'direction'>;

const QUANTITY_DIRECTIONS: Readonly<Record<string, Direction>> = {
  msgsPerFsync: 'higher',
  reachedDepth: 'higher',
  // B's throughput over A's: the log's advantage, what loglab exists to keep.
  ratioBA: 'higher',
  lostAckedMsgs: 'lower',
  lossWindowMsgs: 'lower',
  filesPerGiB: 'lower',
};

const UNIT_RULES: readonly { readonly pattern: RegExp; readonly direction: Direction }[] = [
  // Rates: ops/s, msgs/s, MB/s, B/s, iops.
  { pattern: /\/s$|^iops$/, direction: 'higher' },
  // Times, alone or per something: ns, us, µs, ms, s, ns/MiB.
  { pattern: /^(ns|us|µs|ms|s)(\/.+)?$/, direction: 'lower' },
  // Costs per unit of work: B/msg, writes/msg, I/Os/msg, B/MiB, reads/lookup, B/read.
  { pattern: /^[a-z/]+\/(msg|MiB|GiB|lookup|read)$/i, direction: 'lower' },
  // Sizes: index bytes, bytes read, retention lag.
  { pattern: /^(B|KiB|MiB|GiB|TiB)$/, direction: 'lower' },
];

/** Figures the machine or the scheduler decides, though old files stored them as counters. */
const MACHINE_DECIDED = /^device|^(fsyncsPerMsg|msgsPerFsync|lossWindowMsgs)$/;

export function quantityOf(metricName: string): string {
  return metricName.slice(metricName.lastIndexOf('.') + 1);
}

export function inferredDirection(metric: Pick<Metric, 'name' | 'unit'>): Direction {
  const byQuantity = QUANTITY_DIRECTIONS[quantityOf(metric.name)];
  if (byQuantity !== undefined) return byQuantity;
  return UNIT_RULES.find((rule) => rule.pattern.test(metric.unit))?.direction ?? 'informational';
}

export function inferredClass(metric: Pick<Metric, 'name' | 'kind'>): MetricClass {
  if (MACHINE_DECIDED.test(quantityOf(metric.name))) return 'measurement';
  return metric.kind === 'counter' ? 'counter' : 'timing';
}

export function withInferredContract(metric: LegacyMetric): Metric {
  return { ...metric, class: inferredClass(metric), direction: inferredDirection(metric) };
}
