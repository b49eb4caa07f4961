/**
 * Which charts each experiment gets. Every panel plots a quantity the experiment declares in its
 * catalog (experiments/metrics/), referenced, not spelled; label fields are the rest of the
 * contract, written down in docs/report-contract.md. A chart whose quantity an experiment did not
 * record is left out, and an experiment with none of its charts gets the generic chart.
 */
import { BATCHING_METRICS } from '../../experiments/metrics/batching.js';
import { CRASH_SAFETY_METRICS } from '../../experiments/metrics/crash-safety.js';
import { DURABILITY_METRICS } from '../../experiments/metrics/durability.js';
import { INDEX_DENSITY_METRICS } from '../../experiments/metrics/index-density.js';
import { PAGE_CACHE_METRICS } from '../../experiments/metrics/page-cache.js';
import { PUZZLE_METRICS } from '../../experiments/metrics/puzzle.js';
import { QUEUE_DEPTH_METRICS } from '../../experiments/metrics/queue-depth.js';
import { RECOVERY_METRICS } from '../../experiments/metrics/recovery.js';
import { SCAN_VS_LOOKUP_METRICS } from '../../experiments/metrics/scan-vs-lookup.js';
import { SEGMENT_SIZE_METRICS } from '../../experiments/metrics/segment-size.js';
import { WRITE_AMPLIFICATION_METRICS } from '../../experiments/metrics/write-amplification.js';
import type { MetricSpec } from '../../lab/metric-catalog.js';
import { byLabel, byQuantity, chart, chartsOf, plot, type ChartDef } from './chart-types.js';
import type { PanelDef } from './chart-types.js';

const POLICY = byLabel('policy', 'durability policy', 'nominal');
/**
 * The puzzle's comparisons; each category names the guarantee it compares under, how deletes are
 * kept included. Design B saving its head at each delete is a series of its own (`variant`).
 */
const COMPARISON = byLabel('comparison', 'comparison: the guarantee', 'nominal');
const PUZZLE_SERIES = 'design (A = slot file, B = log)';
/**
 * The open-loop phase's offered load, a share of the series' own closed-loop rate: lines of
 * series whose closed-loop rates differ tenfold still share an axis (the rate is in the labels).
 */
const OFFERED = byLabel('offeredPct', 'offered load (% of the closed-loop rate)', 'quantitative');

/**
 * Latency from the intended send time against offered load: the median, and beside it the 99th
 * percentile of the rates that sent the 100 sends it needs. One statistic per panel, so no line
 * turns from a median into a p99 as the sample count grows.
 */
function openLoopChart(
  latencyNs: MetricSpec,
  title: string,
  series: readonly string[],
  seriesTitle: string,
): ChartDef {
  const latency = (statistic: 'median' | 'p99', yTitle: string) => plot(latencyNs, {
    statistic, yTitle, x: OFFERED, series, seriesTitle, mark: 'line' });
  return chart('open-loop-latency', title,
    latency('median', 'median latency from the intended send'),
    latency('p99', 'p99 latency from the intended send'));
}

/**
 * Batching: a line per store and codec against messages per batch, a facet per message size,
 * body and policy. Built as a plain definition, one panel each.
 */
function batchingChart(id: string, title: string, howToRead: string, one: PanelDef): ChartDef {
  const def = { id, title, howToRead, panels: [one] };
  return def;
}
const BATCH_SIZE = byLabel('batchSize', 'messages per batch');
const BATCHING_LINES = { x: BATCH_SIZE, series: ['store', 'codec'], seriesTitle: 'store · codec',
  facet: { field: 'workload', title: 'messages, policy' }, mark: 'line' } as const;
const BATCHING_CHARTS: readonly ChartDef[] = [
  batchingChart('bytes-per-message', 'Bytes reaching the device per message, against batch size',
    'Lower is better: one line per store and codec; loglab\'s one-record appends are the point ' +
    'at 1; hollow marks are the disk models replaying the same writes.',
    plot(BATCHING_METRICS.deviceBytesPerMsg, { yTitle: 'device bytes per message',
      ...BATCHING_LINES })),
  batchingChart('throughput', 'Messages appended per second, against batch size',
    'Higher is faster: one line per store and codec, one facet per message size, body and ' +
    'policy; under always each batch waits for one fdatasync.',
    plot(BATCHING_METRICS.msgsPerSec, { yTitle: 'messages per second', ...BATCHING_LINES })),
];

export const CHART_TABLE: Readonly<Record<string, readonly ChartDef[]>> = Object.fromEntries([
  chartsOf(PUZZLE_METRICS, [
    chart('throughput', 'Messages stored per second: three comparisons, each under its guarantee',
      plot(PUZZLE_METRICS.msgsPerSec, { yTitle: 'throughput', x: COMPARISON,
        series: ['design', 'variant'], seriesTitle: PUZZLE_SERIES, mark: 'bar' })),
    chart('send-latency', 'Latency of one send, by comparison and guarantee',
      plot(PUZZLE_METRICS.sendLatencyNs, { yTitle: 'median send latency', x: COMPARISON,
        series: ['design', 'variant'], seriesTitle: PUZZLE_SERIES, mark: 'bar' })),
    openLoopChart(PUZZLE_METRICS.openLoopLatencyNs,
      'Send latency from the intended send time against offered load (open loop)',
      ['design', 'policy'], `${PUZZLE_SERIES} · policy`),
  ]),
  chartsOf(WRITE_AMPLIFICATION_METRICS, [
    chart('bytes-per-message', 'Bytes reaching the device per 1 KiB message',
      plot(WRITE_AMPLIFICATION_METRICS.deviceBytesPerMsg, { yTitle: 'device bytes per message',
        x: byLabel('design', 'design', 'nominal'), series: ['share'], seriesTitle: 'share',
        facet: { field: 'policy', title: 'durability policy' }, mark: 'bar' })),
  ]),
  chartsOf(QUEUE_DEPTH_METRICS, [
    chart('iops', 'I/O operations per second against queue depth',
      plot(QUEUE_DEPTH_METRICS.iops, { yTitle: 'IOPS', x: byLabel('depth', 'queue depth'),
        series: ['method', 'engine'], mark: 'line' })),
    chart('p99-latency', '99th-percentile latency against queue depth',
      plot(QUEUE_DEPTH_METRICS.latencyNs, { statistic: 'p99', yTitle: 'p99 latency',
        x: byLabel('depth', 'queue depth'), series: ['method', 'engine'], mark: 'line' })),
  ]),
  chartsOf(PAGE_CACHE_METRICS, [
    chart('latency', 'Latency of a write into the page cache and of reads, by read kind',
      plot(PAGE_CACHE_METRICS.latencyNs, { yTitle: 'median latency',
        x: byLabel('readKind', 'read kind', 'nominal'), mark: 'bar' })),
  ]),
  chartsOf(DURABILITY_METRICS, [
    chart('throughput-latency', 'Throughput against p99 send latency, per durability policy',
      plot(DURABILITY_METRICS.sendLatencyNs, { statistic: 'p99', yTitle: 'p99 send latency',
        x: byQuantity(DURABILITY_METRICS.msgsPerSec, 'throughput'), series: ['policy', 'maxDelayMs', 'groupSync'],
        seriesTitle: 'policy · max delay · sync', order: 'producers', mark: 'point' })),
    chart('msgs-per-fsync', 'Messages covered by one fsync, against concurrent producers',
      plot(DURABILITY_METRICS.msgsPerFsync, { yTitle: 'messages per fsync',
        x: byLabel('producers', 'concurrent producers'), series: ['policy', 'maxDelayMs', 'groupSync'],
        seriesTitle: 'policy · max delay · sync', mark: 'line' })),
    openLoopChart(DURABILITY_METRICS.openLoopLatencyNs, 'Send latency from the intended send time against offered load (open loop, ' +
      'one producer)', ['policy', 'maxDelayMs', 'groupSync'], 'policy · max delay · sync'),
  ]),
  chartsOf(INDEX_DENSITY_METRICS, [
    chart('index-size', 'Index bytes per GiB of log against index interval',
      plot(INDEX_DENSITY_METRICS.indexBytesPerGiB, { yTitle: 'index size per GiB of log',
        x: byLabel('intervalBytes', 'index interval'), series: ['recordSizeBytes'],
        seriesTitle: 'record size', mark: 'line' })),
    chart('size-vs-lookup', 'Index size against lookup latency, one point per index interval',
      plot(INDEX_DENSITY_METRICS.lookupLatencyNs, { yTitle: 'median lookup latency',
        x: byQuantity(INDEX_DENSITY_METRICS.indexBytesPerGiB, 'index size per GiB of log'),
        series: ['recordSizeBytes'], seriesTitle: 'record size', order: 'intervalBytes',
        facet: { field: 'cache', title: 'cache' }, mark: 'point' })),
    chart('lookup-latency', 'Lookup latency against index interval',
      plot(INDEX_DENSITY_METRICS.lookupLatencyNs, { yTitle: 'median lookup latency',
        x: byLabel('intervalBytes', 'index interval'), series: ['recordSizeBytes'],
        seriesTitle: 'record size', facet: { field: 'cache', title: 'cache' }, mark: 'line' })),
  ]),
  chartsOf(SCAN_VS_LOOKUP_METRICS, [
    chart('time', 'Time to reach a message: scan from the start vs index lookup',
      plot(SCAN_VS_LOOKUP_METRICS.timeNs, { yTitle: 'time to reach the target',
        x: byLabel('targetMiB', 'target position in the segment (MiB)', 'quantitative'),
        series: ['method'], seriesTitle: 'method', facet: { field: 'cache', title: 'cache' },
        mark: 'line' })),
    chart('bytes-read', 'Bytes read to reach a message',
      plot(SCAN_VS_LOOKUP_METRICS.bytesRead, { yTitle: 'bytes read',
        x: byLabel('targetMiB', 'target position in the segment (MiB)', 'quantitative'),
        series: ['method'], seriesTitle: 'method', mark: 'line' })),
  ]),
  chartsOf(SEGMENT_SIZE_METRICS, [
    chart('trade-offs', 'What the segment size trades',
      plot(SEGMENT_SIZE_METRICS.openNs, { yTitle: 'open time', x: byLabel('segmentBytes', 'segment size'),
        mark: 'bar' }),
      plot(SEGMENT_SIZE_METRICS.lookupLatencyNs, { yTitle: 'median lookup latency',
        x: byLabel('segmentBytes', 'segment size'), mark: 'bar' }),
      plot(SEGMENT_SIZE_METRICS.rollNs, { yTitle: 'roll time', x: byLabel('segmentBytes', 'segment size'),
        mark: 'bar' }),
      plot(SEGMENT_SIZE_METRICS.retentionLagBytes, { yTitle: 'retention lag',
        x: byLabel('segmentBytes', 'segment size'), mark: 'bar' })),
  ]),
  chartsOf(RECOVERY_METRICS, [
    chart('open-time', 'Time until the log serves again, by segment count and tail size',
      plot(RECOVERY_METRICS.openNs, { yTitle: 'open time', x: byLabel('segments', 'segments'),
        series: ['state', 'cache'], seriesTitle: 'state at open, cache',
        facet: { field: 'tailBytes', title: 'active segment tail' }, mark: 'bar' })),
  ]),
  chartsOf(CRASH_SAFETY_METRICS, [
    chart('lost-messages', 'Acknowledged messages lost after a crash, by durability policy',
      plot(CRASH_SAFETY_METRICS.lost, { yTitle: 'acknowledged messages lost', x: POLICY,
        mark: 'bar' })),
  ]),
  chartsOf(BATCHING_METRICS, BATCHING_CHARTS),
]);

/** Experiment ids in the order reports present them. */
export const EXPERIMENT_ORDER: readonly string[] = Object.keys(CHART_TABLE);
