/** What the segment-size experiment emits (lab/metric-catalog.ts). */
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
