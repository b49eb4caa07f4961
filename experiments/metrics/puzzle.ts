/**
 * What the puzzle experiment emits (lab/metric-catalog.ts): its charts select `msgsPerSec`,
 * `sendLatencyNs` and the open-loop latencies through these declarations.
 */
import { declareMetrics } from '../../lab/metric-catalog.js';
import { openLoopDeclarations } from './open-loop.js';

const SERIES = ['design', 'policy', 'comparison', 'deletes', 'variant'];
const DEVICE = { class: 'measurement', direction: 'lower', labels: SERIES } as const;

export const PUZZLE_METRICS = declareMetrics('puzzle', {
  msgsPerSec: {
    unit: 'msgs/s',
    class: 'timing',
    direction: 'higher',
    labels: SERIES,
    title: 'throughput',
  },
  sendLatencyNs: {
    unit: 'ns',
    class: 'timing',
    direction: 'lower',
    labels: SERIES,
    title: 'send latency',
  },
  // The disk's counters are the whole disk's, after the kernel and the device had their say.
  deviceBytesPerMsg: { unit: 'B/msg', ...DEVICE, title: 'device bytes per message' },
  deviceIosPerMsg: { unit: 'I/Os/msg', ...DEVICE, title: 'device writes per message' },
  deviceFlushesPerMsg: {
    unit: 'flushes/msg',
    ...DEVICE,
    title: 'device cache flushes per message',
  },
  /** Design A syncing each write and delete itself: the code decides. */
  fsyncsPerMsg: {
    unit: 'fsyncs/msg',
    class: 'counter',
    direction: 'lower',
    labels: SERIES,
    title: 'fsyncs per message',
  },
  /** Group commit's batches and design B's head saves (every 1,000 deletes or 1 s): timing's. */
  sharedFsyncsPerMsg: {
    quantity: 'fsyncsPerMsg',
    unit: 'fsyncs/msg',
    ...DEVICE,
    title: 'fsyncs per message',
  },
  ratioBA: {
    unit: 'ratio',
    class: 'timing',
    direction: 'higher',
    ratio: true,
    labels: ['comparison'],
    title: 'throughput, B over A',
  },
  ...openLoopDeclarations(SERIES),
});
