/**
 * `loglab history check`: each metric of a new results document judged against the same metric
 * in the last N runs of its series (machine fingerprint, experiment, parameters) that started
 * before it. What can fail follows the metric contract of `compare` (lab/compare/compare.ts,
 * docs/results-format.md):
 *
 * - counters, decided by the code alone, exactly: any change from the newest earlier run beyond
 *   floating-point rounding counts;
 * - everything else by the t-test (t-test.ts) on the window's medians: beyond the limit on the
 *   bad side is `regressed`, on the good side `improved`;
 * - gated (able to fail the check): counters and ratios; raw timings and measurements only with
 *   `gateTimings`; informational metrics never.
 *
 * A metric whose unit, kind or class differs in an earlier run is another metric there: those
 * runs are left out of its window.
 */
import { type Verdict, counterVerdict, isGated, judge } from '../compare/compare.js';
import { LabError } from '../errors.js';
import type { NamedResults } from '../results-documents.js';
import type { Metric } from '../results.js';
import type { HistoryDatabase, HistoryMetric, HistoryRun } from './database.js';
import { machineDifferences, shownFingerprint } from './fingerprint.js';
import { type RunIdentity, runIdentity } from './run-record.js';
import { MIN_WINDOW_RUNS, tTestLimits } from './t-test.js';

export interface CheckOptions {
  readonly windowRuns: number;
  readonly boundary: number;
  readonly gateTimings: boolean;
}

export interface MetricJudgement
  extends Readonly<Pick<Metric, 'name' | 'unit' | 'kind' | 'class' | 'direction'>> {
  /** The new run's median. */
  readonly value: number;
  /** `exact` for a counter (against the newest earlier run), `t-test` for the rest. */
  readonly test: 'exact' | 't-test';
  /** Earlier runs that hold the metric, of those in the window. */
  readonly windowRuns: number;
  /** What the value may be without a verdict; a counter's is the earlier value twice. */
  readonly limits: readonly [number, number] | null;
  readonly verdict: Verdict | 'not judged';
  /** Why it was not judged. */
  readonly note: string | null;
  /** Whether this verdict can fail the check. */
  readonly gated: boolean;
}

export interface DocumentCheck {
  readonly file: string;
  readonly experimentId: string;
  readonly run: RunIdentity;
  /** The window's runs, newest first. */
  readonly window: readonly HistoryRun[];
  readonly metrics: readonly MetricJudgement[];
  /** Gated metrics that regressed. */
  readonly failures: readonly MetricJudgement[];
}

type Judged = Pick<MetricJudgement, 'test' | 'limits' | 'verdict' | 'note'>;

function judgeCounter(metric: Metric, earlier: readonly HistoryMetric[]): Judged {
  const newest = earlier[0];
  if (newest === undefined) {
    return { test: 'exact', limits: null, verdict: 'not judged', note: 'no earlier run has it' };
  }
  const verdict = counterVerdict(newest.median, metric.median, metric.direction);
  return { test: 'exact', limits: [newest.median, newest.median], verdict, note: null };
}

function judgeVarying(metric: Metric, earlier: readonly HistoryMetric[], boundary: number): Judged {
  const limits = tTestLimits(
    earlier.map((run) => run.median),
    boundary,
  );
  if (limits === 'too few runs') {
    const note = `${earlier.length} earlier run(s) hold it; the t-test needs ${MIN_WINDOW_RUNS}`;
    return { test: 't-test', limits: null, verdict: 'not judged', note };
  }
  if (limits === 'no spread') {
    const note = `its ${earlier.length} earlier values are all equal: no spread to test against`;
    return { test: 't-test', limits: null, verdict: 'not judged', note };
  }
  const { direction, median } = metric;
  const verdict =
    median < limits.lower
      ? judge(direction, direction === 'lower')
      : median > limits.upper
        ? judge(direction, direction === 'higher')
        : 'within noise';
  return { test: 't-test', limits: [limits.lower, limits.upper], verdict, note: null };
}

const sameMetric =
  (metric: Metric) =>
  (stored: HistoryMetric | undefined): stored is HistoryMetric =>
    stored !== undefined &&
    stored.unit === metric.unit &&
    stored.kind === metric.kind &&
    stored.class === metric.class;

export function judgeMetric(
  metric: Metric,
  earlier: readonly HistoryMetric[],
  options: CheckOptions,
): MetricJudgement {
  const judged =
    metric.class === 'counter'
      ? judgeCounter(metric, earlier)
      : judgeVarying(metric, earlier, options.boundary);
  return {
    name: metric.name,
    unit: metric.unit,
    kind: metric.kind,
    class: metric.class,
    direction: metric.direction,
    value: metric.median,
    windowRuns: earlier.length,
    gated: judged.verdict !== 'not judged' && isGated(metric, options.gateTimings),
    ...judged,
  };
}

/** Why a document has nothing to be judged against, in one line, with what to do. */
function noUsableHistory(db: HistoryDatabase, run: RunIdentity): LabError {
  const series = db.seriesOf(run.experimentId);
  const here = series.filter((s) => s.fingerprint === run.fingerprint);
  const machine = `this machine (${shownFingerprint(run.fingerprint)})`;
  const what = `${run.sourceFile}: ${db.file} holds no run of ${run.experimentId}`;
  let why: string;
  if (series.length === 0) {
    why = `${what}; add earlier runs of it first ('loglab history add')`;
  } else if (here.some((s) => s.parametersKey === run.parametersKey)) {
    why = `${what} on ${machine} that started before this one; check a later run`;
  } else if (here.length > 0) {
    why =
      `${what} on ${machine} with these parameters (${here.length} other set(s): quick or ` +
      'full, --seconds); check a run made with the parameters of the runs recorded';
  } else {
    const others = series.map(
      (s) =>
        `${shownFingerprint(s.fingerprint)}, ${s.runs} run(s), differing in ` +
        machineDifferences(s.machine, run.machine).join(', '),
    );
    why =
      `${what} on ${machine}, only of other machines (${others.join('; ')}); check on the ` +
      "machine the history was recorded on, or start this machine's with 'loglab history add'";
  }
  return new LabError('NO_USABLE_HISTORY', `history check: ${why}`);
}

/** Judges `doc` against its series' last `options.windowRuns` earlier runs in `db`. */
export function checkDocument(
  db: HistoryDatabase,
  doc: NamedResults,
  options: CheckOptions,
): DocumentCheck {
  const run = runIdentity(doc);
  const window = db.windowRuns(run, run.startedAt, run.documentSha256, options.windowRuns);
  if (window.length === 0) throw noUsableHistory(db, run);
  const stored = window.map((earlier) => new Map(db.metricsOf(earlier.id).map((m) => [m.name, m])));
  const metrics = run.metrics.map((metric) => {
    const earlier = stored.map((byName) => byName.get(metric.name)).filter(sameMetric(metric));
    return judgeMetric(metric, earlier, options);
  });
  return {
    file: doc.file,
    experimentId: run.experimentId,
    run,
    window,
    metrics,
    failures: metrics.filter((metric) => metric.gated && metric.verdict === 'regressed'),
  };
}
