import { describe, expect, it } from 'vitest';
import { sampleResults } from '../../test/fixtures/sample-results.js';
import { counterMetric, metricFromSamples } from '../metric.js';
import type { Metric, Results } from '../results.js';
import { SeededRandom } from '../../storage/sim/prng.js';
import { type PairedRuns, comparePaired, comparePairedSet, pairedThreshold } from './paired.js';

/** One workload judged alone at 95%. */
const at = (thresholdRatio: number) => ({ thresholdRatio, level: 0.95, family: 1 });

/** One run's document: a rate (higher is better), a latency (lower), a counter, a ratio. */
function run(rate: number, latencyNs: number, bytesPerMsg: number): Results {
  const samples = (value: number) => [0.99, 1, 1.01, 1, 0.995, 1.005].map((f) => f * value);
  const metrics: Metric[] = [
    metricFromSamples('append.ratePerSec', 'ops/s', samples(rate), {
      class: 'timing',
      direction: 'higher',
    }),
    metricFromSamples('lookup.p50Ns', 'ns', samples(latencyNs), {
      class: 'timing',
      direction: 'lower',
    }),
    counterMetric('send.writeBytesPerMsg', 'B/msg', bytesPerMsg, 'lower'),
    metricFromSamples('note.informational', 'ops/s', samples(rate), {
      class: 'timing',
      direction: 'informational',
    }),
  ];
  return sampleResults({ experiment: { id: 'bench-hot-paths', question: 'q?' }, metrics });
}

/**
 * `pairs` round pairs in which the machine's speed drifts by up to ±30% from pair to pair (both
 * sides of a pair alike) and each run has ±2% of its own noise; the change scales the current
 * side's rate by `rateFactor` and its latency by `latencyFactor`.
 */
function pairedRuns(
  pairs: number,
  seed: number,
  change: { rateFactor?: number; latencyFactor?: number; bytes?: number } = {},
): PairedRuns {
  const random = new SeededRandom(seed);
  const noise = () => 1 + (random.nextFloat() - 0.5) * 0.04;
  const baseline: Results[] = [];
  const current: Results[] = [];
  for (let i = 0; i < pairs; i++) {
    const speed = 1 + (random.nextFloat() - 0.5) * 0.6;
    baseline.push(run(100_000 * speed * noise(), 3_000 / speed / noise(), 1_040));
    current.push(
      run(
        100_000 * speed * noise() * (change.rateFactor ?? 1),
        (3_000 / speed / noise()) * (change.latencyFactor ?? 1),
        change.bytes ?? 1_040,
      ),
    );
  }
  return {
    experimentId: 'bench-hot-paths',
    baselineLabel: 'old',
    currentLabel: 'new',
    baseline,
    current,
  };
}

const verdicts = (runs: PairedRuns, threshold = 0.05) =>
  Object.fromEntries(comparePaired(runs, at(threshold)).metrics.map((m) => [m.name, m.verdict]));

describe('a change judged against a baseline run beside it', () => {
  it('passes the same build on both sides, however the machine drifts between pairs', () => {
    for (let seed = 1; seed <= 20; seed++) {
      expect(comparePaired(pairedRuns(10, seed), at(0.05)).failures).toEqual([]);
    }
  });

  it('catches a 10% slower append and a 10% slower lookup from ten pairs, with their intervals', () => {
    const comparison = comparePaired(
      pairedRuns(10, 7, { rateFactor: 0.9, latencyFactor: 1.1 }),
      at(0.05),
    );
    expect(comparison.failures.map((m) => m.name).sort()).toEqual([
      'append.ratePerSec',
      'lookup.p50Ns',
    ]);
    const rate = comparison.metrics.find((m) => m.name === 'append.ratePerSec')!;
    expect(rate.change).toBeCloseTo(-0.1, 1);
    expect(rate.ci95![1]).toBeLessThan(0);
    expect(rate.intervalNote).toBe('10 round pairs, threshold 5%');
  });

  it('calls a faster change improved, and never fails an informational metric', () => {
    const runs = pairedRuns(10, 3, { rateFactor: 1.3 });
    expect(verdicts(runs)).toMatchObject({
      'append.ratePerSec': 'improved',
      'note.informational': 'changed',
    });
    const slower = comparePaired(pairedRuns(10, 3, { rateFactor: 0.5 }), at(0.05));
    expect(slower.failures.map((m) => m.name)).toEqual(['append.ratePerSec']);
  });

  it('compares counters exactly: one byte more per message fails', () => {
    const comparison = comparePaired(pairedRuns(6, 5, { bytes: 1_041 }), at(0.05));
    expect(comparison.failures.map((m) => m.name)).toEqual(['send.writeBytesPerMsg']);
    expect(comparison.failures[0]!.intervalNote).toBe('counter: compared exactly');
  });

  it('says when a counter varies between runs of one build: the machine decides it', () => {
    const runs = pairedRuns(6, 5);
    const wobbly = {
      ...runs,
      baseline: runs.baseline.map((doc, i) => (i === 2 ? run(1e5, 3e3, 1_050) : doc)),
    };
    expect(comparePaired(wobbly, at(0.05)).warnings.join('\n')).toMatch(
      /counter send.writeBytesPerMsg differs between runs of the baseline build/,
    );
  });

  it('raises the threshold below ten pairs and gates nothing varying below six', () => {
    expect(pairedThreshold(10, 0.05)).toEqual({
      ratio: 0.05,
      note: '10 round pairs, threshold 5%',
    });
    expect(pairedThreshold(7, 0.05)).toMatchObject({ ratio: 0.1 });
    expect(pairedThreshold(7, 0.2)).toMatchObject({ ratio: 0.2 });
    expect(pairedThreshold(5, 0.05)).toMatchObject({ ratio: null });
    // 8% slower from seven pairs: beyond 5% but within the 10% that seven pairs are held to.
    const seven = comparePaired(pairedRuns(7, 11, { rateFactor: 0.92 }), at(0.05));
    expect(seven.failures).toEqual([]);
    const five = comparePaired(pairedRuns(5, 11, { rateFactor: 0.5 }), at(0.05));
    const rate = five.metrics.find((m) => m.name === 'append.ratePerSec')!;
    expect(rate).toMatchObject({ gated: false, verdict: 'within noise' });
    expect(rate.notGated).toBe('5 round pair(s), an interval needs 6');
    // A counter needs no interval: it is gated from one pair on.
    expect(comparePaired(pairedRuns(1, 1, { bytes: 2_000 }), at(0.05)).failures).toHaveLength(1);
  });

  it('reports metrics one build has and the other lacks instead of refusing the comparison', () => {
    const runs = pairedRuns(6, 2);
    const extra = counterMetric('new.figure', 'B', 1, 'lower');
    const current = runs.current.map((doc) => ({ ...doc, metrics: [...doc.metrics, extra] }));
    const comparison = comparePaired({ ...runs, current }, at(0.05));
    expect(comparison.warnings).toContain('new in new, nothing to judge them by: new.figure');
    expect(comparison.metrics.map((m) => m.name)).not.toContain('new.figure');
    expect(comparison.rule).toMatch(
      /round pairs' ratios: 6 round pairs \(fewer than 10\), threshold 10%/,
    );
  });

  it('raises every interval so that a family of figures together rarely cries wolf', () => {
    // Two directed varying figures (the rate and the latency), each at 1 - 0.05/2 or more.
    const [comparison] = comparePairedSet([pairedRuns(10, 4)], 0.05);
    expect(comparison!.rule).toMatch(
      /each interval at 97\.85% \(a family of 2 gated figures: 5% false alarms in all at most\)/,
    );
    // Two workloads, four figures: each at 98.75% or more, [x(1), x(10)] of ten pairs.
    const [first] = comparePairedSet([pairedRuns(10, 4), pairedRuns(10, 5)], 0.05);
    expect(first!.rule).toMatch(/each interval at 99\.8% \(a family of 4 /);
    const slower = comparePairedSet([pairedRuns(10, 7, { rateFactor: 0.8 })], 0.05)[0]!;
    expect(slower.failures.map((m) => m.name)).toEqual(['append.ratePerSec']);
    const six = comparePairedSet([pairedRuns(6, 7)], 0.05)[0]!;
    expect(six.rule).toMatch(/each interval at 96\.88% .*short of the 97\.5% it needs/);
  });
});
