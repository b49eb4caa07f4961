/**
 * The open-loop phase's quantities (experiments/support/open-loop.ts), declared by every
 * experiment that runs one, with its series' label keys.
 */
import { type ChartDef, byLabel, chart, plot } from '../../lab/chart-spec.js';
import type { MetricCatalog, MetricDeclaration, MetricSpec } from '../../lab/metric-catalog.js';

export function openLoopDeclarations(seriesLabels: readonly string[]) {
  const labels = [...seriesLabels, 'offeredPct', 'offeredPerSec', 'mode'];
  return {
    openLoopLatencyNs: {
      unit: 'ns',
      class: 'timing',
      direction: 'lower',
      labels,
      title: 'latency from the intended send (open loop)',
    },
    openLoopServiceNs: {
      unit: 'ns',
      class: 'timing',
      direction: 'lower',
      labels,
      title: 'latency from the actual send (open loop)',
    },
    openLoopMsgsPerSec: {
      unit: 'msgs/s',
      class: 'timing',
      direction: 'higher',
      labels,
      title: 'throughput achieved (open loop)',
    },
    // Whether a send waits behind another is up to the disk and the scheduler.
    openLoopLateSends: {
      unit: 'msgs',
      class: 'measurement',
      direction: 'lower',
      labels,
      title: 'sends started late (open loop)',
    },
  } as const satisfies Record<string, MetricDeclaration>;
}

export type OpenLoopSpecs = MetricCatalog<keyof ReturnType<typeof openLoopDeclarations>>;

/**
 * The open-loop phase's offered load, a share of the series' own closed-loop rate: lines of
 * series whose closed-loop rates differ tenfold still share an axis (the rate is in the labels).
 */
const OFFERED = byLabel('offeredPct', 'offered load (% of the closed-loop rate)', 'quantitative');

/**
 * Latency from the intended send time against offered load: the median, and beside it the 99th
 * percentile of the rates that sent the 100 sends it needs. One statistic per panel, so no line
 * turns from a median into a p99 as the sample count grows.
 */
export function openLoopChart(
  latencyNs: MetricSpec,
  title: string,
  series: readonly string[],
  seriesTitle: string,
): ChartDef {
  const latency = (statistic: 'median' | 'p99', yTitle: string) =>
    plot(latencyNs, {
      statistic,
      yTitle,
      x: OFFERED,
      series,
      seriesTitle,
      mark: 'line',
    });
  return chart(
    'open-loop-latency',
    title,
    'Each line is one series offered a share of its own closed-loop rate; lower is better, and ' +
      'a line that turns up steeply before 90% is sends queueing behind the disk.',
    latency('median', 'median latency from the intended send'),
    latency('p99', 'p99 latency from the intended send'),
  );
}
