import { describe, expect, it } from 'vitest';
import { assertExperiment } from '../lab/experiment.js';
import { experimentOf } from '../lab/metric-catalog.js';
import { CHART_TABLE } from '../reports/charts/chart-table.js';
import { experiments } from './index.js';

describe('the experiment registry', () => {
  it('holds valid experiments with unique ids', () => {
    for (const experiment of experiments) assertExperiment(experiment);
    const ids = experiments.map((experiment) => experiment.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives every experiment a catalog of its own metrics, which the charts reference', () => {
    for (const experiment of experiments) {
      expect(experiment.metrics, `${experiment.id} declares its metrics`).toBeDefined();
      expect(experimentOf(experiment.metrics!)).toBe(experiment.id);
      const charted = CHART_TABLE[experiment.id] ?? [];
      expect(charted.length, `${experiment.id} has charts`).toBeGreaterThan(0);
    }
  });

  it('registers the index, segment and recovery experiments', () => {
    const ids = experiments.map((experiment) => experiment.id);
    const storageExperiments = ['index-density', 'scan-vs-lookup', 'segment-size', 'recovery'];
    expect(ids).toEqual(expect.arrayContaining(storageExperiments));
  });
});
