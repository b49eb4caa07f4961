import { describe, expect, it } from 'vitest';
import {
  assertChartsDeclared,
  byLabel,
  byQuantity,
  chart,
  chartSchema,
  panel,
  plot,
} from './chart-spec.js';
import { declareMetrics } from './metric-catalog.js';

const DEMO = declareMetrics('demo', {
  msgsPerSec: { unit: 'msgs/s', class: 'timing', direction: 'higher', labels: ['policy'] },
  latencyNs: { unit: 'ns', class: 'timing', direction: 'lower', labels: ['policy'] },
});

const RATE_VS_LATENCY = chart(
  'rate',
  'Rate',
  'Each point is one policy.',
  plot(DEMO.latencyNs, {
    yTitle: 'latency',
    x: byQuantity(DEMO.msgsPerSec, 'rate'),
    mark: 'point',
  }),
);

describe('a chart declaration', () => {
  it('plots declared quantities, referenced through their declarations', () => {
    expect(() => assertChartsDeclared('demo', DEMO, [RATE_VS_LATENCY])).not.toThrow();
    expect(RATE_VS_LATENCY.panels[0]).toMatchObject({
      quantity: 'latencyNs',
      x: { kind: 'quantity', quantity: 'msgsPerSec' },
    });
  });

  it('refuses a panel of a quantity the experiment does not declare', () => {
    const stray = panel({
      quantity: 'iops',
      yTitle: 'IOPS',
      x: byLabel('policy', 'policy'),
      mark: 'bar',
    });
    const iops = chart('iops', 'IOPS', 'One line per policy.', stray);
    expect(() => assertChartsDeclared('demo', DEMO, [iops])).toThrow(
      /demo-iops plots iops, which demo does not declare/,
    );
  });

  it('refuses a chart without a line on how to read it, or with its title again', () => {
    const rate = plot(DEMO.msgsPerSec, {
      yTitle: 'rate',
      x: byLabel('policy', 'policy'),
      mark: 'bar',
    });
    expect(() => chart('rate', 'Rate', ' ', rate)).toThrow(/how to read it/);
    expect(() => chart('rate', 'Rate', 'Rate', rate)).toThrow(/not the title again/);
  });

  it('reads back from JSON as it was declared, and a malformed one is refused', () => {
    const stored = JSON.parse(JSON.stringify(RATE_VS_LATENCY));
    expect(chartSchema.parse(stored)).toEqual(RATE_VS_LATENCY);
    expect(chartSchema.safeParse({ ...stored, panels: [] }).success).toBe(false);
  });
});
