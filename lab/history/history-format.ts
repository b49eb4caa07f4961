/**
 * How `loglab history show` and `loglab history check` print: aligned text tables for a
 * terminal, or JSON. A commit and a fingerprint are shown by their first 12 hex digits.
 */
import { classCell, verdictCell } from '../compare/compare-format.js';
import { formatFigure, formatInterval } from '../format.js';
import { alignedTable } from '../text-table.js';
import type { CheckOptions, DocumentCheck, MetricJudgement } from './check.js';
import type { HistoryMetric, HistoryRun } from './database.js';
import { describeMachine, shownFingerprint } from './fingerprint.js';

const shownCommit = (run: Pick<HistoryRun, 'commit' | 'dirty'>) =>
  `${shownFingerprint(run.commit)}${run.dirty === true ? ' (dirty)' : ''}`;
/** `2026-11-29T12:00:00.000Z` → `2026-11-29 12:00Z`. */
const shownTime = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)}Z`;

/** `t-test, window 10, boundary 0.99`: the test and its parameters, as Bencher names them. */
export function testDescription(options: CheckOptions): string {
  return `t-test, window ${options.windowRuns}, boundary ${options.boundary}`;
}

function checkHeader(options: CheckOptions): string {
  const gating = options.gateTimings
    ? 'counters, ratios, timings and measurements gated'
    : 'counters and ratios gated, timings and measurements reported only (--gate-timings)';
  return [
    `history check: ${testDescription(options)}`,
    `  each metric's median against its last ${options.windowRuns} earlier runs of the same ` +
      'machine, experiment and parameters,',
    `  limits mean ± t(${options.boundary}, n − 1) · s · √(1 + 1/n); counters exact against the ` +
      'newest earlier run;',
    `  ${gating}; informational never fail`,
  ].join('\n');
}

function limitsCell(metric: MetricJudgement): string {
  if (metric.limits === null) return metric.note ?? '';
  if (metric.test === 'exact') return `= ${formatFigure(metric.limits[0])} (exact)`;
  return `${formatInterval(metric.limits)} (${metric.windowRuns} runs)`;
}

function judgementRow(metric: MetricJudgement): string[] {
  return [
    metric.name,
    classCell(metric),
    `${formatFigure(metric.value)} ${metric.unit}`,
    limitsCell(metric),
    metric.verdict === 'not judged' ? 'not judged' : verdictCell(metric),
  ];
}

const JUDGEMENT_HEADER = ['metric', 'class', 'value', 'limits', 'verdict'];

function documentLines(check: DocumentCheck): string[] {
  const newest = check.window[0]!;
  const oldest = check.window[check.window.length - 1]!;
  const failed = check.failures.map((metric) => metric.name);
  return [
    `${check.file}: ${check.experimentId} on machine ${shownFingerprint(check.run.fingerprint)} ` +
      `(${describeMachine(check.run.machine)}), against ${check.window.length} earlier run(s), ` +
      `commits ${shownCommit(oldest)} … ${shownCommit(newest)}`,
    ...alignedTable(JUDGEMENT_HEADER, check.metrics.map(judgementRow)),
    failed.length === 0
      ? `${check.experimentId}: no gated regression`
      : `${check.experimentId}: ${failed.length} gated metric(s) regressed: ${failed.join(', ')}`,
  ];
}

/** What the check prints: its header, then each document's table. */
export function formatChecks(
  checks: readonly DocumentCheck[],
  options: CheckOptions,
  json: boolean,
): string {
  if (!json) {
    const tables = checks.map((check) => documentLines(check).join('\n'));
    return [checkHeader(options), ...tables].join('\n\n');
  }
  const documents = checks.map((check) => ({
    file: check.file,
    experimentId: check.experimentId,
    fingerprint: check.run.fingerprint,
    window: check.window.map((run) => ({ commit: run.commit, startedAt: run.startedAt })),
    metrics: check.metrics,
    failures: check.failures.map((metric) => metric.name),
  }));
  return JSON.stringify({ test: { name: 't-test', ...options }, documents }, null, 2);
}

/** One failure for the error line: the metric, its value and the limit it crossed. */
export function failureSentence(metric: MetricJudgement, file: string): string {
  const value = `${formatFigure(metric.value)} ${metric.unit}`;
  if (metric.test === 'exact') {
    return `${metric.name} = ${value} in ${file}, was ${formatFigure(metric.limits![0])} (exact)`;
  }
  const [lower, upper] = metric.limits!;
  const side =
    metric.value < lower
      ? `below the lower limit ${formatFigure(lower)}`
      : `above the upper limit ${formatFigure(upper)}`;
  return (
    `${metric.name} = ${value} in ${file}, ${side} (limits ${formatInterval(metric.limits!)} ` +
    `from ${metric.windowRuns} earlier runs)`
  );
}

export interface MetricValue {
  readonly run: HistoryRun;
  readonly metric: HistoryMetric;
}

const RUNS_HEADER = ['commit', 'started', 'machine', 'host', 'experiments'];

/** One line per commit and machine: the experiments recorded there, and when the first began. */
export function formatRuns(runs: readonly HistoryRun[], json: boolean): string {
  if (json) return JSON.stringify({ runs }, null, 2);
  const groups = new Map<string, HistoryRun[]>();
  for (const run of runs) {
    const key = `${run.commit} ${run.fingerprint}`;
    const group = groups.get(key) ?? [];
    group.push(run);
    groups.set(key, group);
  }
  const rows = [...groups.values()].map((group) => {
    const first = group[0]!;
    const counts = new Map<string, number>();
    for (const run of group) counts.set(run.experimentId, (counts.get(run.experimentId) ?? 0) + 1);
    const experiments = [...counts].map(([id, n]) => (n === 1 ? id : `${id} ×${n}`));
    const dirty = group.some((run) => run.dirty === true);
    return [
      shownCommit({ commit: first.commit, dirty }),
      shownTime(first.startedAt),
      shownFingerprint(first.fingerprint),
      first.hostname,
      experiments.join(', '),
    ];
  });
  const machines = new Set(runs.map((run) => run.fingerprint)).size;
  const summary =
    `${runs.length} results file(s), ${groups.size} commit(s) × machine, ` +
    `${machines} machine(s)`;
  return [...alignedTable(RUNS_HEADER, rows), summary].join('\n');
}

const VALUES_HEADER = ['commit', 'started', 'machine', 'experiment', 'metric', 'median', 'rounds'];

function roundsCell(rounds: readonly number[]): string {
  if (rounds.length === 0) return 'one value';
  return `${rounds.length}: ${formatInterval([Math.min(...rounds), Math.max(...rounds)])}`;
}

/** A metric's values across commits, oldest first: its median and the span of its rounds. */
export function formatValues(values: readonly MetricValue[], json: boolean): string {
  if (json) return JSON.stringify({ values }, null, 2);
  const rows = values.map(({ run, metric }) => [
    shownCommit(run),
    shownTime(run.startedAt),
    shownFingerprint(run.fingerprint),
    run.experimentId,
    metric.name,
    `${formatFigure(metric.median)} ${metric.unit}`,
    roundsCell(metric.rounds),
  ]);
  return alignedTable(VALUES_HEADER, rows).join('\n');
}
