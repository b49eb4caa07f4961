/** What the write-amplification experiment emits (lab/metric-catalog.ts). */
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
