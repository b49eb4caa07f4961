import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../storage/sim/prng.js';
import {
  median,
  medianCi,
  medianCiCoverage,
  medianCiRanks,
  percentile,
  summarize,
  tukeyOutliers,
} from './stats.js';

describe('summarize', () => {
  it('matches hand-computed figures for 1, 2, 3, 4, 100', () => {
    const summary = summarize([4, 100, 1, 3, 2]);
    expect(summary.count).toBe(5);
    expect(summary.min).toBe(1);
    expect(summary.median).toBe(3);
    expect(summary.p50).toBe(3);
    expect(summary.max).toBe(100);
    // |x - 3| = 2, 1, 0, 1, 97, whose median is 1.
    expect(summary.mad).toBe(1);
    // Mean 22, squared deviations sum to 7,610, sample variance 1,902.5.
    expect(summary.cv).toBeCloseTo(Math.sqrt(1902.5) / 22, 10);
    expect(summary.outliers.highSevere).toBe(1);
  });

  it('gives p90 from 10 samples, p99 from 100 and p999 from 1,000, and none below', () => {
    const ramp = (n: number) => Array.from({ length: n }, (_, i) => i);
    expect(summarize(ramp(9))).not.toHaveProperty('p90');
    // Linear interpolation: rank (10 - 1) * 0.9 = 8.1.
    expect(summarize(ramp(10)).p90).toBeCloseTo(8.1, 10);
    expect(summarize(ramp(99))).not.toHaveProperty('p99');
    expect(summarize(ramp(100)).p99).toBeCloseTo(98.01, 10);
    expect(summarize(ramp(999))).not.toHaveProperty('p999');
    expect(summarize(ramp(1000)).p999).toBeCloseTo(998.001, 10);
  });

  it('gives no coefficient of variation for one sample', () => {
    expect(summarize([5]).cv).toBeNull();
  });

  it('refuses an empty sample set and non-finite samples', () => {
    expect(() => summarize([])).toThrow(/at least one sample/);
    expect(() => median([1, Number.NaN])).toThrow(/finite/);
  });
});

describe('percentile', () => {
  it('interpolates between closest ranks', () => {
    expect(percentile([10, 20, 30, 40], 50)).toBe(25);
    expect(percentile([10, 20, 30, 40], 0)).toBe(10);
    expect(percentile([10, 20, 30, 40], 100)).toBe(40);
    expect(() => percentile([1], 101)).toThrow(/\[0, 100\]/);
  });
});

describe('tukeyOutliers', () => {
  it('counts mild and severe outliers on each side without removing them', () => {
    // For 1, 2, 3, 4 plus one more value: q1 and q3 fall on the data, fences at 1.5 and 3 IQR.
    expect(tukeyOutliers([1, 2, 3, 4, 8])).toMatchObject({ highMild: 1, highSevere: 0 });
    expect(tukeyOutliers([1, 2, 3, 4, 100])).toMatchObject({ highMild: 0, highSevere: 1 });
    expect(tukeyOutliers([-3, 1, 2, 3, 4])).toMatchObject({ lowMild: 1, lowSevere: 0 });
    expect(tukeyOutliers([-100, 1, 2, 3, 4])).toMatchObject({ lowMild: 0, lowSevere: 1 });
    expect(tukeyOutliers([1, 2, 3, 4, 8]).fences).toEqual([-4, -1, 7, 10]);
  });
});

describe('the median interval from order statistics', () => {
  it('gives no interval below six samples, where no pair of them covers 95%', () => {
    for (const n of [1, 2, 3, 4, 5]) expect(medianCiRanks(n)).toBeNull();
    expect(medianCi([1, 2, 3, 4, 5])).toBeNull();
  });

  it('picks the narrowest pair with 95% coverage, as the binomial sums give by hand', () => {
    // n = 6: [min, max] covers 1 - 2/64 = 96.9%. n = 9: [x(2), x(8)] covers 1 - 20/512 = 96.1%,
    // while [x(3), x(7)] would cover only 1 - 92/512 = 82.0%.
    expect(medianCiRanks(6)).toEqual([1, 6]);
    expect(medianCiCoverage(6, 1)).toBeCloseTo(1 - 2 / 64, 12);
    expect(medianCiRanks(8)).toEqual([1, 8]);
    expect(medianCiRanks(9)).toEqual([2, 8]);
    expect(medianCiRanks(10)).toEqual([2, 9]);
    for (const n of [6, 7, 10, 20, 50, 100, 500, 1000]) {
      const [j] = medianCiRanks(n)!;
      expect(medianCiCoverage(n, j)).toBeGreaterThanOrEqual(0.95);
      if (2 * (j + 1) <= n + 1) expect(medianCiCoverage(n, j + 1)).toBeLessThan(0.95);
    }
  });

  it('reads the interval off the sorted samples', () => {
    expect(medianCi([6, 1, 5, 2, 4, 3])).toEqual({ estimate: 3.5, ci95: [1, 6] });
    expect(medianCi([9, 1, 8, 2, 7, 3, 6, 4, 5])?.ci95).toEqual([2, 8]);
  });

  it('uses the normal approximation past 1,000 samples, still covering 95%', () => {
    const [j, k] = medianCiRanks(1_000_000)!;
    expect(k).toBe(1_000_001 - j);
    // 1.96 * sqrt(n) / 2 = 980 ranks either side of the middle.
    expect(500_000 - j).toBeGreaterThanOrEqual(979);
    expect(500_000 - j).toBeLessThanOrEqual(981);
  });
});

/** A standard normal draw by Box-Muller. */
function normal(random: SeededRandom): number {
  const u = 1 - random.nextFloat();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random.nextFloat());
}

/** The share of `trials` intervals from `n` draws that contain the true median. */
function coverage(n: number, trials: number, draw: () => number, trueMedian: number): number {
  let covered = 0;
  const values = new Array<number>(n);
  for (let t = 0; t < trials; t++) {
    for (let i = 0; i < n; i++) values[i] = draw();
    const ci95 = medianCi(values)!.ci95;
    if (ci95[0] <= trueMedian && trueMedian <= ci95[1]) covered++;
  }
  return covered / trials;
}

describe('the median interval by simulation', () => {
  // The sizes the lab uses: 6 to 12 rounds (full runs take 10), and per-operation counts.
  const SIZES = [6, 7, 8, 9, 10, 12, 15, 20, 100, 1_001];
  const TRIALS = 2_000;

  it('covers the true median of a lognormal and a normal at least 93% of the time', () => {
    const random = new SeededRandom(15);
    const figures: string[] = [];
    for (const n of SIZES) {
      // Lognormal(0, 1) has median e^0 = 1; Normal(100, 15) has median 100.
      const skewed = coverage(n, TRIALS, () => Math.exp(normal(random)), 1);
      const symmetric = coverage(n, TRIALS, () => 100 + 15 * normal(random), 100);
      figures.push(`n=${n}: lognormal ${skewed}, normal ${symmetric}`);
      expect(skewed, `lognormal at n=${n}`).toBeGreaterThanOrEqual(0.93);
      expect(symmetric, `normal at n=${n}`).toBeGreaterThanOrEqual(0.93);
    }
    if (process.env['LOGLAB_PRINT_COVERAGE'] !== undefined) console.log(figures.join('\n'));
  });
});
