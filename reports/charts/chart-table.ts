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
const SEGMENT = byLabel('segmentBytes', 'segment size');
/**
 * The puzzle's comparisons; each category names the guarantee it compares under, how deletes are
 * kept included. Design B saving its head at each delete is a series of its own (`variant`).
 */
const COMPARISON = byLabel('comparison', 'comparison: the guarantee', 'nominal');
const PUZZLE_SERIES = 'design (A = slot file, B = log)';
/** The puzzle's legends say which design is which in every entry, not only in the title. */
const PUZZLE_DESIGNS = { design: { A: 'A: slot file', B: 'B: log' } };
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
  const latency = (statistic: 'median' | 'p99', yTitle: string) =>
    plot(latencyNs, {
      statistic,
      yTitle,
      x: OFFERED,
      series,
      seriesTitle,
      mark: 'line',
    });
  return chart(
    'open-loop-latency',
    title,
    'Each line is one series offered a share of its own closed-loop rate; lower is better, and ' +
      'a line that turns up steeply before 90% is sends queueing behind the disk.',
    latency('median', 'median latency from the intended send'),
    latency('p99', 'p99 latency from the intended send'),
  );
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
const BATCHING_LINES = {
  x: BATCH_SIZE,
  series: ['store', 'codec'],
  seriesTitle: 'store · codec',
  facet: { field: 'workload', title: 'messages, policy' },
  mark: 'line',
} as const;
const BATCHING_CHARTS: readonly ChartDef[] = [
  batchingChart(
    'bytes-per-message',
    'Bytes reaching the device per message, against batch size',
    "Lower is better: one line per store and codec; loglab's one-record appends are the point " +
      'at 1; hollow marks are the disk models replaying the same writes.',
    plot(BATCHING_METRICS.deviceBytesPerMsg, {
      yTitle: 'device bytes per message',
      ...BATCHING_LINES,
    }),
  ),
  batchingChart(
    'throughput',
    'Messages appended per second, against batch size',
    'Higher is faster: one line per store and codec, one facet per message size, body and ' +
      'policy; under always each batch waits for one fdatasync.',
    plot(BATCHING_METRICS.msgsPerSec, { yTitle: 'messages per second', ...BATCHING_LINES }),
  ),
];

export const CHART_TABLE: Readonly<Record<string, readonly ChartDef[]>> = Object.fromEntries([
  chartsOf(PUZZLE_METRICS, [
    chart(
      'throughput',
      'Messages stored per second: three comparisons, each under its guarantee',
      'Higher is faster: within each guarantee, A (the slot file) stands beside B (the log); ' +
        'hollow marks are what the disk models predict for the same writes.',
      plot(PUZZLE_METRICS.msgsPerSec, {
        yTitle: 'throughput',
        x: COMPARISON,
        series: ['design', 'variant'],
        seriesTitle: PUZZLE_SERIES,
        valueNames: PUZZLE_DESIGNS,
        mark: 'bar',
      }),
    ),
    chart(
      'send-latency',
      'Latency of one send, by comparison and guarantee',
      'Lower is better: the median time from a send to its acknowledgement, A (the slot file) ' +
        'beside B (the log) under each guarantee.',
      plot(PUZZLE_METRICS.sendLatencyNs, {
        yTitle: 'median send latency',
        x: COMPARISON,
        series: ['design', 'variant'],
        seriesTitle: PUZZLE_SERIES,
        valueNames: PUZZLE_DESIGNS,
        mark: 'bar',
      }),
    ),
    openLoopChart(
      PUZZLE_METRICS.openLoopLatencyNs,
      'Send latency from the intended send time against offered load (open loop)',
      ['design', 'policy'],
      `${PUZZLE_SERIES} · policy`,
    ),
  ]),
  chartsOf(WRITE_AMPLIFICATION_METRICS, [
    chart(
      'bytes-per-message',
      'Bytes reaching the device per 1 KiB message',
      "Lower is better: each design's total bar, then its data, journal and metadata shares; " +
        'a tick on the axis is a share that measured 0.',
      plot(WRITE_AMPLIFICATION_METRICS.deviceBytesPerMsg, {
        yTitle: 'device bytes per message',
        x: byLabel('design', 'design', 'nominal'),
        series: ['share'],
        seriesTitle: 'share',
        facet: { field: 'policy', title: 'durability policy' },
        mark: 'bar',
      }),
    ),
  ]),
  chartsOf(QUEUE_DEPTH_METRICS, [
    chart(
      'iops',
      'I/O operations per second against queue depth',
      'Colour is the method, dash the engine; a line that keeps rising with depth is using ' +
        'requests the device can serve in parallel.',
      plot(QUEUE_DEPTH_METRICS.iops, {
        yTitle: 'IOPS',
        x: byLabel('depth', 'queue depth'),
        series: ['method', 'engine'],
        colourBy: ['method'],
        dashBy: ['engine'],
        mark: 'line',
      }),
    ),
    chart(
      'p99-latency',
      '99th-percentile latency against queue depth',
      'Colour is the method, dash the engine; lower is better, and latency that grows with ' +
        'depth is time spent waiting in the queue.',
      plot(QUEUE_DEPTH_METRICS.latencyNs, {
        statistic: 'p99',
        yTitle: 'p99 latency',
        x: byLabel('depth', 'queue depth'),
        series: ['method', 'engine'],
        colourBy: ['method'],
        dashBy: ['engine'],
        mark: 'line',
      }),
    ),
  ]),
  chartsOf(PAGE_CACHE_METRICS, [
    chart(
      'latency',
      'Latency of a write into the page cache and of reads, by read kind',
      'Lower is faster: a read the page cache answers costs about what an append does; a cold ' +
        'read pays for the disk.',
      plot(PAGE_CACHE_METRICS.latencyNs, {
        yTitle: 'median latency',
        x: byLabel('readKind', 'read kind', 'nominal'),
        mark: 'bar',
      }),
    ),
  ]),
  chartsOf(DURABILITY_METRICS, [
    chart(
      'throughput-latency',
      'Throughput against p99 send latency, per durability policy',
      "Right is more throughput, lower is a shorter p99 wait; each line joins one policy's " +
        'runs in producer order, and the number beside a point is its producers (1 to 256).',
      plot(DURABILITY_METRICS.sendLatencyNs, {
        statistic: 'p99',
        yTitle: 'p99 send latency',
        x: byQuantity(DURABILITY_METRICS.msgsPerSec, 'throughput'),
        series: ['policy', 'maxDelayMs', 'syncMode'],
        seriesTitle: 'policy · max delay · sync',
        order: 'producers',
        labelPoints: true,
        mark: 'point',
      }),
    ),
    chart(
      'msgs-per-fsync',
      'Messages covered by one fsync, against concurrent producers',
      "Higher means more messages share one fsync; the policies' points stand side by side " +
        'at each producer count, in legend order, so equal figures stay visible.',
      plot(DURABILITY_METRICS.msgsPerFsync, {
        yTitle: 'messages per fsync',
        x: byLabel('producers', 'concurrent producers'),
        series: ['policy', 'maxDelayMs', 'syncMode'],
        seriesTitle: 'policy · max delay · sync',
        dodge: true,
        mark: 'point',
      }),
    ),
    chart(
      'group-vs-always',
      'Group commit over always, against concurrent producers',
      'Above 1 group commit stores more messages a second than a sync per message on the same ' +
        'disk, in the same rounds; it should never fall below 1.',
      plot(DURABILITY_METRICS.groupVsAlways, {
        yTitle: 'group / always',
        x: byLabel('producers', 'concurrent producers'),
        mark: 'line',
      }),
    ),
    openLoopChart(
      DURABILITY_METRICS.openLoopLatencyNs,
      'Send latency from the intended send time against offered load (open loop, one producer)',
      ['policy', 'maxDelayMs', 'syncMode'],
      'policy · max delay · sync',
    ),
  ]),
  chartsOf(INDEX_DENSITY_METRICS, [
    chart(
      'index-size',
      'Index bytes per GiB of log against index interval',
      'Lower is a smaller index; "dense" is an entry for every record, and each line is one ' +
        'record size.',
      plot(INDEX_DENSITY_METRICS.indexBytesPerGiB, {
        yTitle: 'index size per GiB of log',
        x: byLabel('intervalBytes', 'index interval'),
        series: ['recordSizeBytes'],
        seriesTitle: 'record size',
        mark: 'line',
      }),
    ),
    chart(
      'size-vs-lookup',
      'Index size against lookup latency, one point per index interval',
      'Lower left is better: a smaller index lies to the left, a faster lookup lower; one ' +
        'panel per cache state.',
      plot(INDEX_DENSITY_METRICS.lookupLatencyNs, {
        yTitle: 'median lookup latency',
        x: byQuantity(INDEX_DENSITY_METRICS.indexBytesPerGiB, 'index size per GiB of log'),
        series: ['recordSizeBytes'],
        seriesTitle: 'record size',
        order: 'intervalBytes',
        facet: { field: 'cache', title: 'cache' },
        mark: 'point',
      }),
    ),
    chart(
      'lookup-latency',
      'Lookup latency against index interval',
      'Lower is faster; a sparser interval (to the right) steps over more bytes per lookup.',
      plot(INDEX_DENSITY_METRICS.lookupLatencyNs, {
        yTitle: 'median lookup latency',
        x: byLabel('intervalBytes', 'index interval'),
        series: ['recordSizeBytes'],
        seriesTitle: 'record size',
        facet: { field: 'cache', title: 'cache' },
        mark: 'line',
      }),
    ),
  ]),
  chartsOf(SCAN_VS_LOOKUP_METRICS, [
    chart(
      'time',
      'Time to reach a message: scan from the start vs index lookup',
      "Lower is faster: the scan climbs with the target's position, the lookup stays flat; " +
        'one panel per cache state.',
      plot(SCAN_VS_LOOKUP_METRICS.timeNs, {
        yTitle: 'time to reach the target',
        x: byLabel('targetMiB', 'target position in the segment (MiB)', 'quantitative'),
        series: ['method'],
        seriesTitle: 'method',
        facet: { field: 'cache', title: 'cache' },
        mark: 'line',
      }),
    ),
    chart(
      'bytes-read',
      'Bytes read to reach a message',
      'The scan reads everything before the target; the lookup reads an index page and a ' +
        'record.',
      plot(SCAN_VS_LOOKUP_METRICS.bytesRead, {
        yTitle: 'bytes read',
        x: byLabel('targetMiB', 'target position in the segment (MiB)', 'quantitative'),
        series: ['method'],
        seriesTitle: 'method',
        mark: 'line',
      }),
    ),
  ]),
  chartsOf(SEGMENT_SIZE_METRICS, [
    chart(
      'trade-offs',
      'What the segment size trades',
      'Four costs against the segment size, at the sizes the run measured; lower is better in ' +
        'each: small segments open slowly, large ones keep more data past retention.',
      plot(SEGMENT_SIZE_METRICS.openNs, {
        title: 'Opening the log',
        yTitle: 'open time',
        x: SEGMENT,
        mark: 'bar',
      }),
      plot(SEGMENT_SIZE_METRICS.lookupLatencyNs, {
        title: 'Looking up a record',
        yTitle: 'median lookup latency',
        x: SEGMENT,
        mark: 'bar',
      }),
      plot(SEGMENT_SIZE_METRICS.rollNs, {
        title: 'Rolling to a new segment',
        yTitle: 'roll time',
        x: SEGMENT,
        mark: 'bar',
      }),
      plot(SEGMENT_SIZE_METRICS.retentionLagBytes, {
        title: 'Data kept past retention',
        yTitle: 'retention lag',
        x: SEGMENT,
        mark: 'bar',
      }),
    ),
  ]),
  chartsOf(RECOVERY_METRICS, [
    chart(
      'open-time',
      'Time until the log serves again, by segment count and tail size',
      'Lower is faster: one panel per tail size, bars per segment count, coloured by how the ' +
        'log was left and the cache it opened with.',
      plot(RECOVERY_METRICS.openNs, {
        yTitle: 'open time',
        x: byLabel('segments', 'segments'),
        series: ['state', 'cache'],
        seriesTitle: 'state at open, cache',
        facet: { field: 'tailBytes', title: 'active segment tail' },
        mark: 'bar',
      }),
    ),
  ]),
  chartsOf(CRASH_SAFETY_METRICS, [
    chart(
      'lost-messages',
      'Acknowledged messages lost after a crash, by durability policy',
      'Each bar is written as messages lost of those acknowledged and checked; always and ' +
        'group promise 0, shown as a tick on the axis.',
      plot(CRASH_SAFETY_METRICS.lost, {
        yTitle: 'acknowledged messages lost',
        x: POLICY,
        totalOf: CRASH_SAFETY_METRICS.ackedChecked.quantity,
        mark: 'bar',
      }),
    ),
  ]),
  chartsOf(BATCHING_METRICS, BATCHING_CHARTS),
]);

/** Experiment ids in the order reports present them. */
export const EXPERIMENT_ORDER: readonly string[] = Object.keys(CHART_TABLE);
