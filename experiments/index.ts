/**
 * Every experiment `loglab run` knows, in the order it runs them and reports show them. Each
 * experiment is one file in this folder exporting `experiment` (lab/experiment.ts is the
 * contract; what several share is in support/): one line below makes it runnable. The line is a
 * dynamic import awaited at load, not a named import plus a list entry, so that adding one is a
 * single line in the place it should run; the type-checker still reads every file.
 */
import type { Experiment } from '../lab/experiment.js';

export const experiments: readonly Experiment[] = [
  (await import('./puzzle.js')).experiment,
  (await import('./write-amplification.js')).experiment,
  (await import('./queue-depth.js')).experiment,
  (await import('./page-cache.js')).experiment,
  (await import('./durability.js')).experiment,
  (await import('./index-density.js')).experiment,
  (await import('./scan-vs-lookup.js')).experiment,
  (await import('./segment-size.js')).experiment,
  (await import('./recovery.js')).experiment,
  (await import('./crash-safety.js')).experiment,
  (await import('./batching.js')).experiment,
  (await import('./record-size.js')).experiment,
];
