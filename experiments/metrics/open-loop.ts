/**
 * The open-loop phase's quantities (experiments/support/open-loop.ts), declared by every
 * experiment that runs one, with its series' label keys.
 */
import type { MetricCatalog, MetricDeclaration } from '../../lab/metric-catalog.js';

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
