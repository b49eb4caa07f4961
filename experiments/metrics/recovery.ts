/** What the recovery experiment emits (lab/metric-catalog.ts). */
import { declareMetrics } from '../../lab/metric-catalog.js';

const LOG = ['segments', 'tailBytes', 'state'];

export const RECOVERY_METRICS = declareMetrics('recovery', {
  openNs: { unit: 'ns', class: 'timing', direction: 'lower', labels: [...LOG, 'cache', 'mode'] },
  scannedBytes: { unit: 'B', class: 'counter', direction: 'lower', labels: LOG },
  deviceReadBytes: {
    unit: 'B', class: 'measurement', direction: 'lower', labels: [...LOG, 'cache'],
  },
  rebuildNsPerMiB: {
    unit: 'ns/MiB', class: 'timing', direction: 'lower', labels: ['segmentBytes'],
  },
  firstLookupNs: {
    unit: 'ns', class: 'timing', direction: 'lower', labels: ['index', 'segmentBytes', 'mode'],
  },
});
