/**
 * What the puzzle experiment emits (lab/metric-catalog.ts): its charts select `msgsPerSec`,
 * `sendLatencyNs` and the open-loop latencies through these declarations.
 */
import { declareMetrics } from '../../lab/metric-catalog.js';
import { openLoopDeclarations } from './open-loop.js';

const SERIES = ['design', 'policy', 'comparison', 'deletes', 'variant'];
const DEVICE = { class: 'measurement', direction: 'lower', labels: SERIES } as const;

export const PUZZLE_METRICS = declareMetrics('puzzle', {
  msgsPerSec: { unit: 'msgs/s', class: 'timing', direction: 'higher', labels: SERIES },
  sendLatencyNs: { unit: 'ns', class: 'timing', direction: 'lower', labels: SERIES },
  // The disk's counters are the whole disk's, after the kernel and the device had their say.
  deviceBytesPerMsg: { unit: 'B/msg', ...DEVICE },
  deviceIosPerMsg: { unit: 'I/Os/msg', ...DEVICE },
  deviceFlushesPerMsg: { unit: 'flushes/msg', ...DEVICE },
  /** Design A syncing each write and delete itself: the code decides. */
  fsyncsPerMsg: { unit: 'fsyncs/msg', class: 'counter', direction: 'lower', labels: SERIES },
  /** Group commit's batches and design B's head saves (every 1,000 deletes or 1 s): timing's. */
  sharedFsyncsPerMsg: { quantity: 'fsyncsPerMsg', unit: 'fsyncs/msg', ...DEVICE },
  ratioBA: { unit: 'ratio', class: 'timing', direction: 'higher', ratio: true,
    labels: ['comparison'] },
  ...openLoopDeclarations(SERIES),
});
