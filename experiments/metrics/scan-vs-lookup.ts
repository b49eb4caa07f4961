/** What the scan-vs-lookup experiment emits (lab/metric-catalog.ts). */
import { declareMetrics } from '../../lab/metric-catalog.js';

const TARGET = ['method', 'targetMiB'];

export const SCAN_VS_LOOKUP_METRICS = declareMetrics('scan-vs-lookup', {
  timeNs: {
    unit: 'ns',
    class: 'timing',
    direction: 'lower',
    labels: [...TARGET, 'cache', 'mode'],
    title: 'time to reach the target',
  },
  bytesRead: {
    unit: 'B',
    class: 'counter',
    direction: 'lower',
    labels: TARGET,
    title: 'bytes read',
  },
  deviceReadBytes: {
    unit: 'B',
    class: 'measurement',
    direction: 'lower',
    labels: [...TARGET, 'cache'],
    title: 'device bytes read',
  },
});
