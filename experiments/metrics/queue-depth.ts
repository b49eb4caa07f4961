/**
 * What the queue-depth experiment emits (lab/metric-catalog.ts): its charts select `iops` and
 * `latencyNs` through these declarations.
 */
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
