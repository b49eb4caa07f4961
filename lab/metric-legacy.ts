/**
 * Which way is better for a metric: the one place `compare` (and anything else that calls a
 * change an improvement) learns it. A quantity named here decides first, because units such as
 * `msgs`, `count` and `ratio` go either way (`msgsPerFsync` should rise, `lostAckedMsgs` should
 * not); then the unit decides: rates rise, times, sizes and per-message costs fall.
 *
 * A metric neither rule knows gets `null`; compare then reports a change as `changed` and lets
 * it fail the gate, so an unknown metric is looked at rather than waved through — add it here.
 */
import type { Metric } from './results.js';

export type Direction = 'higher' | 'lower';

/** Quantities (a metric name's last segment, docs/report-contract.md) a unit cannot settle. */
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
  // Costs per unit of work: B/msg, writes/msg, fsyncs/msg, B/MiB, reads/lookup.
  { pattern: /^[a-z]+\/(msg|MiB|GiB|lookup)$/i, direction: 'lower' },
  // Sizes: index bytes, bytes read, retention lag.
  { pattern: /^(B|KiB|MiB|GiB|TiB)$/, direction: 'lower' },
];

export function quantityOf(metricName: string): string {
  return metricName.slice(metricName.lastIndexOf('.') + 1);
}

export function betterDirection(metric: Pick<Metric, 'name' | 'unit'>): Direction | null {
  const byQuantity = QUANTITY_DIRECTIONS[quantityOf(metric.name)];
  if (byQuantity !== undefined) return byQuantity;
  return UNIT_RULES.find((rule) => rule.pattern.test(metric.unit))?.direction ?? null;
}
