/**
 * What `loglab bench codec` emits (lab/metric-catalog.ts): tinybench's latency of each step, and
 * what the code alone decides about two of them, which compare gates exactly.
 */
import { declareMetrics } from '../../lab/metric-catalog.js';

const TASK = ['task', 'bodyBytes'];

export const BENCH_CODEC_METRICS = declareMetrics('bench-codec', {
  latencyNs: { unit: 'ns', class: 'timing', direction: 'lower', labels: TASK },
  // The record format's size for a body: a header field more is a regression of every log.
  recordBytes: { unit: 'B', class: 'counter', direction: 'lower', labels: TASK },
  // The index search's keys read per search: a binary search reads about log2(entries).
  comparisonsPerSearch: {
    unit: 'comparisons/search',
    class: 'counter',
    direction: 'lower',
    labels: ['task', 'entries'],
  },
});
