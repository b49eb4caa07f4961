/**
 * What the queue-depth experiment emits (lab/metric-catalog.ts): its charts select `iops` and
 * `latencyNs` through these declarations.
 */
import { type ChartDef, byLabel, chart, plot } from '../../lab/chart-spec.js';
import { declareMetrics } from '../../lab/metric-catalog.js';

const SERIES = ['method', 'engine', 'depth', 'ioMode'];

export const QUEUE_DEPTH_METRICS = declareMetrics('queue-depth', {
  iops: { unit: 'ops/s', class: 'timing', direction: 'higher', labels: SERIES, title: 'IOPS' },
  latencyNs: {
    unit: 'ns',
    class: 'timing',
    direction: 'lower',
    labels: SERIES,
    title: 'latency of one I/O',
  },
  mbPerSec: {
    unit: 'MB/s',
    class: 'timing',
    direction: 'higher',
    labels: SERIES,
    title: 'bandwidth',
  },
  reachedDepth: {
    unit: 'count',
    class: 'measurement',
    direction: 'higher',
    labels: SERIES,
    title: 'requests in flight (ours)',
  },
  deviceQueueDepth: {
    unit: 'count',
    class: 'measurement',
    direction: 'informational',
    labels: SERIES,
    title: 'device queue depth',
  },
  fioIops: {
    unit: 'ops/s',
    class: 'timing',
    direction: 'higher',
    labels: SERIES,
    title: 'fio IOPS',
  },
  fioLatencyNs: {
    unit: 'ns',
    class: 'timing',
    direction: 'lower',
    labels: SERIES,
    title: 'fio latency of one I/O',
  },
  fractionOfFio: {
    unit: 'ratio',
    class: 'timing',
    direction: 'higher',
    ratio: true,
    labels: ['method', 'engine', 'depth'],
    title: "IOPS as a share of fio's",
  },
});

/** Its charts (lab/chart-spec.ts), in report order; each plots a quantity declared above. */
export const QUEUE_DEPTH_CHARTS: readonly ChartDef[] = [
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
];
