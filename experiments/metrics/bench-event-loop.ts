/**
 * What `loglab bench event-loop` emits (lab/metric-catalog.ts). The bench builds its figures with
 * lab/metric.ts; the context refuses one this catalog does not declare.
 */
import { declareMetrics } from '../../lab/metric-catalog.js';

const SETTING = ['policy', 'syncMode', 'producers', 'directWrites'];

const OVER_INLINE = {
  unit: 'ratio',
  class: 'timing',
  direction: 'higher',
  ratio: true,
  labels: ['policy', 'producers'],
} as const;

export const BENCH_EVENT_LOOP_METRICS = declareMetrics('bench-event-loop', {
  delayP99Ns: { unit: 'ns', class: 'timing', direction: 'lower', labels: SETTING },
  delayMaxNs: { unit: 'ns', class: 'timing', direction: 'lower', labels: SETTING },
  msgsPerSec: { unit: 'msgs/s', class: 'timing', direction: 'higher', labels: SETTING },
  threadPoolVsInline: OVER_INLINE,
  adaptiveVsInline: OVER_INLINE,
});
