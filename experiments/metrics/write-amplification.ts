/** What the write-amplification experiment emits (lab/metric-catalog.ts). */
import { type ChartDef, byLabel, chart, plot } from '../../lab/chart-spec.js';
import { declareMetrics } from '../../lab/metric-catalog.js';

export const WRITE_AMPLIFICATION_METRICS = declareMetrics('write-amplification', {
  // The whole disk's counters, and a trace whose syncs timing decides: measurements.
  deviceBytesPerMsg: {
    unit: 'B/msg',
    class: 'measurement',
    direction: 'lower',
    labels: ['design', 'policy', 'share'],
    title: 'device bytes per message',
  },
  // Describes the two designs, not either's quality: each design's bytes carry the direction.
  ratioAB: {
    unit: 'ratio',
    class: 'measurement',
    direction: 'informational',
    ratio: true,
    labels: ['policy'],
    title: 'device bytes, A over B',
  },
  // Design B's total under `always` again, split by what caused each byte
  // (lab/models/byte-ledger.ts): the traced causes and, for the rest, file-system metadata and
  // journal.
  ledgerBytesPerMsg: {
    unit: 'B/msg',
    class: 'measurement',
    direction: 'lower',
    labels: ['design', 'policy', 'cause'],
    title: 'device bytes per message by cause',
  },
  msgsPerSec: {
    unit: 'msgs/s',
    class: 'timing',
    direction: 'higher',
    labels: ['design', 'policy'],
    title: 'throughput',
  },
});

/** Its charts (lab/chart-spec.ts), in report order; each plots a quantity declared above. */
export const WRITE_AMPLIFICATION_CHARTS: readonly ChartDef[] = [
  chart(
    'bytes-per-message',
    'Bytes reaching the device per 1 KiB message',
    "Lower is better: each design's total bar, then its data, journal and metadata shares; " +
      'a tick on the axis is a share that measured 0.',
    plot(WRITE_AMPLIFICATION_METRICS.deviceBytesPerMsg, {
      yTitle: 'device bytes per message',
      x: byLabel('design', 'design', 'nominal'),
      series: ['share'],
      seriesTitle: 'share',
      facet: { field: 'policy', title: 'durability policy' },
      mark: 'bar',
    }),
  ),
];
