/** What the segment-size experiment emits (lab/metric-catalog.ts). */
import { type ChartDef, byLabel, chart, plot } from '../../lab/chart-spec.js';
import { declareMetrics } from '../../lab/metric-catalog.js';

const SIZE = ['segmentBytes'];
/** A runner's latency adopted under the quantity's name: it keeps the runner's `mode` label. */
const TIMED = {
  unit: 'ns',
  class: 'timing',
  direction: 'lower',
  labels: [...SIZE, 'mode'],
} as const;

export const SEGMENT_SIZE_METRICS = declareMetrics('segment-size', {
  rollNs: { ...TIMED, title: 'roll time' },
  groupRollNs: {
    ...TIMED,
    labels: [...SIZE, 'durability', 'mode'],
    title: 'roll time under group commit',
  },
  openNs: { ...TIMED, title: 'open time' },
  recoveryNs: { ...TIMED, title: 'crash recovery time' },
  lookupLatencyNs: { ...TIMED, title: 'lookup latency' },
  retentionLagBytes: {
    unit: 'B',
    class: 'counter',
    direction: 'lower',
    labels: SIZE,
    title: 'retention lag (mean)',
  },
  retentionLagBytesMax: {
    unit: 'B',
    class: 'counter',
    direction: 'lower',
    labels: SIZE,
    title: 'retention lag (most)',
  },
  filesPerGiB: {
    unit: 'files',
    class: 'counter',
    direction: 'lower',
    labels: SIZE,
    title: 'files per GiB of log',
  },
  segments: {
    unit: 'count',
    class: 'counter',
    direction: 'informational',
    labels: SIZE,
    title: 'segments written',
  },
  // Arithmetic on the segment's size, not a duration anyone waited.
  lifetimeSeconds: {
    unit: 's',
    class: 'counter',
    direction: 'informational',
    labels: SIZE,
    title: 'how long one segment lasts at 5 msgs/s',
  },
});

const SEGMENT = byLabel('segmentBytes', 'segment size');

/** Its charts (lab/chart-spec.ts), in report order; each plots a quantity declared above. */
export const SEGMENT_SIZE_CHARTS: readonly ChartDef[] = [
  chart(
    'trade-offs',
    'What the segment size trades',
    'Four costs against the segment size, at the sizes the run measured; lower is better in ' +
      'each: small segments open slowly, large ones keep more data past retention.',
    plot(SEGMENT_SIZE_METRICS.openNs, {
      title: 'Opening the log',
      yTitle: 'open time',
      x: SEGMENT,
      mark: 'bar',
    }),
    plot(SEGMENT_SIZE_METRICS.lookupLatencyNs, {
      title: 'Looking up a record',
      yTitle: 'median lookup latency',
      x: SEGMENT,
      mark: 'bar',
    }),
    plot(SEGMENT_SIZE_METRICS.rollNs, {
      title: 'Rolling to a new segment',
      yTitle: 'roll time',
      x: SEGMENT,
      mark: 'bar',
    }),
    plot(SEGMENT_SIZE_METRICS.retentionLagBytes, {
      title: 'Data kept past retention',
      yTitle: 'retention lag',
      x: SEGMENT,
      mark: 'bar',
    }),
  ),
];
