/**
 * The chart an experiment gets when none of the charts its documents declare has figures: one bar
 * per metric, a panel per unit, so figures of different units never share an axis.
 */
import type { ExperimentGroup } from '../runs.js';
import { chart, panel, type ChartDef } from '../../lab/chart-spec.js';

export function genericChart(group: ExperimentGroup): ChartDef {
  const units = [...new Set(group.runs.flatMap((run) => run.results.metrics.map((m) => m.unit)))];
  const panels = units.map((unit) =>
    panel({
      quantity: null,
      unit,
      yTitle: 'median',
      x: { kind: 'name', title: 'metric' },
      mark: 'bar',
    }),
  );
  return chart(
    'figures',
    `Figures of ${group.id}, one bar per metric`,
    'One bar per metric, one panel per unit: no chart is declared for this experiment, so ' +
      'every figure is drawn as it was recorded.',
    ...panels,
  );
}
