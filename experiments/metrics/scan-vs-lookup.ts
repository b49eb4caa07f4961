/** What the scan-vs-lookup experiment emits (lab/metric-catalog.ts). */
import { type ChartDef, byLabel, chart, plot } from '../../lab/chart-spec.js';
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

/** Its charts (lab/chart-spec.ts), in report order; each plots a quantity declared above. */
export const SCAN_VS_LOOKUP_CHARTS: readonly ChartDef[] = [
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
];
