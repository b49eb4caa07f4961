/**
 * Every experiment `loglab run` knows, in the order it runs them. Each experiment is one file in
 * this folder (see lab/experiment.ts for the contract; what several share is in support/); add it
 * here to make it runnable.
 */
import type { Experiment } from '../lab/experiment.js';
import { experiment as batching } from './batching.js';
import { experiment as crashSafety } from './crash-safety.js';
import { experiment as durability } from './durability.js';
import { indexDensity } from './index-density.js';
import { experiment as pageCache } from './page-cache.js';
import { experiment as puzzle } from './puzzle.js';
import { experiment as queueDepth } from './queue-depth.js';
import { recovery } from './recovery.js';
import { scanVsLookup } from './scan-vs-lookup.js';
import { segmentSize } from './segment-size.js';
import { experiment as writeAmplification } from './write-amplification.js';

export const experiments: readonly Experiment[] = [
  puzzle,
  writeAmplification,
  queueDepth,
  pageCache,
  durability,
  indexDensity,
  scanVsLookup,
  segmentSize,
  recovery,
  crashSafety,
  batching,
];
