/**
 * What a reader calls a metric: the human title its experiment's catalog declares
 * (experiments/metrics/, `title`), found by experiment id and the metric's declaration, else by
 * its quantity; the raw quantity when no declaration gives a title. Tables head each quantity
 * with the title and keep the raw name beside it.
 */
import { CI_COUNTERS_METRICS } from '../experiments/metrics/ci-counters.js';
import { CRASH_SAFETY_METRICS } from '../experiments/metrics/crash-safety.js';
import { DURABILITY_METRICS } from '../experiments/metrics/durability.js';
import { INDEX_DENSITY_METRICS } from '../experiments/metrics/index-density.js';
import { PAGE_CACHE_METRICS } from '../experiments/metrics/page-cache.js';
import { PUZZLE_METRICS } from '../experiments/metrics/puzzle.js';
import { QUEUE_DEPTH_METRICS } from '../experiments/metrics/queue-depth.js';
import { RECOVERY_METRICS } from '../experiments/metrics/recovery.js';
import { SCAN_VS_LOOKUP_METRICS } from '../experiments/metrics/scan-vs-lookup.js';
import { SEGMENT_SIZE_METRICS } from '../experiments/metrics/segment-size.js';
import { WRITE_AMPLIFICATION_METRICS } from '../experiments/metrics/write-amplification.js';
import {
  type MetricCatalog,
  type MetricSpec,
  declarationOf,
  experimentOf,
} from '../lab/metric-catalog.js';
import type { Metric } from '../lab/results.js';

const CATALOGS: ReadonlyMap<string, MetricCatalog> = new Map(
  [
    CI_COUNTERS_METRICS,
    CRASH_SAFETY_METRICS,
    DURABILITY_METRICS,
    INDEX_DENSITY_METRICS,
    PAGE_CACHE_METRICS,
    PUZZLE_METRICS,
    QUEUE_DEPTH_METRICS,
    RECOVERY_METRICS,
    SCAN_VS_LOOKUP_METRICS,
    SEGMENT_SIZE_METRICS,
    WRITE_AMPLIFICATION_METRICS,
  ].map((catalog): [string, MetricCatalog] => [experimentOf(catalog), catalog]),
);

function titled(specs: readonly (MetricSpec | undefined)[]): string | null {
  return specs.find((spec) => spec?.title !== null && spec?.title !== undefined)?.title ?? null;
}

/**
 * The title of `quantity` in `experimentId`'s catalog; `metric`, when given, picks the exact
 * declaration first (two may share a quantity). Falls back to the quantity itself.
 */
export function metricTitle(experimentId: string, quantity: string, metric?: Metric): string {
  const catalog = CATALOGS.get(experimentId);
  if (catalog === undefined) return quantity;
  const exact = metric === undefined ? undefined : declarationOf(catalog, metric);
  const byQuantity = Object.values(catalog).filter((spec) => spec.quantity === quantity);
  return titled([exact, ...byQuantity]) ?? quantity;
}
