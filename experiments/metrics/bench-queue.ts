/**
 * What `loglab bench queue` emits (lab/metric-catalog.ts). The bench builds its figures with
 * lab/metric.ts; the context refuses one this catalog does not declare. Design A's write and
 * sync calls per message are its own, one per write and delete (counters); design B saves its
 * head every 1,000 deletes or 1 s, so its calls per message are timing's (measurements).
 */
import { declareMetrics } from '../../lab/metric-catalog.js';

const COST = ['design', 'policy'];
const COUNTER = { class: 'counter', direction: 'lower' } as const;
const MEASURED = { class: 'measurement', direction: 'lower' } as const;
const OVER = { unit: 'ratio', class: 'timing', direction: 'higher', ratio: true } as const;

export const BENCH_QUEUE_METRICS = declareMetrics('bench-queue', {
  cyclesPerSec: {
    unit: 'cycles/s',
    class: 'timing',
    direction: 'higher',
    labels: ['design', 'policy', 'producers'],
  },
  ratioBA: { ...OVER, labels: ['policy', 'producers'] },
  vsLogAppend: { ...OVER, labels: ['policy', 'producers', 'directWrites'] },
  writeCallsPerMsg: { unit: 'calls/msg', ...COUNTER, labels: COST },
  fdatasyncsPerMsg: { unit: 'calls/msg', ...COUNTER, labels: COST },
  sharedWriteCallsPerMsg: {
    quantity: 'writeCallsPerMsg',
    unit: 'calls/msg',
    ...MEASURED,
    labels: COST,
  },
  sharedFdatasyncsPerMsg: {
    quantity: 'fdatasyncsPerMsg',
    unit: 'calls/msg',
    ...MEASURED,
    labels: COST,
  },
  deviceBytesPerMsg: { unit: 'B/msg', ...MEASURED, labels: COST },
  deviceWritesPerMsg: { unit: 'ios/msg', ...MEASURED, labels: COST },
  preallocationBytesPerMsg: { unit: 'B/msg', ...COUNTER, labels: COST },
  inFlightTrackingBytesPerMsg: { unit: 'B/msg', ...COUNTER, labels: ['design', 'inFlight'] },
  // The JS heap: the garbage collector's to decide.
  inFlightHeapBytesPerMsg: { unit: 'B/msg', ...MEASURED, labels: ['design', 'inFlight'] },
});
