/**
 * Which charts each experiment gets. Quantity names and label fields are the contract with the
 * experiments, written down in docs/report-contract.md; a chart whose quantity an experiment did
 * not record is left out, and an experiment with none of its charts gets the generic chart.
 */
import { byLabel, byQuantity, chart, panel, type ChartDef } from './chart-types.js';

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
function openLoopChart(title: string, series: readonly string[], seriesTitle: string): ChartDef {
  const latency = (statistic: 'median' | 'p99', yTitle: string) => panel({
    quantity: 'openLoopLatencyNs', statistic, yTitle, x: OFFERED, series, seriesTitle,
    mark: 'line' });
  return chart('open-loop-latency', title,
    latency('median', 'median latency from the intended send'),
    latency('p99', 'p99 latency from the intended send'));
}

export const CHART_TABLE: Readonly<Record<string, readonly ChartDef[]>> = {
  'puzzle': [
    chart('throughput', 'Messages stored per second: three comparisons, each under its guarantee',
      panel({ quantity: 'msgsPerSec', yTitle: 'throughput', x: COMPARISON,
        series: ['design', 'variant'], seriesTitle: PUZZLE_SERIES, mark: 'bar' })),
    chart('send-latency', 'Latency of one send, by comparison and guarantee',
      panel({ quantity: 'sendLatencyNs', yTitle: 'median send latency', x: COMPARISON,
        series: ['design', 'variant'], seriesTitle: PUZZLE_SERIES, mark: 'bar' })),
    openLoopChart('Send latency from the intended send time against offered load (open loop)',
      ['design', 'policy'], `${PUZZLE_SERIES} · policy`),
  ],
  'write-amplification': [
    chart('bytes-per-message', 'Bytes reaching the device per 1 KiB message',
      panel({ quantity: 'deviceBytesPerMsg', yTitle: 'device bytes per message',
        x: byLabel('design', 'design', 'nominal'), series: ['share'], seriesTitle: 'share',
        facet: { field: 'policy', title: 'durability policy' }, mark: 'bar' })),
  ],
  'queue-depth': [
    chart('iops', 'I/O operations per second against queue depth',
      panel({ quantity: 'iops', yTitle: 'IOPS', x: byLabel('depth', 'queue depth'),
        series: ['method', 'engine'], mark: 'line' })),
    chart('p99-latency', '99th-percentile latency against queue depth',
      panel({ quantity: 'latencyNs', statistic: 'p99', yTitle: 'p99 latency',
        x: byLabel('depth', 'queue depth'), series: ['method', 'engine'], mark: 'line' })),
  ],
  'page-cache': [
    chart('latency', 'Latency of a write into the page cache and of reads, by read kind',
      panel({ quantity: 'latencyNs', yTitle: 'median latency',
        x: byLabel('readKind', 'read kind', 'nominal'), mark: 'bar' })),
  ],
  'durability': [
    chart('throughput-latency', 'Throughput against p99 send latency, per durability policy',
      panel({ quantity: 'sendLatencyNs', statistic: 'p99', yTitle: 'p99 send latency',
        x: byQuantity('msgsPerSec', 'throughput'), series: ['policy', 'maxDelayMs', 'groupSync'],
        seriesTitle: 'policy · max delay · sync', order: 'producers', mark: 'point' })),
    chart('msgs-per-fsync', 'Messages covered by one fsync, against concurrent producers',
      panel({ quantity: 'msgsPerFsync', yTitle: 'messages per fsync',
        x: byLabel('producers', 'concurrent producers'), series: ['policy', 'maxDelayMs', 'groupSync'],
        seriesTitle: 'policy · max delay · sync', mark: 'line' })),
    openLoopChart('Send latency from the intended send time against offered load (open loop, ' +
      'one producer)', ['policy', 'maxDelayMs', 'groupSync'], 'policy · max delay · sync'),
  ],
  'index-density': [
    chart('index-size', 'Index bytes per GiB of log against index interval',
      panel({ quantity: 'indexBytesPerGiB', yTitle: 'index size per GiB of log',
        x: byLabel('intervalBytes', 'index interval'), series: ['recordSizeBytes'],
        seriesTitle: 'record size', mark: 'line' })),
    chart('size-vs-lookup', 'Index size against lookup latency, one point per index interval',
      panel({ quantity: 'lookupLatencyNs', yTitle: 'median lookup latency',
        x: byQuantity('indexBytesPerGiB', 'index size per GiB of log'),
        series: ['recordSizeBytes'], seriesTitle: 'record size', order: 'intervalBytes',
        facet: { field: 'cache', title: 'cache' }, mark: 'point' })),
    chart('lookup-latency', 'Lookup latency against index interval',
      panel({ quantity: 'lookupLatencyNs', yTitle: 'median lookup latency',
        x: byLabel('intervalBytes', 'index interval'), series: ['recordSizeBytes'],
        seriesTitle: 'record size', facet: { field: 'cache', title: 'cache' }, mark: 'line' })),
  ],
  'scan-vs-lookup': [
    chart('time', 'Time to reach a message: scan from the start vs index lookup',
      panel({ quantity: 'timeNs', yTitle: 'time to reach the target',
        x: byLabel('targetMiB', 'target position in the segment (MiB)', 'quantitative'),
        series: ['method'], seriesTitle: 'method', facet: { field: 'cache', title: 'cache' },
        mark: 'line' })),
    chart('bytes-read', 'Bytes read to reach a message',
      panel({ quantity: 'bytesRead', yTitle: 'bytes read',
        x: byLabel('targetMiB', 'target position in the segment (MiB)', 'quantitative'),
        series: ['method'], seriesTitle: 'method', mark: 'line' })),
  ],
  'segment-size': [
    chart('trade-offs', 'What the segment size trades',
      panel({ quantity: 'openNs', yTitle: 'open time', x: byLabel('segmentBytes', 'segment size'),
        mark: 'bar' }),
      panel({ quantity: 'lookupLatencyNs', yTitle: 'median lookup latency',
        x: byLabel('segmentBytes', 'segment size'), mark: 'bar' }),
      panel({ quantity: 'rollNs', yTitle: 'roll time', x: byLabel('segmentBytes', 'segment size'),
        mark: 'bar' }),
      panel({ quantity: 'retentionLagBytes', yTitle: 'retention lag',
        x: byLabel('segmentBytes', 'segment size'), mark: 'bar' })),
  ],
  'recovery': [
    chart('open-time', 'Time until the log serves again, by segment count and tail size',
      panel({ quantity: 'openNs', yTitle: 'open time', x: byLabel('segments', 'segments'),
        series: ['state', 'cache'], seriesTitle: 'state at open, cache',
        facet: { field: 'tailBytes', title: 'active segment tail' }, mark: 'bar' })),
  ],
  'crash-safety': [
    chart('lost-messages', 'Acknowledged messages lost after a crash, by durability policy',
      panel({ quantity: 'lost', yTitle: 'acknowledged messages lost', x: POLICY,
        mark: 'bar' })),
  ],
};

/** Experiment ids in the order reports present them. */
export const EXPERIMENT_ORDER: readonly string[] = Object.keys(CHART_TABLE);
