import { describe, expect, it } from 'vitest';
import { runExperiment } from '../lab/experiment.js';
import { findMetric } from '../lab/results.js';
import { DURABILITY_POLICIES } from '../storage/io/durability.js';
import { expectMetricContract } from '../test/fixtures/metric-contract.js';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import { experiment } from './crash-safety.js';

const newDir = tempDirs('crash-safety');
const QUANTITIES = [
  'iterations',
  'crashes',
  'faultsInjected',
  'ackedChecked',
  'lost',
  'violations',
];

describe('the crash-safety experiment', () => {
  it('reports work done as measurements (iterations fit the budget), promises as counters', async () => {
    const results = await runExperiment(experiment, { dir: newDir(), quick: true, seconds: 0.3 });
    expectMetricContract(results);
    const promised = [
      'crash.always.lost',
      'crash.group.lost',
      ...DURABILITY_POLICIES.map((policy) => `crash.${policy}.violations`),
    ];
    for (const metric of results.metrics) {
      expect(metric.unit.length, metric.name).toBeGreaterThan(0);
      expect(metric.class, metric.name).toBe(
        promised.includes(metric.name) ? 'counter' : 'measurement',
      );
    }
    for (const policy of DURABILITY_POLICIES) {
      for (const quantity of QUANTITIES) {
        const metric = findMetric(results, `crash.${policy}.${quantity}`);
        expect(metric?.labels, `crash.${policy}.${quantity}`).toEqual({ policy });
      }
      expect(findMetric(results, `crash.${policy}.iterations`)!.median).toBeGreaterThan(0);
    }
    expect(findMetric(results, 'crash.always.lost')?.median).toBe(0);
    expect(findMetric(results, 'crash.group.lost')?.median).toBe(0);
    expect(findMetric(results, 'crash.none.lossWindowMsgs')?.unit).toBe('msgs');
    expect(results.headline).toMatch(/always and group lost none of [\d,]+ acknowledged messages/);
  });
});
