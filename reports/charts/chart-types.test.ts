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
    const [id, charts] = chartsOf(DEMO, [
      chart(
        'rate',
        'Rate',
        'Each point is one policy.',
        plot(DEMO.latencyNs, {
          yTitle: 'latency',
          x: byQuantity(DEMO.msgsPerSec, 'rate'),
          mark: 'point',
        }),
      ),
    ]);
    expect(id).toBe('demo');
    expect(charts[0]!.panels[0]).toMatchObject({
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
    expect(() => chartsOf(DEMO, [chart('iops', 'IOPS', 'One line per policy.', stray)])).toThrow(
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

  it('holds every experiment with charts, in report order', () => {
    // Experiments added later (batching) follow the first ten.
    expect(Object.keys(CHART_TABLE).slice(0, 10)).toEqual([
      'puzzle',
      'write-amplification',
      'queue-depth',
      'page-cache',
      'durability',
      'index-density',
      'scan-vs-lookup',
      'segment-size',
      'recovery',
      'crash-safety',
    ]);
  });
});
