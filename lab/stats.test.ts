import { describe, expect, it } from 'vitest';
import { SeededRandom } from './random.js';
import {
  bootstrapMedianCi,
  bootstrapRelativeChangeCi,
  median,
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
    // Linear interpolation: rank (5 - 1) * 0.9 = 3.6 lies 0.6 of the way from 4 to 100.
    expect(summary.p90).toBeCloseTo(61.6, 10);
    expect(summary.p99).toBeCloseTo(96.16, 10);
    expect(summary.p999).toBeCloseTo(99.616, 10);
    expect(summary.max).toBe(100);
    // |x - 3| = 2, 1, 0, 1, 97, whose median is 1.
    expect(summary.mad).toBe(1);
    // Mean 22, squared deviations sum to 7,610, sample variance 1,902.5.
    expect(summary.cv).toBeCloseTo(Math.sqrt(1902.5) / 22, 10);
    expect(summary.outliers.highSevere).toBe(1);
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

describe('bootstrap intervals', () => {
  it('spans both values for two samples, as the resampled medians 1, 2, 3 predict', () => {
    // Resampled medians of {1, 3}: 1 with p = 1/4, 2 with p = 1/2, 3 with p = 1/4.
    const interval = bootstrapMedianCi([1, 3], new SeededRandom(1));
    expect(interval.estimate).toBe(2);
    expect(interval.ci95).toEqual([1, 3]);
  });

  it('collapses to a point for constant samples', () => {
    expect(bootstrapMedianCi([7, 7, 7], new SeededRandom(1)).ci95).toEqual([7, 7]);
  });

  it('is reproducible from the seed and contains the median', () => {
    const random = new SeededRandom(11);
    const values = Array.from({ length: 51 }, () => 100 + random.float() * 20);
    const first = bootstrapMedianCi(values, new SeededRandom(2), 2000);
    const second = bootstrapMedianCi(values, new SeededRandom(2), 2000);
    expect(first).toEqual(second);
    expect(first.ci95[0]).toBeLessThanOrEqual(first.estimate);
    expect(first.ci95[1]).toBeGreaterThanOrEqual(first.estimate);
    expect(first.ci95[1] - first.ci95[0]).toBeLessThan(20);
  });

  it('estimates a relative change and its interval from hand-countable resamples', () => {
    // Baseline medians 1, 2, 3 (p = 1/4, 1/2, 1/4) against a current median of 2.
    const change = bootstrapRelativeChangeCi([1, 3], [2], new SeededRandom(3));
    expect(change.estimate).toBe(0);
    expect(change.ci95[0]).toBeCloseTo(-1 / 3, 10);
    expect(change.ci95[1]).toBe(1);
    const exact = bootstrapRelativeChangeCi([10, 10], [12, 12], new SeededRandom(3));
    expect(exact.estimate).toBeCloseTo(0.2, 10);
    expect(exact.ci95[0]).toBeCloseTo(0.2, 10);
  });

  it('refuses a baseline that is not positive', () => {
    expect(() => bootstrapRelativeChangeCi([0, 1], [1], new SeededRandom(1))).toThrow(/positive/);
  });
});
