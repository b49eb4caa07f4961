/**
 * `--against REF` for `loglab ci` and `loglab compare`: builds REF in a temporary worktree
 * (lab/compare/ref-build.ts), runs the selected workloads for it and for this tree in turns,
 * round pair by round pair (lab/compare/paired-runs.ts), and judges each metric by the ratios
 * of its pairs (lab/compare/paired.ts). Exit 0 when nothing gated regressed, 1 when something
 * did, 2 when REF cannot be built or run.
 */
import type { Command } from 'commander';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkDirectoryArgument, parseChoice, parseIntegerArgument } from '../arguments.js';
import { DEFAULT_THRESHOLD } from '../../lab/compare/compare.js';
import { COMPARE_FORMATS, type CompareFormat } from '../../lab/compare/compare-format.js';
import { readCheckout } from '../../lab/compare/checkout.js';
import { comparePairedSet, PAIRS_FOR_REQUESTED_THRESHOLD } from '../../lab/compare/paired.js';
import {
  type PairedSide,
  type Workload,
  mergeRuns,
  runInPairs,
  workloadName,
} from '../../lab/compare/paired-runs.js';
import { buildRef } from '../../lab/compare/ref-build.js';
import { LabError } from '../../lab/errors.js';
import { toJunitXml } from '../../lab/export/junit.js';
import { createOwnedDir, removeOwnedDir } from '../../lab/owned-dir.js';
import { packageRoot } from '../../lab/package-root.js';
import { writeResultsFile } from '../../lab/results.js';
import { parsePercentArgument } from '../arguments.js';
import { reportSuite } from './verdict.js';

const MAX_PAIRS = 1000;

export interface AgainstOptions {
  readonly against?: string;
  readonly pairs?: string;
  readonly bench?: string[];
  readonly experiment?: string[];
  readonly full?: boolean;
  readonly dir?: string;
  readonly keepRuns?: string;
  readonly junit?: string;
  readonly threshold?: string;
  readonly format: string;
}

/** The options `--against` brings to a command; `what` says what runs by default. */
export function addAgainstOptions(command: Command, what: string): Command {
  return command
    .option('--against <ref>', `build this git ref and run ${what} for it and this tree in turns`)
    .option(
      '--pairs <n>',
      `round pairs with --against (default ${PAIRS_FOR_REQUESTED_THRESHOLD}: the threshold ` +
        'applies as given from 10 on, at least 10% from 6 to 9, nothing varying gated below 6)',
    )
    .option('--bench <name...>', 'with --against: benches to run (loglab bench suites)')
    .option('--experiment <id...>', 'with --against: experiments to run (loglab list)')
    .option('--full', 'with --against: full parameters instead of --quick')
    .option('--dir <dir>', 'with --against: an existing directory on the disk to measure')
    .option('--junit <file>', 'with --against: also write the verdicts as a JUnit report here')
    .option(
      '--keep-runs <dir>',
      "with --against: keep every run's results file, and each side's runs merged into one " +
        'document per experiment (current/, baseline/: what `loglab export` reads)',
    );
}

/** The workloads named by --bench and --experiment, in that order. */
export function selectedWorkloads(options: AgainstOptions): Workload[] {
  return [
    ...(options.bench ?? []).map((name): Workload => ({ kind: 'bench', name })),
    ...(options.experiment ?? []).map((id): Workload => ({ kind: 'experiment', id })),
  ];
}

/** Refuses --against's companions when --against is not given: they would be ignored. */
export function refuseWithoutAgainst(options: AgainstOptions): void {
  const companions: [unknown, string][] = [
    [options.pairs, '--pairs'],
    [options.bench, '--bench'],
    [options.experiment, '--experiment'],
    [options.full, '--full'],
    [options.dir, '--dir'],
    [options.keepRuns, '--keep-runs'],
    [options.junit, '--junit'],
  ];
  for (const [value, flag] of companions) {
    if (value !== undefined) throw new LabError('BAD_ARGUMENT', `${flag}: only with --against REF`);
  }
}

function label(kind: string, ref: string, commit: string, dirty: boolean): string {
  const short = `${commit.slice(0, 7)}${dirty ? '+changes' : ''}`;
  return commit.startsWith(ref) ? `${kind} ${short}` : `${kind} ${ref} (${short})`;
}

const progress = (line: string) => process.stderr.write(`loglab: ${line}\n`);

/** Writes the raw runs' folder and each side's merged documents under `outDir`. */
function writeMerged(outDir: string, runs: ReturnType<typeof runInPairs>['runs']): void {
  for (const workload of runs) {
    for (const [side, docs] of [
      ['baseline', workload.baseline],
      ['current', workload.current],
    ] as const) {
      writeResultsFile(path.join(outDir, side, `${workload.experimentId}.json`), mergeRuns(docs));
    }
  }
}

/**
 * Builds `options.against`, runs `workloads` in turns with this tree, prints the verdicts and
 * throws CHECK_FAILED when a gated metric regressed. `optional` workloads the baseline cannot
 * run (it predates them) are left out with a line saying so.
 */
export function runAgainst(
  ref: string,
  workloads: readonly Workload[],
  optional: (workload: Workload) => boolean,
  options: AgainstOptions,
): void {
  const format = parseChoice<CompareFormat>('--format', options.format, COMPARE_FORMATS);
  const pairs =
    options.pairs === undefined
      ? PAIRS_FOR_REQUESTED_THRESHOLD
      : parseIntegerArgument('--pairs', options.pairs, 1, MAX_PAIRS);
  const thresholdRatio =
    options.threshold === undefined
      ? DEFAULT_THRESHOLD
      : parsePercentArgument('--threshold', options.threshold);
  if (options.dir !== undefined) checkDirectoryArgument('--dir', options.dir, true);
  if (options.junit !== undefined) {
    checkDirectoryArgument('--junit', path.dirname(path.resolve(options.junit)), true);
  }
  if (options.keepRuns !== undefined)
    checkDirectoryArgument('--keep-runs', options.keepRuns, false);
  const here = readCheckout(packageRoot(), 'this tree');
  const scratch = createOwnedDir(options.dir ?? os.tmpdir(), 'loglab-against-');
  const build = buildRef(here.root, ref, os.tmpdir(), progress);
  try {
    const sides: [PairedSide, PairedSide] = [
      { label: label('baseline', ref, build.checkout.commit, false), checkout: build.checkout },
      { label: label('current', 'HEAD', here.commit, here.dirty), checkout: here },
    ];
    const measureDir = path.join(scratch, 'measure');
    fs.mkdirSync(measureDir);
    const outDir = options.keepRuns ?? path.join(scratch, 'runs');
    progress(
      `${pairs} round pair(s) of ${workloads.map(workloadName).join(', ')} in ${measureDir}: ` +
        `${sides[0].label} and ${sides[1].label} in turns`,
    );
    const { runs, dropped } = runInPairs(sides, workloads, optional, {
      pairs,
      measureDir,
      outDir,
      full: options.full === true,
      progress,
    });
    for (const line of dropped) progress(`left out, the baseline cannot run it: ${line}`);
    if (options.junit !== undefined) {
      checkDirectoryArgument('--junit', path.dirname(path.resolve(options.junit)), true);
    }
    if (options.keepRuns !== undefined) writeMerged(options.keepRuns, runs);
    const comparisons = comparePairedSet(runs, thresholdRatio);
    if (options.junit !== undefined) fs.writeFileSync(options.junit, toJunitXml(comparisons));
    reportSuite(comparisons, format, `--against ${ref}`);
  } finally {
    build.remove();
    removeOwnedDir(scratch);
  }
}
