/**
 * What the durability experiment emits (lab/metric-catalog.ts): its charts select `msgsPerSec`,
 * `sendLatencyNs`, `msgsPerFsync` and the open-loop latencies through these declarations.
 */
import { type ChartDef, byLabel, byQuantity, chart, plot } from '../../lab/chart-spec.js';
import { declareMetrics } from '../../lab/metric-catalog.js';
import { openLoopChart, openLoopDeclarations } from './open-loop.js';

const SERIES = ['policy', 'maxDelayMs', 'syncMode', 'writes', 'producers'];

export const DURABILITY_METRICS = declareMetrics('durability', {
  msgsPerSec: {
    unit: 'msgs/s',
    class: 'timing',
    direction: 'higher',
    labels: SERIES,
    title: 'throughput',
  },
  sendLatencyNs: {
    unit: 'ns',
    class: 'timing',
    direction: 'lower',
    labels: SERIES,
    title: 'send latency',
  },
  // Under always and group a message is acknowledged only after an fdatasync covered it: the
  // code promises 0, so any other figure is a broken promise, and compare gates it exactly.
  lossWindowMsgs: {
    unit: 'msgs',
    class: 'counter',
    direction: 'lower',
    labels: SERIES,
    title: 'acknowledged, not yet synced (most at once)',
  },
  // Under none how far acknowledgements run ahead of the syncs is up to the scheduler and the
  // disk (the log syncs only on close, so it counts what the run reached in the time it had).
  unsyncedLossWindowMsgs: {
    quantity: 'lossWindowMsgs',
    unit: 'msgs',
    class: 'measurement',
    direction: 'lower',
    labels: SERIES,
    title: 'acknowledged, not yet synced (most at once)',
  },
  // A measurement under every policy: a group's size is timing's, and under `always` the
  // recovery points and preallocation syncs are shared by however many messages the time-based
  // run reached (two quick reruns differed by more than 5%).
  msgsPerFsync: {
    unit: 'msgs',
    class: 'measurement',
    direction: 'higher',
    labels: SERIES,
    title: 'messages per fsync',
  },
  // Ratios of two configurations' rates in the same interleaved rounds: compare gates them.
  groupVsAlways: {
    unit: 'ratio',
    class: 'timing',
    direction: 'higher',
    ratio: true,
    labels: ['producers', 'writes'],
    title: 'group commit over always',
  },
  directVsPageCache: {
    unit: 'ratio',
    class: 'timing',
    direction: 'higher',
    ratio: true,
    labels: ['policy', 'producers'],
    title: 'direct writes over the page cache',
  },
  threadPoolVsInline: {
    unit: 'ratio',
    class: 'timing',
    direction: 'higher',
    ratio: true,
    labels: ['policy', 'producers'],
    title: 'thread-pool syncs over inline',
  },
  // How busy the one JavaScript thread was: the scheduler's, not the code's, to decide.
  loopBusyShare: {
    unit: 'ratio',
    class: 'measurement',
    direction: 'informational',
    labels: SERIES,
    title: 'event loop busy (share of the round)',
  },
  dirtyBytes: {
    unit: 'B',
    class: 'measurement',
    direction: 'informational',
    labels: SERIES,
    title: 'dirty page cache on the machine',
  },
  ...openLoopDeclarations(SERIES),
});

/** Its charts (lab/chart-spec.ts), in report order; each plots a quantity declared above. */
export const DURABILITY_CHARTS: readonly ChartDef[] = [
  chart(
    'throughput-latency',
    'Throughput against p99 send latency, per durability policy',
    "Right is more throughput, lower is a shorter p99 wait; each line joins one policy's " +
      'runs in producer order, and the number beside a point is its producers.',
    plot(DURABILITY_METRICS.sendLatencyNs, {
      statistic: 'p99',
      yTitle: 'p99 send latency',
      x: byQuantity(DURABILITY_METRICS.msgsPerSec, 'throughput'),
      series: ['policy', 'maxDelayMs', 'syncMode', 'writes'],
      seriesTitle: 'policy · max delay · sync · writes',
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
      series: ['policy', 'maxDelayMs', 'syncMode', 'writes'],
      seriesTitle: 'policy · max delay · sync · writes',
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
      series: ['writes'],
      seriesTitle: 'writes',
      mark: 'line',
    }),
  ),
  openLoopChart(
    DURABILITY_METRICS.openLoopLatencyNs,
    'Send latency from the intended send time against offered load (open loop, one producer)',
    ['policy', 'maxDelayMs', 'syncMode'],
    'policy · max delay · sync',
  ),
];
