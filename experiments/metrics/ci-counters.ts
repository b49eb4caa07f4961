/**
 * What `loglab ci` compares (experiments/ci-counters.ts; lab/metric-catalog.ts): counters of the
 * storage core only, so the same code gives the same figures on any machine. Per-message
 * quantities of the queues carry design, policy and phase; the log's group-commit run emits
 * writeCallsPerMsg and fdatasyncsPerMsg with policy and producers.
 */
import { declareMetrics } from '../../lab/metric-catalog.js';

const PER_MSG = ['design', 'policy', 'phase'];
const LOG = ['intervalBytes'];
const COUNTER = { class: 'counter', direction: 'lower' } as const;

export const CI_COUNTERS_METRICS = declareMetrics('ci-counters', {
  writeCallsPerMsg: { unit: 'writes/msg', ...COUNTER, labels: [...PER_MSG, 'producers'] },
  writeBytesPerMsg: { unit: 'B/msg', ...COUNTER, labels: PER_MSG },
  fdatasyncsPerMsg: { unit: 'fsyncs/msg', ...COUNTER, labels: [...PER_MSG, 'producers'] },
  dirFsyncsPerMsg: { unit: 'fsyncs/msg', ...COUNTER, labels: PER_MSG },
  readBytesPerMsg: { unit: 'B/msg', ...COUNTER, labels: PER_MSG },
  indexBytesPerMiB: { unit: 'B/MiB', ...COUNTER, labels: LOG },
  timeIndexBytesPerMiB: { unit: 'B/MiB', ...COUNTER, labels: LOG },
  recoveryScannedBytes: { unit: 'B', ...COUNTER, labels: [...LOG, 'state'] },
  comparisonsPerLookup: { unit: 'comparisons/lookup', ...COUNTER, labels: LOG },
  stepBytesPerLookup: { unit: 'B/lookup', ...COUNTER, labels: LOG },
  readCallsPerLookup: { unit: 'reads/lookup', ...COUNTER, labels: LOG },
  readBytesPerLookup: { unit: 'B/lookup', ...COUNTER, labels: LOG },
});
