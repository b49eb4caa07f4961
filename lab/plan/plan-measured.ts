/**
 * This machine's figures for `loglab plan --measured`, read from results documents of the
 * index-density, scan-vs-lookup, segment-size and recovery experiments through those experiments'
 * declared metrics (experiments/metrics/) and the labels of docs/report-contract.md; never by the
 * middle of a name.
 *
 * Cold-cache figures are preferred where an experiment has both, because the plan asks what a
 * read costs when it reaches the disk; a warm figure is used, and said to be, when it is all
 * there is.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LabError } from '../errors.js';
import { formatBytes, formatDurationNs, formatNumber } from '../format.js';
import type { CostFigure, PlanCosts } from './plan-costs.js';
import { INDEX_DENSITY_METRICS } from '../../experiments/metrics/index-density.js';
import { RECOVERY_METRICS } from '../../experiments/metrics/recovery.js';
import { SCAN_VS_LOOKUP_METRICS } from '../../experiments/metrics/scan-vs-lookup.js';
import { SEGMENT_SIZE_METRICS } from '../../experiments/metrics/segment-size.js';
import { type MetricSpec, experimentOf } from '../metric-catalog.js';
import { type Metric, type Results, ResultsFormatError, readResultsFile } from '../results.js';
import { MiB } from '../../storage/units.js';

const NS_PER_SECOND = 1e9;
export const MEASURED_EXPERIMENTS: readonly string[] = [
  INDEX_DENSITY_METRICS,
  SCAN_VS_LOOKUP_METRICS,
  SEGMENT_SIZE_METRICS,
  RECOVERY_METRICS,
].map(experimentOf);

export interface MeasuredDocument {
  readonly file: string;
  readonly results: Results;
}

interface Found {
  readonly metric: Metric;
  readonly file: string;
}

/** Lookup latency at one index interval (index-density), for the interval recommendation. */
export interface IntervalFigure {
  readonly intervalBytes: number;
  readonly lookupNs: number;
  readonly indexBytesPerGiB: number | null;
  /**
   * How far the figure may move from run to run: the metric's ci95, else the range of its
   * samples; null when the document gives neither (then no difference counts as real).
   */
  readonly noiseNs: readonly [number, number] | null;
  /** Samples behind the interval: the metric's `samples`, else its `count`; 0 when unknown. */
  readonly sampleCount: number;
}

/** The segment-size experiment's figures at one segment size. */
export interface SegmentSizeFigure {
  readonly segmentBytes: number;
  readonly openNs: number | null;
  readonly lookupLatencyNs: number | null;
  readonly rollNs: number | null;
  readonly retentionLagBytes: number | null;
}

export interface MeasuredFigures {
  readonly files: readonly string[];
  /** Documents of other experiments, listed so nobody thinks they were used. */
  readonly ignored: readonly string[];
  readonly costs: Partial<PlanCosts>;
  /** The cache state and record size the interval figures were taken at. */
  readonly intervalBasis: string | null;
  readonly intervals: readonly IntervalFigure[];
  readonly segmentSizes: readonly SegmentSizeFigure[];
  /** True when the segment-size figures come from a --quick run (sizes divided by 64). */
  readonly segmentSizesQuick: boolean;
}

/** Results files named directly, or every `*.json` in a directory `loglab run --out` wrote. */
export function readMeasuredDocuments(paths: readonly string[]): MeasuredDocument[] {
  const files = paths.flatMap((entry) => {
    if (!fs.existsSync(entry)) {
      throw new LabError(
        'BAD_ARGUMENT',
        `--measured: expected a results file or a directory of ` +
          `them, got '${entry}', which does not exist`,
      );
    }
    if (!fs.statSync(entry).isDirectory()) return [entry];
    return fs
      .readdirSync(entry)
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map((name) => path.join(entry, name));
  });
  return files.map((file) => {
    try {
      return { file, results: readResultsFile(file) };
    } catch (error) {
      if (!(error instanceof ResultsFormatError)) throw error;
      throw new LabError('INVALID_RESULTS', `--measured: ${error.message}`);
    }
  });
}

const numericLabel = (metric: Metric, key: string): number | null => {
  const value = metric.labels?.[key];
  return typeof value === 'number' ? value : null;
};

/** The declared quantity's metrics in every document of its experiment. */
function find(docs: readonly MeasuredDocument[], spec: MetricSpec): Found[] {
  return docs.flatMap((doc) => spec.in(doc.results).map((metric) => ({ metric, file: doc.file })));
}

/** The cold figures when there are any, else the warm ones, else those without a cache label. */
function preferCold(found: readonly Found[]): Found[] {
  for (const cache of ['cold', 'warm']) {
    const matching = found.filter((entry) => entry.metric.labels?.cache === cache);
    if (matching.length > 0) return matching;
  }
  return [...found];
}

function nearest<T>(items: readonly T[], key: (item: T) => number | null, target: number): T[] {
  const keyed = items.filter((item) => key(item) !== null);
  if (keyed.length === 0) return [...items];
  const distance = (item: T) => Math.abs(Math.log((key(item)! + 1) / (target + 1)));
  const best = Math.min(...keyed.map(distance));
  return keyed.filter((item) => distance(item) === best);
}

function describe(found: Found): string {
  const labels = Object.entries(found.metric.labels ?? {})
    .map(([key, value]) => `${key}: ${String(value)}`)
    .join(', ');
  return `measured: ${found.metric.name} {${labels}} in ${found.file}`;
}

/** The metric's ci95; without one, the range of its samples (wider, never narrower). */
function noiseOf(metric: Metric): readonly [number, number] | null {
  if (metric.ci95 !== undefined) return metric.ci95;
  const samples = metric.samples ?? [];
  return samples.length < 2 ? null : [Math.min(...samples), Math.max(...samples)];
}

/** index-density figures at the record size nearest the plan's, cold if measured cold. */
function intervalFigures(docs: readonly MeasuredDocument[], recordBytes: number) {
  const latencies = nearest(
    preferCold(find(docs, INDEX_DENSITY_METRICS.lookupLatencyNs)),
    (entry) => numericLabel(entry.metric, 'recordSizeBytes'),
    recordBytes,
  );
  const sizes = find(docs, INDEX_DENSITY_METRICS.indexBytesPerGiB);
  const figures: Array<IntervalFigure & { readonly found: Found }> = [];
  for (const entry of latencies) {
    const intervalBytes = numericLabel(entry.metric, 'intervalBytes');
    if (intervalBytes === null) continue;
    const size = sizes.find(
      (candidate) =>
        numericLabel(candidate.metric, 'intervalBytes') === intervalBytes &&
        candidate.metric.labels?.recordSizeBytes === entry.metric.labels?.recordSizeBytes,
    );
    figures.push({
      intervalBytes,
      lookupNs: entry.metric.median,
      indexBytesPerGiB: size?.metric.median ?? null,
      noiseNs: noiseOf(entry.metric),
      sampleCount: entry.metric.samples?.length ?? entry.metric.count ?? 0,
      found: entry,
    });
  }
  return figures.sort((a, b) => a.intervalBytes - b.intervalBytes);
}

function lookupCost(
  docs: readonly MeasuredDocument[],
  intervals: ReturnType<typeof intervalFigures>,
  intervalBytes: number,
): CostFigure | null {
  const atInterval = nearest(intervals, (figure) => figure.intervalBytes, intervalBytes)[0];
  if (atInterval !== undefined) {
    return { value: atInterval.lookupNs, source: describe(atInterval.found) };
  }
  const lookups = preferCold(
    find(docs, SCAN_VS_LOOKUP_METRICS.timeNs).filter(
      (entry) => entry.metric.labels?.method === 'lookup',
    ),
  );
  const deepest = largestBy(lookups, (entry) => numericLabel(entry.metric, 'targetMiB'));
  return deepest === undefined ? null : { value: deepest.metric.median, source: describe(deepest) };
}

function largestBy<T>(items: readonly T[], key: (item: T) => number | null): T | undefined {
  return [...items].filter((item) => key(item) !== null).sort((a, b) => key(b)! - key(a)!)[0];
}

/** Bytes a scan read over the time it took: the deepest scan target, cold if measured cold. */
function scanCost(docs: readonly MeasuredDocument[]): CostFigure | null {
  const scans = preferCold(
    find(docs, SCAN_VS_LOOKUP_METRICS.timeNs).filter(
      (entry) => entry.metric.labels?.method === 'scan',
    ),
  );
  const deepest = largestBy(scans, (entry) => numericLabel(entry.metric, 'targetMiB'));
  if (deepest === undefined || deepest.metric.median <= 0) return null;
  const read = find(docs, SCAN_VS_LOOKUP_METRICS.bytesRead).find(
    (entry) => JSON.stringify(entry.metric.labels) === JSON.stringify(deepest.metric.labels),
  );
  const bytes = read?.metric.median ?? numericLabel(deepest.metric, 'targetMiB')! * MiB;
  const bytesPerSec = bytes / (deepest.metric.median / NS_PER_SECOND);
  return {
    value: bytesPerSec,
    source: `${describe(deepest)}: ${formatBytes(bytes)} in ${formatDurationNs(deepest.metric.median)}`,
  };
}

function recoveryOpens(docs: readonly MeasuredDocument[], state: string): Found[] {
  return find(docs, RECOVERY_METRICS.openNs).filter(
    (entry) => entry.metric.labels?.state === state,
  );
}

/**
 * Recovery's walk rate from the torn case with the longest tail: tail bytes over the whole open
 * time, so the fixed cost of opening is charged to the walk (the rate is a lower bound).
 */
function recoveryCost(docs: readonly MeasuredDocument[]): CostFigure | null {
  const torn = preferCold(recoveryOpens(docs, 'torn'));
  const longest = largestBy(torn, (entry) => numericLabel(entry.metric, 'tailBytes'));
  const tailBytes = longest === undefined ? null : numericLabel(longest.metric, 'tailBytes');
  if (longest === undefined || tailBytes === null || longest.metric.median <= 0) return null;
  return {
    value: tailBytes / (longest.metric.median / NS_PER_SECOND),
    source:
      `${describe(longest)}: ${formatBytes(tailBytes)} tail in ` +
      `${formatDurationNs(longest.metric.median)}`,
  };
}

/** Opening a cleanly closed log with the most segments measured, divided per segment. */
function openCost(docs: readonly MeasuredDocument[]): CostFigure | null {
  const clean = recoveryOpens(docs, 'clean');
  const most = largestBy(clean, (entry) => numericLabel(entry.metric, 'segments'));
  const segments = most === undefined ? null : numericLabel(most.metric, 'segments');
  if (most === undefined || segments === null || segments <= 0) return null;
  return {
    value: most.metric.median / segments,
    source:
      `${describe(most)}: ${formatDurationNs(most.metric.median)} for ` +
      `${formatNumber(segments)} segments`,
  };
}

function segmentSizeFigures(docs: readonly MeasuredDocument[]): SegmentSizeFigure[] {
  const bySize = new Map<number, Record<string, number>>();
  const { openNs, lookupLatencyNs, rollNs, retentionLagBytes } = SEGMENT_SIZE_METRICS;
  for (const spec of [openNs, lookupLatencyNs, rollNs, retentionLagBytes]) {
    const quantity = spec.quantity;
    for (const entry of preferCold(find(docs, spec))) {
      const segmentBytes = numericLabel(entry.metric, 'segmentBytes');
      if (segmentBytes === null) continue;
      const row = bySize.get(segmentBytes) ?? {};
      row[quantity] ??= entry.metric.median;
      bySize.set(segmentBytes, row);
    }
  }
  return [...bySize.entries()]
    .sort(([a], [b]) => a - b)
    .map(([segmentBytes, row]) => ({
      segmentBytes,
      openNs: row.openNs ?? null,
      lookupLatencyNs: row.lookupLatencyNs ?? null,
      rollNs: row.rollNs ?? null,
      retentionLagBytes: row.retentionLagBytes ?? null,
    }));
}

function costsFrom(
  docs: readonly MeasuredDocument[],
  intervals: ReturnType<typeof intervalFigures>,
  intervalBytes: number,
): Partial<PlanCosts> {
  const scan = scanCost(docs);
  const lookup = lookupCost(docs, intervals, intervalBytes);
  const recovery = recoveryCost(docs);
  const open = openCost(docs);
  return {
    ...(scan === null ? {} : { scanBytesPerSec: scan }),
    ...(lookup === null ? {} : { coldLookupNs: lookup }),
    ...(recovery === null ? {} : { recoveryBytesPerSec: recovery }),
    ...(open === null ? {} : { openNsPerSegment: open }),
  };
}

export function measuredFigures(
  docs: readonly MeasuredDocument[],
  recordBytes: number,
  intervalBytes: number,
): MeasuredFigures {
  const known = MEASURED_EXPERIMENTS;
  const intervals = intervalFigures(docs, recordBytes);
  const first = intervals[0]?.found.metric.labels;
  return {
    files: docs.filter((doc) => known.includes(doc.results.experiment.id)).map((doc) => doc.file),
    ignored: docs
      .filter((doc) => !known.includes(doc.results.experiment.id))
      .map((doc) => `${doc.file} (${doc.results.experiment.id})`),
    costs: costsFrom(docs, intervals, intervalBytes),
    intervalBasis:
      first === undefined
        ? null
        : `${String(first.cache ?? 'unlabelled')} cache, ` +
          `${String(first.recordSizeBytes)}-byte records`,
    intervals: intervals.map(({ found: _found, ...figure }) => figure),
    segmentSizes: segmentSizeFigures(docs),
    segmentSizesQuick: docs.some(
      (doc) => doc.results.experiment.id === 'segment-size' && doc.results.quick,
    ),
  };
}
