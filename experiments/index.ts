/**
 * Every experiment `loglab run` knows, in the order it runs them. Each experiment is one file in
 * this folder (see lab/experiment.ts for the contract); add it here to make it runnable.
 */
import type { Experiment } from '../lab/experiment.js';
import { indexDensity } from './index-density.js';
import { recovery } from './recovery.js';
import { scanVsLookup } from './scan-vs-lookup.js';
import { segmentSize } from './segment-size.js';

export const experiments: readonly Experiment[] = [
  indexDensity,
  scanVsLookup,
  segmentSize,
  recovery,
];
