import { describe, expect, it } from 'vitest';
import { DEFAULT_THRESHOLD, compareDocuments, isGated } from '../lab/compare/compare.js';
import { type Experiment, assertExperiment } from '../lab/experiment.js';
import { type MetricSpec, experimentOf } from '../lab/metric-catalog.js';
import type { Results } from '../lab/results.js';
import { MEDIAN_CI_MIN_SAMPLES } from '../lab/stats.js';
import { sampleResults } from '../test/fixtures/sample-results.js';
import { worsened } from '../test/fixtures/worsened.js';
import { benchSuites } from './bench/index.js';
import { experiment as ciCounters } from './ci-counters.js';
import { experiments } from './index.js';

/** What loglab runs and compares: the experiments, the benches and `loglab ci`'s counters. */
const everyExperiment: readonly Experiment[] = [
  ...new Set([...experiments, ...benchSuites.map((suite) => suite.experiment), ciCounters]),
];
const byId = everyExperiment.map((experiment) => [experiment.id, experiment] as const);

/** The declarations whose figures can fail a comparison, by compare's own rule. */
const gatedSpecs = (experiment: Experiment): MetricSpec[] =>
  Object.values(experiment.metrics ?? {}).filter((spec) => isGated(spec, false));

/**
 * A document with one figure of each declaration, per-round ones over the experiment's full
 * rounds (6 where it has no such parameter): what its full run gives compare to judge.
 */
function declaredFigures(experiment: Experiment): Results {
  const rounds = Number(experiment.params.rounds?.full ?? MEDIAN_CI_MIN_SAMPLES);
  const samples = Array.from({ length: rounds }, (_, i) => 100 + (i % 3));
  const metrics = Object.values(experiment.metrics ?? {}).map((spec) => {
    const name = `${experiment.id}.${spec.key}.${spec.quantity}`;
    return spec.class === 'counter'
      ? spec.counter(name, 100, {})
      : spec.fromSamples(name, samples, {});
  });
  return sampleResults({ experiment: { id: experiment.id, question: 'q?' }, metrics });
}

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

describe('what a comparison of each experiment can fail on', () => {
  it.each(byId)('%s declares a figure compare gates', (id, experiment) => {
    expect(experiment.metrics, `${id} declares its metrics`).toBeDefined();
    expect(
      gatedSpecs(experiment).map((spec) => spec.key),
      `${id}: no declared figure is a counter, a within-run ratio or a measurement with a ` +
        'direction, so its comparison can never fail',
    ).not.toEqual([]);
  });

  it.each(byId)(
    '%s fails a comparison with every figure made worse by half, at its full rounds',
    (id, experiment) => {
      const baseline = declaredFigures(experiment);
      const comparison = compareDocuments(
        { file: 'baseline.json', results: baseline, contractInferred: false },
        { file: 'worse.json', results: worsened(baseline, 0.5), contractInferred: false },
        { thresholdRatio: DEFAULT_THRESHOLD, gateTimings: false },
      );
      const failing = comparison.failures.map((metric) => metric.name.split('.')[1]);
      expect(failing, `${id}: its comparison can never fail`).not.toEqual([]);
      // A measurement also needs 6 rounds a side, which some full runs do not take (recovery's
      // and scan-vs-lookup's cold device bytes: 5); a counter or a ratio fails whatever they are.
      const exact = gatedSpecs(experiment).filter((spec) => spec.kind !== 'timing');
      expect(failing).toEqual(expect.arrayContaining(exact.map((spec) => spec.key)));
    },
  );
});
