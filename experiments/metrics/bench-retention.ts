/**
 * What `loglab bench retention` emits (lab/metric-catalog.ts). The bench builds its figures with
 * lab/metric.ts; the context refuses one this catalog does not declare.
 */
import { declareMetrics } from '../../lab/metric-catalog.js';

export const BENCH_RETENTION_METRICS = declareMetrics('bench-retention', {
  loopHeldNs: {
    unit: 'ns',
    class: 'timing',
    direction: 'lower',
    labels: ['segments', 'segmentBytes', 'side'],
  },
  vsPlainUnlink: {
    unit: 'ratio',
    class: 'timing',
    direction: 'lower',
    ratio: true,
    labels: ['segments', 'segmentBytes', 'policy'],
  },
});
