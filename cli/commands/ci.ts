/**
 * `loglab ci`: runs the fixed counter suite (experiments/ci-counters.ts) in a fresh temp
 * directory and compares it with the baseline kept in the repository (`ci/baseline.json`).
 * Exit 0 when nothing regressed, 1 when a counter did, 2 when the baseline is missing or cannot
 * be compared. `--update-baseline` rewrites the baseline on purpose, after a change that moves
 * a counter for a good reason.
 */
import type { Command } from 'commander';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { experiment as ciCounters } from '../../experiments/ci-counters.js';
import { compareDocuments, readBaselineFor } from '../../lab/compare/compare.js';
import { LabError } from '../../lab/errors.js';
import { runExperiment } from '../../lab/experiment.js';
import { createOwnedDir, removeOwnedDir } from '../../lab/owned-dir.js';
import { packageFile } from '../../lab/package-root.js';
import type { Workload } from '../../lab/compare/paired-runs.js';
import { type Results, writeResultsFile } from '../../lab/results.js';
import { type GateOptions, parseGateOptions } from './compare.js';
import {
  type AgainstOptions,
  addAgainstOptions,
  refuseWithoutAgainst,
  runAgainst,
  selectedWorkloads,
} from './against.js';
import { reportComparison } from './verdict.js';

/**
 * The baseline kept in the repository (and shipped with the package), found from the package
 * root so any working directory, and the built layout under dist/, works.
 */
export const DEFAULT_BASELINE = path.relative(process.cwd(), packageFile('ci', 'baseline.json'));

/**
 * What `loglab ci --against REF` runs for each side: the counter suite and the hot-path bench.
 * The bench is younger than the gate: a REF that predates it is judged on the counters alone.
 */
export const CI_WORKLOADS: readonly Workload[] = [
  { kind: 'ci' },
  { kind: 'bench', name: 'hot-paths' },
];

interface CiOptions extends GateOptions, AgainstOptions {
  readonly updateBaseline?: boolean;
  readonly baseline?: string;
  readonly out?: string;
}

async function runSuite(): Promise<Results> {
  const dir = createOwnedDir(os.tmpdir(), 'loglab-ci-');
  try {
    return await runExperiment(ciCounters, { dir, quick: true });
  } finally {
    removeOwnedDir(dir);
  }
}

function ciAgainst(ref: string, options: CiOptions): void {
  const alone: [unknown, string][] = [
    [options.updateBaseline, '--update-baseline'],
    [options.baseline, '--baseline'],
    [options.out, '--out'],
  ];
  for (const [value, flag] of alone) {
    if (value !== undefined) {
      throw new LabError(
        'BAD_ARGUMENT',
        `${flag}: not with --against, which needs no baseline file`,
      );
    }
  }
  const selected = selectedWorkloads(options);
  const workloads = selected.length > 0 ? selected : CI_WORKLOADS;
  runAgainst(
    ref,
    workloads,
    (workload) => selected.length === 0 && workload.kind === 'bench',
    options,
  );
}

async function ciCommand(options: CiOptions): Promise<void> {
  if (options.against !== undefined) {
    ciAgainst(options.against, options);
    return;
  }
  refuseWithoutAgainst(options);
  const gate = parseGateOptions(options);
  const baselineFile = options.baseline ?? DEFAULT_BASELINE;
  if (options.updateBaseline !== true && !fs.existsSync(baselineFile)) {
    throw new LabError(
      'INVALID_RESULTS',
      `ci: no baseline at ${baselineFile}; create it with ` +
        '`loglab ci --update-baseline` and commit it',
    );
  }
  const results = await runSuite();
  if (options.out !== undefined) writeResultsFile(options.out, results);
  if (options.updateBaseline === true) {
    writeResultsFile(baselineFile, results);
    process.stdout.write(
      `ci: wrote ${results.metrics.length} metrics to ${baselineFile}; ` +
        'commit it with the change that moved them\n',
    );
    return;
  }
  const current = { file: '(this run)', results, contractInferred: false };
  const comparison = compareDocuments(readBaselineFor(baselineFile, current), current, gate);
  reportComparison(comparison, gate.format, 'ci');
  const improved = comparison.metrics.some((metric) => metric.verdict === 'improved');
  if (improved && gate.format !== 'json') {
    process.stdout.write(
      'ci: some counters improved; keep the gain with ' +
        '`loglab ci --update-baseline` and commit the baseline\n',
    );
  }
}

export function registerCiCommand(program: Command): void {
  const command = program
    .command('ci')
    .description("run the storage core's counter suite and compare it with the committed baseline")
    .option('--baseline <file>', `the baseline results file (default ${DEFAULT_BASELINE})`)
    .option('--update-baseline', 'write this run as the new baseline instead of comparing')
    .option('--out <file>', "also write this run's results file here")
    .option('--threshold <percent>', 'smallest change that counts for ratios (default 5%)')
    .option('--format <format>', 'output: text, md, json', 'text');
  addAgainstOptions(command, 'the counter suite and the hot-path bench').action(
    (options: CiOptions) => ciCommand(options),
  );
}
