/** What the segment-size experiment emits (lab/metric-catalog.ts). */
import { declareMetrics } from '../../lab/metric-catalog.js';

const SIZE = ['segmentBytes'];
/** A runner's latency adopted under the quantity's name: it keeps the runner's `mode` label. */
const TIMED = {
  unit: 'ns', class: 'timing', direction: 'lower', labels: [...SIZE, 'mode'],
} as const;

export const SEGMENT_SIZE_METRICS = declareMetrics('segment-size', {
  rollNs: TIMED,
  groupRollNs: { ...TIMED, labels: [...SIZE, 'durability', 'mode'] },
  openNs: TIMED,
  recoveryNs: TIMED,
  lookupLatencyNs: TIMED,
  retentionLagBytes: { unit: 'B', class: 'counter', direction: 'lower', labels: SIZE },
  retentionLagBytesMax: { unit: 'B', class: 'counter', direction: 'lower', labels: SIZE },
  filesPerGiB: { unit: 'files', class: 'counter', direction: 'lower', labels: SIZE },
  segments: { unit: 'count', class: 'counter', direction: 'informational', labels: SIZE },
  // Arithmetic on the segment's size, not a duration anyone waited.
  lifetimeSeconds: { unit: 's', class: 'counter', direction: 'informational', labels: SIZE },
});
