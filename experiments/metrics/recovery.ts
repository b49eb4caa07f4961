/** What the recovery experiment emits (lab/metric-catalog.ts). */
import { declareMetrics } from '../../lab/metric-catalog.js';

const LOG = ['segments', 'tailBytes', 'state'];

export const RECOVERY_METRICS = declareMetrics('recovery', {
  openNs: {
    unit: 'ns',
    class: 'timing',
    direction: 'lower',
    labels: [...LOG, 'cache', 'mode'],
    title: 'time until the log serves again',
  },
  scannedBytes: {
    unit: 'B',
    class: 'counter',
    direction: 'lower',
    labels: LOG,
    title: 'bytes checked at open',
  },
  deviceReadBytes: {
    unit: 'B',
    class: 'measurement',
    direction: 'lower',
    labels: [...LOG, 'cache'],
    title: 'device bytes read at open',
  },
  rebuildNsPerMiB: {
    unit: 'ns/MiB',
    class: 'timing',
    direction: 'lower',
    labels: ['segmentBytes'],
    title: 'index rebuild time per MiB',
  },
  firstLookupNs: {
    unit: 'ns',
    class: 'timing',
    direction: 'lower',
    labels: ['index', 'segmentBytes', 'mode'],
    title: 'first lookup after open',
  },
});
