/**
 * What the page-cache experiment emits (lab/metric-catalog.ts). Its latencies carry the
 * measurement's labels without the runner's `mode` (every phase is sync).
 */
import { type ChartDef, byLabel, chart, plot } from '../../lab/chart-spec.js';
import { declareMetrics } from '../../lab/metric-catalog.js';

const READ = ['readKind', 'cache', 'policy'];
/** Where reads were served from: the proof, not a quality of the code, so no direction. */
const PROOF = { class: 'measurement', direction: 'informational', labels: READ } as const;

export const PAGE_CACHE_METRICS = declareMetrics('page-cache', {
  latencyNs: { unit: 'ns', class: 'timing', direction: 'lower', labels: READ, title: 'latency' },
  logicalReadBytesPerRead: { unit: 'B/read', ...PROOF, title: 'bytes asked for per read' },
  deviceReadBytesPerRead: { unit: 'B/read', ...PROOF, title: 'device bytes read per read' },
  servedFromMemory: { unit: 'ratio', ratio: true, ...PROOF, title: 'share served from memory' },
  // What the log's read path (offset index, 8 KiB read window) asks the file system for, per
  // record, over a fixed set of seeded offsets: the code decides, so compare gates it exactly.
  logReadBytesPerRead: {
    unit: 'B/read',
    class: 'counter',
    direction: 'lower',
    labels: READ,
    title: 'bytes the log read per read',
  },
  // A raw latency over a constant, not two figures of one run: a timing, reported only.
  appendSharePct: {
    unit: '%',
    class: 'timing',
    direction: 'lower',
    labels: ['readKind', 'cache'],
    title: 'share of a 300 ms checkout',
  },
});

/** Its charts (lab/chart-spec.ts), in report order; each plots a quantity declared above. */
export const PAGE_CACHE_CHARTS: readonly ChartDef[] = [
  chart(
    'latency',
    'Latency of a write into the page cache and of reads, by read kind',
    'Lower is faster: a read the page cache answers costs about what an append does; a cold ' +
      'read pays for the disk.',
    plot(PAGE_CACHE_METRICS.latencyNs, {
      yTitle: 'median latency',
      x: byLabel('readKind', 'read kind', 'nominal'),
      mark: 'bar',
    }),
  ),
];
