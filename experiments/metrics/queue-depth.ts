/**
 * What the queue-depth experiment emits (lab/metric-catalog.ts): its charts select `iops` and
 * `latencyNs` through these declarations.
 */
import { declareMetrics } from '../../lab/metric-catalog.js';

const SERIES = ['method', 'engine', 'depth', 'ioMode'];

export const QUEUE_DEPTH_METRICS = declareMetrics('queue-depth', {
  iops: { unit: 'ops/s', class: 'timing', direction: 'higher', labels: SERIES },
  latencyNs: { unit: 'ns', class: 'timing', direction: 'lower', labels: SERIES },
  mbPerSec: { unit: 'MB/s', class: 'timing', direction: 'higher', labels: SERIES },
  reachedDepth: { unit: 'count', class: 'measurement', direction: 'higher', labels: SERIES },
  deviceQueueDepth: {
    unit: 'count', class: 'measurement', direction: 'informational', labels: SERIES,
  },
  fioIops: { unit: 'ops/s', class: 'timing', direction: 'higher', labels: SERIES },
  fioLatencyNs: { unit: 'ns', class: 'timing', direction: 'lower', labels: SERIES },
  fractionOfFio: {
    unit: 'ratio', class: 'timing', direction: 'higher', ratio: true,
    labels: ['method', 'engine', 'depth'],
  },
});
