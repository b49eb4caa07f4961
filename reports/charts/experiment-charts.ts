/**
 * The charts of one experiment: those its results documents declare (`charts`, written by the
 * experiment) that have figures, or the generic chart when none has.
 */
import type { ChartDef } from '../../lab/chart-spec.js';
import type { ExperimentGroup } from '../runs.js';
import { genericChart } from './generic-chart.js';
import { panelData, type PanelData } from './panel-points.js';
import { buildChartSpec, type VegaLiteSpec } from './vega-lite-spec.js';

export interface ExperimentChart {
  readonly experimentId: string;
  readonly def: ChartDef;
  readonly panels: readonly PanelData[];
  readonly spec: VegaLiteSpec;
}

function withFigures(def: ChartDef, group: ExperimentGroup): ExperimentChart | null {
  const panels = def.panels
    .map((panel) => panelData(panel, group))
    .filter((data): data is PanelData => data !== null);
  if (panels.length === 0) return null;
  return { experimentId: group.id, def, panels, spec: buildChartSpec(def, panels) };
}

/** The charts the group's first document that declares any declares: runs of one code agree. */
export function declaredCharts(group: ExperimentGroup): readonly ChartDef[] {
  return group.runs.find((run) => run.results.charts !== undefined)?.results.charts ?? [];
}

export function experimentCharts(group: ExperimentGroup): readonly ExperimentChart[] {
  const charts = declaredCharts(group)
    .map((def) => withFigures(def, group))
    .filter((built): built is ExperimentChart => built !== null);
  if (charts.length > 0) return charts;
  const generic = withFigures(genericChart(group), group);
  return generic === null ? [] : [generic];
}
