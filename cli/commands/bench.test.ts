/** `loglab bench`'s target lines: the figure, its interval, and whether that spans the bound. */
import { describe, expect, it } from 'vitest';
import type { TargetCheck } from '../../experiments/bench/targets.js';
import { targetLines } from './bench.js';

const target = { metric: 'append.x.vsY', atLeast: 1, why: 'x at least y' };

describe('bench target lines', () => {
  it('shows the interval, says where it spans the bound, and tallies both verdicts', () => {
    const checks: TargetCheck[] = [
      { target, value: 1.2, met: true, ci95: [1.1, 1.3], clearOfNoise: true },
      { target, value: 1.02, met: true, ci95: [0.9, 1.1], clearOfNoise: false },
      { target, value: 0.98, met: false, ci95: [0.9, 1.1], clearOfNoise: false },
      {
        target: { metric: 'append.x.vsY', atMost: 4, why: 'x at least y' },
        value: 3,
        met: true,
        ci95: null,
        clearOfNoise: null,
      },
      { target, value: null, met: null, ci95: null, clearOfNoise: null },
    ];
    expect(targetLines(checks)).toEqual([
      '  met          append.x.vsY = 1.2, 95% interval [1.1, 1.3] (target >= 1: x at least y)',
      '  met          append.x.vsY = 1.02, 95% interval [0.9, 1.1] spans the bound (target >= 1: x at least y)',
      '  MISSED       append.x.vsY = 0.98, 95% interval [0.9, 1.1] spans the bound (target >= 1: x at least y)',
      '  met          append.x.vsY = 3 (target <= 4: x at least y)',
      '  not measured append.x.vsY = - (target >= 1: x at least y)',
      '  3 met (1 with an interval spanning the bound, 1 without an interval), 1 missed (1 with an interval spanning the bound), 1 not measured',
    ]);
    expect(targetLines(checks.slice(0, 1)).at(-1)).toBe('  1 met, 0 missed');
  });
});
