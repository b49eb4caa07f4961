/**
 * What a reader must know before trusting the first screen: the run was noisy, it did not
 * measure a disk (`environment.storage`), other programs shared the disk (`deviceShared`), or
 * the hypervisor took the CPUs away (`cpuSteal`).
 */
import { type Metric, STEAL_NOTE_SHARE } from '../lab/results.js';
import { quantityOf } from './figures.js';
import { metricTitle } from './metric-titles.js';
import type { Run } from './runs.js';
import { formatFigure } from '../lab/format.js';
import { formatLabelValue } from './units.js';

/** Rounds below this say too little about their spread to call a run noisy. */
export const NOISY_MIN_ROUNDS = 6;
/** A figure whose rounds vary by more than this (coefficient of variation) is noisy. */
export const NOISY_CV = 0.25;

const percent = (share: number): string => `${formatFigure(share * 100)}%`;

function spread(metric: Metric): number | null {
  if (metric.class === 'counter' || metric.cv === undefined) return null;
  if ((metric.samples?.length ?? 0) < NOISY_MIN_ROUNDS) return null;
  return metric.cv;
}

function figureName(run: Run, metric: Metric): string {
  const id = run.results.experiment.id;
  const labels = Object.entries(metric.labels ?? {})
    .filter(([key]) => key !== 'comparison' && key !== 'mode' && key !== 'deletes')
    .map(([key, value]) => formatLabelValue(key, value))
    .join(' ');
  const title = metricTitle([run.results], quantityOf(metric.name));
  return `${id} ${title}${labels === '' ? '' : ` (${labels})`}`;
}

function noisyWarning(runs: readonly Run[]): string | null {
  const spreads = runs.flatMap((run) =>
    run.results.metrics.flatMap((metric) => {
      const cv = spread(metric);
      return cv === null ? [] : [{ run, metric, cv }];
    }),
  );
  const noisy = spreads.filter((entry) => entry.cv > NOISY_CV).sort((a, b) => b.cv - a.cv);
  const worst = noisy[0];
  if (worst === undefined) return null;
  return (
    `Noisy run: ${noisy.length} of ${spreads.length} timed figures measured over ` +
    `${NOISY_MIN_ROUNDS} or more rounds varied by more than ${percent(NOISY_CV)} from round to ` +
    `round (coefficient of variation), most ${figureName(worst.run, worst.metric)} at ` +
    `${percent(worst.cv)}. Differences within that spread are not findings: rerun on an idle ` +
    'machine, or with more rounds.'
  );
}

function experimentsOf(runs: readonly Run[]): string {
  return [...new Set(runs.map((run) => run.results.experiment.id))].join(', ');
}

function storageWarning(runs: readonly Run[]): string | null {
  const off = runs.filter(
    (run) =>
      run.results.environment.storage !== undefined && run.results.environment.storage !== 'block',
  );
  if (off.length === 0) return null;
  const kinds = [...new Set(off.map((run) => run.results.environment.storage))].join(', ');
  return (
    `Not a disk: ${experimentsOf(off)} measured ${kinds} storage, not a block device, so ` +
    'their figures say nothing about a disk; point `--dir` at a disk to measure one.'
  );
}

function sharedWarning(runs: readonly Run[]): string | null {
  const shared = runs.filter((run) => run.results.deviceShared !== undefined);
  if (shared.length === 0) return null;
  const most = Math.max(...shared.map((run) => run.results.deviceShared?.fraction ?? 0));
  return (
    `Busy disk: other programs wrote up to ${percent(most)} of the disk's bytes while ` +
    `${experimentsOf(shared)} ran, so device figures (bytes, I/Os and flushes per message) ` +
    'count their writes too.'
  );
}

function stealWarning(runs: readonly Run[]): string | null {
  const busy = runs.filter((run) => (run.results.cpuSteal?.share ?? 0) >= STEAL_NOTE_SHARE);
  if (busy.length === 0) return null;
  const most = Math.max(...busy.map((run) => run.results.cpuSteal?.share ?? 0));
  return (
    `Busy host: the hypervisor gave up to ${percent(most)} of this machine's CPU time to other ` +
    `guests while ${experimentsOf(busy)} ran (steal), so their timings and ratios are noisier ` +
    'than on a quiet machine.'
  );
}

/** One line per reason to read the figures with care; empty when there is none. */
export function runWarnings(runs: readonly Run[]): readonly string[] {
  return [noisyWarning(runs), storageWarning(runs), sharedWarning(runs), stealWarning(runs)].filter(
    (line): line is string => line !== null,
  );
}
