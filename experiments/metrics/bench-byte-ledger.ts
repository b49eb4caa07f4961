/**
 * What `loglab bench byte-ledger` emits (lab/metric-catalog.ts). The bench builds its figures with
 * lab/metric.ts; the context refuses one this catalog does not declare. Every byte and sync per
 * message is the whole disk's or timing's (measurements, a sample per round).
 */
import { declareMetrics } from '../../lab/metric-catalog.js';

const SETTING = ['policy', 'retention', 'directWrites'];
const MEASURED = { class: 'measurement', direction: 'lower' } as const;

export const BENCH_BYTE_LEDGER_METRICS = declareMetrics('bench-byte-ledger', {
  ratePerSec: {
    unit: 'ops/s',
    class: 'timing',
    direction: 'higher',
    labels: [...SETTING, 'cache'],
  },
  deviceBytesPerMsg: { unit: 'B/msg', ...MEASURED, labels: [...SETTING, 'cause'] },
  aboveFloorBytesPerMsg: { unit: 'B/msg', ...MEASURED, labels: [...SETTING, 'cause'] },
  // Device bytes over the floor the ledger computes: a ratio of one round's measurement to a model.
  vsFloor: { unit: 'ratio', ...MEASURED, ratio: true, labels: SETTING },
  // The same over the floor plus the file system's own bytes a second over the setting's rate.
  vsFsFloor: { unit: 'ratio', ...MEASURED, ratio: true, labels: SETTING },
  // What the file system writes a second beside a plain loop's records: the machine's.
  fsBytesPerSec: {
    unit: 'B/s',
    class: 'measurement',
    direction: 'informational',
    labels: ['policy'],
  },
  abovePlainLoopBytesPerMsg: { unit: 'B/msg', ...MEASURED, labels: [...SETTING, 'cause'] },
  fdatasyncsPerMsg: { unit: 'fsyncs/msg', ...MEASURED, labels: SETTING },
  dirFsyncsPerMsg: { unit: 'fsyncs/msg', ...MEASURED, labels: SETTING },
  // Other programs' writes while this process idles: the machine's, no quality of the code.
  idleDeviceBytesPerSec: {
    unit: 'B/s',
    class: 'measurement',
    direction: 'informational',
    labels: SETTING,
  },
});
