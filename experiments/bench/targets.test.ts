/**
 * A target's verdict beside the interval of the figure it reads: a median on the right side of
 * the bound whose interval reaches across it is met by this run, not clear of the run's noise.
 */
import { describe, expect, it } from 'vitest';
import { counterMetric, metricFromSamples } from '../../lab/metric.js';
import type { Metric } from '../../lab/results.js';
import { samplePuzzle } from '../../test/fixtures/sample-experiments.js';
import { type Target, checkTargets } from './targets.js';

const RATIO = { class: 'measurement', direction: 'higher', ratio: true } as const;

function ratio(name: string, samples: readonly number[]): Metric {
  return metricFromSamples(name, 'x', samples, RATIO);
}

function check(metrics: Metric[], targets: Target[]) {
  return checkTargets({ ...samplePuzzle(), metrics }, targets);
}

describe('checkTargets', () => {
  const atLeastOne: Target = { metric: 'r', atLeast: 1, why: 'r reaches 1' };

  it('is clear of noise when every end of the interval takes the verdict', () => {
    const [met] = check([ratio('r', [1.05, 1.06, 1.07, 1.08, 1.09, 1.1, 1.11])], [atLeastOne]);
    expect(met).toMatchObject({ met: true, value: 1.08, ci95: [1.05, 1.11], clearOfNoise: true });
    const [missed] = check([ratio('r', [0.9, 0.91, 0.92, 0.93, 0.94, 0.95, 0.96])], [atLeastOne]);
    expect(missed).toMatchObject({ met: false, clearOfNoise: true });
  });

  it('is within noise when the interval spans the bound, either verdict', () => {
    const [met] = check([ratio('r', [0.98, 1.01, 1.02, 1.03, 1.04, 1.05, 1.06])], [atLeastOne]);
    expect(met).toMatchObject({ met: true, clearOfNoise: false });
    const [missed] = check([ratio('r', [0.94, 0.95, 0.96, 0.97, 0.98, 0.99, 1.02])], [atLeastOne]);
    expect(missed).toMatchObject({ met: false, clearOfNoise: false });
  });

  it('reads an upper bound the same way, the bound itself meeting it', () => {
    const atMostTen: Target = { metric: 'r', atMost: 10, why: 'r stays at 10 or under' };
    const [met] = check([ratio('r', [4, 5, 6, 7, 8, 9, 10])], [atMostTen]);
    expect(met).toMatchObject({ met: true, clearOfNoise: true });
    const [missed] = check([ratio('r', [9, 11, 12, 13, 14, 15, 16])], [atMostTen]);
    expect(missed).toMatchObject({ met: false, clearOfNoise: false });
  });

  it('has no interval to judge for an exact figure, too few rounds, or a missing metric', () => {
    const counter = counterMetric('c', 'B/msg', 3, 'lower');
    const targets: Target[] = [
      { metric: 'c', atMost: 4, why: 'c' },
      { ...atLeastOne, metric: 'few' },
      { ...atLeastOne, metric: 'absent' },
    ];
    const checks = check([counter, ratio('few', [1.1, 1.2, 1.3])], targets);
    expect(checks.map(({ met, ci95, clearOfNoise }) => [met, ci95, clearOfNoise])).toEqual([
      [true, null, null],
      [true, null, null],
      [null, null, null],
    ]);
  });
});
