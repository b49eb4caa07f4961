/**
 * The trend document of a results history (trend-document.ts): every gated metric (counters and
 * ratios, by the metric contract) of every series, across the commits its runs measured.
 */
import { isGated } from '../compare/compare.js';
import type { HistoryDatabase, HistoryMetric, HistoryRun } from './database.js';
import { shownFingerprint } from './fingerprint.js';
import {
  TREND_SCHEMA,
  type TrendDocument,
  type TrendPoint,
  type TrendSeries,
  trendDocumentSchema,
} from './trend-document.js';

function pointOf(run: HistoryRun, metric: HistoryMetric): TrendPoint {
  const values = metric.rounds.length === 0 ? [metric.median] : metric.rounds;
  return {
    commit: run.commit,
    dirty: run.dirty,
    startedAt: run.startedAt,
    median: metric.median,
    low: Math.min(...values),
    high: Math.max(...values),
    rounds: metric.rounds.length,
  };
}

/** `3f9a1c2b7d4e, quick`; a second set of parameters on one machine gets `#2`, and so on. */
function seriesLabels(runs: readonly HistoryRun[]): Map<string, string> {
  const labels = new Map<string, string>();
  const used = new Map<string, number>();
  for (const run of runs) {
    const key = `${run.experimentId} ${run.fingerprint} ${run.parametersKey}`;
    if (labels.has(key)) continue;
    const quick = (JSON.parse(run.parametersKey) as { quick?: unknown }).quick === true;
    const base = `${shownFingerprint(run.fingerprint)}${quick ? ', quick' : ''}`;
    const copy = (used.get(`${run.experimentId} ${base}`) ?? 0) + 1;
    used.set(`${run.experimentId} ${base}`, copy);
    labels.set(key, copy === 1 ? base : `${base} #${copy}`);
  }
  return labels;
}

/** Every gated metric's series in `db`, for the experiments given (all when none are). */
export function buildTrend(db: HistoryDatabase, experimentIds?: readonly string[]): TrendDocument {
  const runs = db
    .allRuns()
    .filter((run) => experimentIds === undefined || experimentIds.includes(run.experimentId));
  const labels = seriesLabels(runs);
  const series = new Map<string, { series: Omit<TrendSeries, 'points'>; points: TrendPoint[] }>();
  for (const run of runs) {
    const label = labels.get(`${run.experimentId} ${run.fingerprint} ${run.parametersKey}`)!;
    for (const metric of db.metricsOf(run.id).filter((m) => isGated(m, false))) {
      const key = JSON.stringify([label, run.experimentId, metric.name, metric.unit, metric.class]);
      const entry = series.get(key) ?? {
        series: {
          experimentId: run.experimentId,
          metric: metric.name,
          unit: metric.unit,
          direction: metric.direction,
          labels: metric.labels,
          series: label,
        },
        points: [],
      };
      entry.points.push(pointOf(run, metric));
      series.set(key, entry);
    }
  }
  const all = [...series.values()].map((entry) => ({ ...entry.series, points: entry.points }));
  return trendDocumentSchema.parse({ schema: TREND_SCHEMA, series: all });
}
