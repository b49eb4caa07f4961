import { describe, expect, it } from 'vitest';
import { assertExperiment } from '../lab/experiment.js';
import { experimentOf } from '../lab/metric-catalog.js';
import { experiments } from './index.js';

describe('the experiment registry', () => {
  it('holds valid experiments with unique ids', () => {
    for (const experiment of experiments) assertExperiment(experiment);
    const ids = experiments.map((experiment) => experiment.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives every experiment a catalog of its own metrics and charts of them', () => {
    for (const experiment of experiments) {
      expect(experiment.metrics, `${experiment.id} declares its metrics`).toBeDefined();
      expect(experimentOf(experiment.metrics!)).toBe(experiment.id);
      expect(experiment.charts?.length, `${experiment.id} has charts`).toBeGreaterThan(0);
    }
  });

  it('runs and reports the experiments in the order the course asks them', () => {
    // Experiments added later (batching, record-size) follow the first ten.
    expect(experiments.map((experiment) => experiment.id).slice(0, 10)).toEqual([
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
