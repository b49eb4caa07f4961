import { describe, expect, it } from 'vitest';
import { assertExperiment } from '../lab/experiment.js';
import { experiments } from './index.js';

describe('the experiment registry', () => {
  it('holds valid experiments with unique ids', () => {
    for (const experiment of experiments) assertExperiment(experiment);
    const ids = experiments.map((experiment) => experiment.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('registers the index, segment and recovery experiments', () => {
    const ids = experiments.map((experiment) => experiment.id);
    const storageExperiments = ['index-density', 'scan-vs-lookup', 'segment-size', 'recovery'];
    expect(ids).toEqual(expect.arrayContaining(storageExperiments));
  });
});
