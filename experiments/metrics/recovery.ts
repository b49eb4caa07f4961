/** What the recovery experiment emits (lab/metric-catalog.ts). */
import { type ChartDef, byLabel, chart, plot } from '../../lab/chart-spec.js';
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

/** Its charts (lab/chart-spec.ts), in report order; each plots a quantity declared above. */
export const RECOVERY_CHARTS: readonly ChartDef[] = [
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
];
