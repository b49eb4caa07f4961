import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../storage/sim/prng.js';
import { regularizedBeta, studentTCdf, studentTQuantile, tTestLimits } from './t-test.js';

/** Quantiles of Student's t from printed tables (R's qt), to six decimals. */
const TABLE: readonly (readonly [number, number, number])[] = [
  [0.99, 1, 31.820516],
  [0.99, 6, 3.142668],
  [0.99, 9, 2.821438],
  [0.975, 10, 2.228139],
  [0.95, 30, 1.697261],
  [0.99, 1e6, 2.326352],
];

/** A standard normal draw (Box–Muller) from the one seeded generator. */
function normal(random: SeededRandom): number {
  const u = 1 - random.nextFloat();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random.nextFloat());
}

describe("Student's t distribution", () => {
  it.each(TABLE)('puts the %s quantile at %s degrees of freedom where tables do', (p, df, t) => {
    expect(studentTQuantile(p, df)).toBeCloseTo(t, 5);
    expect(studentTCdf(t, df)).toBeCloseTo(p, 6);
  });

  it('is symmetric about zero, and the incomplete beta function meets its closed forms', () => {
    expect(studentTCdf(0, 5)).toBeCloseTo(0.5, 12);
    expect(studentTCdf(-2, 7) + studentTCdf(2, 7)).toBeCloseTo(1, 12);
    // I_x(1, 1) = x, and I_x(a, 1) = x^a.
    expect(regularizedBeta(0.3, 1, 1)).toBeCloseTo(0.3, 12);
    expect(regularizedBeta(0.6, 3, 1)).toBeCloseTo(0.216, 12);
  });
});

describe('tTestLimits', () => {
  it('is the prediction interval mean ± t · s · √(1 + 1/n)', () => {
    const limits = tTestLimits([10, 11, 12, 13, 14], 0.99);
    if (typeof limits === 'string') throw new Error(limits);
    const half = 3.746947 * Math.sqrt(2.5) * Math.sqrt(1.2);
    expect(limits.mean).toBe(12);
    expect(limits.lower).toBeCloseTo(12 - half, 4);
    expect(limits.upper).toBeCloseTo(12 + half, 4);
  });

  it('gives no limits for one run or for a window whose values do not vary', () => {
    expect(tTestLimits([3], 0.99)).toBe('too few runs');
    expect(tTestLimits([3, 3, 3], 0.99)).toBe('no spread');
  });

  it('lets a value of the same distribution past its limit as often as the boundary says', () => {
    const random = new SeededRandom(41);
    const trials = 4_000;
    let beyond = 0;
    for (let trial = 0; trial < trials; trial++) {
      const window = Array.from({ length: 5 }, () => 100 + normal(random));
      const limits = tTestLimits(window, 0.95);
      if (typeof limits !== 'string' && 100 + normal(random) > limits.upper) beyond++;
    }
    // 5% expected; 4,000 trials put 99% of outcomes within 3.9% and 6.1%.
    expect(beyond / trials).toBeGreaterThan(0.039);
    expect(beyond / trials).toBeLessThan(0.061);
  });
});
