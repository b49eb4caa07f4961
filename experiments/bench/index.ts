/** The benches `loglab bench` runs, by suite name, with the targets their issues set. */
import type { Experiment } from '../../lab/experiment.js';
import { BYTE_LEDGER_TARGETS, byteLedgerBench } from './byte-ledger.js';
import { codecBench } from './codec.js';
import { GROUP_COMMIT_TARGETS, experiment as durability } from '../durability.js';
import { EVENT_LOOP_TARGETS, eventLoopBench } from './event-loop.js';
import { hotPathsBench } from './hot-paths.js';
import { queueBench } from './queue.js';
import { retentionBench } from './retention.js';
import { storageBench } from './storage.js';
import { QUEUE_TARGETS, STORAGE_TARGETS, type Target } from './targets.js';

export interface BenchSuite {
  readonly name: string;
  readonly experiment: Experiment;
  readonly targets: readonly Target[];
}

export const benchSuites: readonly BenchSuite[] = [
  { name: 'storage', experiment: storageBench, targets: STORAGE_TARGETS },
  // The storage bench's hot paths in seconds: what `loglab ci --against REF` runs for each side.
  { name: 'hot-paths', experiment: hotPathsBench, targets: [] },
  { name: 'queue', experiment: queueBench, targets: QUEUE_TARGETS },
  { name: 'codec', experiment: codecBench, targets: [] },
  { name: 'byte-ledger', experiment: byteLedgerBench, targets: BYTE_LEDGER_TARGETS },
  { name: 'event-loop', experiment: eventLoopBench, targets: EVENT_LOOP_TARGETS },
  { name: 'retention', experiment: retentionBench, targets: [] },
  // The durability experiment, as `loglab run durability` runs it, checked against its targets.
  { name: 'durability', experiment: durability, targets: GROUP_COMMIT_TARGETS },
];
