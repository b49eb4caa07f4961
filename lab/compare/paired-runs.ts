/**
 * Running a baseline build and the change in turns: every workload (the CI counters, a bench, an
 * experiment) runs once for each side in every round pair, the two runs of a pair adjacent, the
 * side that goes first alternating as turnOrders gives it for two (baseline then change, change
 * then baseline, …), in the same measured directory. Each run is its checkout's own CLI in a
 * child process writing a results file, so a process's warm-up, memory and JIT start afresh for
 * both sides alike, and a build of any age that writes the same results schema can take part.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Checkout, commandOf, outputExcerpt } from './checkout.js';
import type { PairedRuns } from './paired.js';
import { LabError } from '../errors.js';
import { metricFromSamples } from '../metric.js';
import type { Results } from '../results.js';
import { median } from '../stats.js';
import { readResultsDirectory } from '../results-documents.js';
import { turnOrders } from '../runner.js';

export type Workload =
  | { readonly kind: 'ci' }
  | { readonly kind: 'bench'; readonly name: string }
  | { readonly kind: 'experiment'; readonly id: string };

export interface PairedSide {
  /** `baseline (8fbd625)`, `current (a1b2c3d+changes)`: how tables and errors name the side. */
  readonly label: string;
  readonly checkout: Checkout;
}

export interface PairedRunOptions {
  readonly pairs: number;
  /** The directory on the disk under test; both sides measure inside it. */
  readonly measureDir: string;
  /** Where every run's results file is kept, `<side>/pair-NN/<workload>/`. */
  readonly outDir: string;
  readonly full: boolean;
  readonly progress: (line: string) => void;
}

export function workloadName(workload: Workload): string {
  if (workload.kind === 'ci') return 'ci';
  return workload.kind === 'bench' ? `bench ${workload.name}` : `run ${workload.id}`;
}

function argsFor(workload: Workload, outDir: string, measureDir: string, full: boolean): string[] {
  const quick = full ? [] : ['--quick'];
  if (workload.kind === 'ci') {
    // Every loglab since the gate began writes its counter run this way, exit 0, no comparison.
    return ['ci', '--update-baseline', '--baseline', path.join(outDir, 'ci-counters.json')];
  }
  const [command, name] =
    workload.kind === 'bench' ? ['bench', workload.name] : ['run', workload.id];
  return [command, name, ...quick, '--out', outDir, '--dir', measureDir];
}

const SIDE_DIRS = ['baseline', 'current'] as const;

function sideDirName(index: number): string {
  return SIDE_DIRS[index]!;
}

/** Runs one workload for one side; its results document, or a LabError naming what failed. */
function runOnce(
  side: PairedSide,
  workload: Workload,
  outDir: string,
  options: PairedRunOptions,
): Results {
  fs.mkdirSync(outDir, { recursive: true });
  const [node, args] = commandOf(
    side.checkout,
    argsFor(workload, outDir, options.measureDir, options.full),
  );
  const result = spawnSync(node, args, {
    cwd: side.checkout.root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    // `loglab ci` measures under the temp directory: there, the disk under test.
    env: { ...process.env, TMPDIR: options.measureDir },
  });
  const unusable = (message: string) =>
    new LabError('BAD_REF', `${side.label} cannot run \`${workloadName(workload)}\`: ${message}`);
  if (result.status !== 0) {
    const output = outputExcerpt(result.stdout, result.stderr);
    throw unusable(result.error?.message ?? `exit ${result.status}: ${output}`);
  }
  const docs = readResultsDirectory(outDir, unusable);
  if (docs.length !== 1) {
    throw unusable(`expected one results file in ${outDir}, found ${docs.length}`);
  }
  return docs[0]!.results;
}

/**
 * Every workload, `pairs` times for each side in turns. A workload the baseline cannot run in
 * the first pair (it predates it) is dropped when `optional` says so, with a warning through
 * `progress`; any other failure stops the comparison.
 */
export function runInPairs(
  sides: readonly [PairedSide, PairedSide],
  workloads: readonly Workload[],
  optional: (workload: Workload) => boolean,
  options: PairedRunOptions,
): { readonly runs: PairedRuns[]; readonly dropped: string[] } {
  const orders = turnOrders(2);
  const collected = workloads.map(() => [[] as Results[], [] as Results[]] as const);
  const active = workloads.map(() => true);
  const dropped: string[] = [];
  for (let pair = 0; pair < options.pairs; pair++) {
    const order = orders[pair % orders.length]!;
    options.progress(
      `pair ${pair + 1}/${options.pairs}: ${order.map((i) => sideDirName(i)).join(', ')}`,
    );
    workloads.forEach((workload, w) => {
      if (!active[w]) return;
      for (const s of order) {
        const side = sides[s]!;
        const dir = path.join(
          options.outDir,
          sideDirName(s),
          `pair-${String(pair + 1).padStart(2, '0')}`,
          workloadName(workload).replace(/\W+/g, '-'),
        );
        try {
          collected[w]![s]!.push(runOnce(side, workload, dir, options));
        } catch (error) {
          const predates = pair === 0 && s === 0 && optional(workload);
          if (!predates || !(error instanceof LabError)) throw error;
          active[w] = false;
          dropped.push(`${workloadName(workload)}: ${error.message}`);
          return;
        }
      }
    });
  }
  const runs = workloads.flatMap((_, w) => {
    if (!active[w]) return [];
    const [baseline, current] = collected[w]!;
    return [
      {
        experimentId: current[0]!.experiment.id,
        baselineLabel: sides[0].label,
        currentLabel: sides[1].label,
        baseline,
        current,
      },
    ];
  });
  return { runs, dropped };
}

/**
 * One side's runs of a workload folded into one results document, each metric's samples the
 * runs' medians (a counter keeps its value): what `loglab export` turns into the formats of
 * benchmark trackers (github-action-benchmark, Bencher), as of a single run.
 */
export function mergeRuns(runs: readonly Results[]): Results {
  const [first] = runs;
  if (first === undefined) throw new Error('mergeRuns needs at least one run');
  const metrics = first.metrics.map((metric) => {
    const samples = runs.flatMap(
      (run) => run.metrics.find((other) => other.name === metric.name)?.median ?? [],
    );
    const extras = {
      ...(metric.labels === undefined ? {} : { labels: metric.labels }),
      ...(metric.description === undefined ? {} : { description: metric.description }),
    };
    if (metric.class === 'counter') return { ...metric, median: median(samples), ...extras };
    return metricFromSamples(metric.name, metric.unit, samples, {
      class: metric.class,
      direction: metric.direction,
      ratio: metric.kind === 'ratio',
      ...extras,
    });
  });
  return { ...first, metrics, endedAt: runs[runs.length - 1]!.endedAt };
}
