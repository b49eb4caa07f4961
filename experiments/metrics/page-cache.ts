/**
 * What the page-cache experiment emits (lab/metric-catalog.ts). Its latencies carry the
 * measurement's labels without the runner's `mode` (every phase is sync).
 */
import { declareMetrics } from '../../lab/metric-catalog.js';

const READ = ['readKind', 'cache', 'policy'];
/** Where reads were served from: the proof, not a quality of the code, so no direction. */
const PROOF = { class: 'measurement', direction: 'informational', labels: READ } as const;

export const PAGE_CACHE_METRICS = declareMetrics('page-cache', {
  latencyNs: { unit: 'ns', class: 'timing', direction: 'lower', labels: READ, title: 'latency' },
  logicalReadBytesPerRead: { unit: 'B/read', ...PROOF, title: 'bytes asked for per read' },
  deviceReadBytesPerRead: { unit: 'B/read', ...PROOF, title: 'device bytes read per read' },
  servedFromMemory: { unit: 'ratio', ratio: true, ...PROOF, title: 'share served from memory' },
  // A raw latency over a constant, not two figures of one run: a timing, reported only.
  appendSharePct: {
    unit: '%',
    class: 'timing',
    direction: 'lower',
    labels: ['readKind', 'cache'],
    title: 'share of a 300 ms checkout',
  },
});
