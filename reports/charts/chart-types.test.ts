import { describe, expect, it } from 'vitest';
import { declareMetrics } from '../../lab/metric-catalog.js';
import { byLabel, byQuantity, chart, chartsOf, panel, plot } from './chart-types.js';
import { CHART_TABLE } from './chart-table.js';

const DEMO = declareMetrics('demo', {
  msgsPerSec: { unit: 'msgs/s', class: 'timing', direction: 'higher', labels: ['policy'] },
  latencyNs: { unit: 'ns', class: 'timing', direction: 'lower', labels: ['policy'] },
});

describe('the chart table', () => {
  it('keys charts by the experiment their catalog declares and plots declared quantities', () => {
    const [id, charts] = chartsOf(DEMO, [chart('rate', 'Rate',
      plot(DEMO.latencyNs, { yTitle: 'latency', x: byQuantity(DEMO.msgsPerSec, 'rate'),
        mark: 'point' }))]);
    expect(id).toBe('demo');
    expect(charts[0]!.panels[0]).toMatchObject({ quantity: 'latencyNs',
      x: { kind: 'quantity', quantity: 'msgsPerSec' } });
  });

  it('refuses a panel of a quantity the experiment does not declare', () => {
    const stray = panel({ quantity: 'iops', yTitle: 'IOPS', x: byLabel('policy', 'policy'),
      mark: 'bar' });
    expect(() => chartsOf(DEMO, [chart('iops', 'IOPS', stray)]))
      .toThrow(/demo-iops plots iops, which demo does not declare/);
  });

  it('holds every experiment with charts, in report order', () => {
    expect(Object.keys(CHART_TABLE)).toEqual(['puzzle', 'write-amplification', 'queue-depth',
      'page-cache', 'durability', 'index-density', 'scan-vs-lookup', 'segment-size', 'recovery',
      'crash-safety']);
  });
});
