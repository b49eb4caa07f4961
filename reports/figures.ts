/**
 * Figures of one experiment as reports see them: a metric name's quantity (the last dotted
 * segment), its labels, and the model predictions of the same name beside it.
 */
import type { Metric, Prediction, Results } from '../lab/results.js';
import type { ExperimentGroup, Run } from './runs.js';

export type LabelValue = string | number | boolean;
export type Labels = Readonly<Record<string, LabelValue>>;

/** `puzzle.A.always.msgsPerSec` → `msgsPerSec`. */
export function quantityOf(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

/**
 * A prediction's labels: its own, completed from the measured metric of the same name, so a model
 * figure recorded without labels still lands beside the bar it predicts.
 */
export function predictionLabels(results: Results, prediction: Prediction): Labels {
  const metric = results.metrics.find((candidate) => candidate.name === prediction.name);
  return { ...(metric?.labels ?? {}), ...(prediction.labels ?? {}) };
}

/** One line of an experiment's table: a figure name measured (or only predicted) on one run. */
export interface FigureRow {
  readonly run: Run;
  readonly name: string;
  readonly quantity: string;
  readonly labels: Labels;
  readonly metric: Metric | null;
  readonly predictions: readonly Prediction[];
}

function namesInOrder(group: ExperimentGroup): readonly string[] {
  const names = new Set<string>();
  for (const run of group.runs) for (const metric of run.results.metrics) names.add(metric.name);
  for (const run of group.runs) {
    for (const prediction of run.results.predictions) names.add(prediction.name);
  }
  return [...names];
}

/** Rows by figure name (first appearance), then by run, so machines sit side by side. */
export function figureRows(group: ExperimentGroup): readonly FigureRow[] {
  const rows: FigureRow[] = [];
  for (const name of namesInOrder(group)) {
    for (const run of group.runs) {
      const metric = run.results.metrics.find((candidate) => candidate.name === name) ?? null;
      const predictions = run.results.predictions.filter((candidate) => candidate.name === name);
      if (metric === null && predictions.length === 0) continue;
      const first = predictions[0];
      const labels =
        metric?.labels ?? (first === undefined ? {} : predictionLabels(run.results, first));
      rows.push({ run, name, quantity: quantityOf(name), labels, metric, predictions });
    }
  }
  return rows;
}

/** Label keys used by an experiment's figures, in first-appearance order. */
export function labelKeys(rows: readonly FigureRow[]): readonly string[] {
  const keys = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row.labels)) keys.add(key);
  return [...keys];
}
