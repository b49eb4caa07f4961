import { describe, expect, it } from 'vitest';
import { formatHalfWidth } from './github-action-benchmark.js';

/** github-action-benchmark's src/extractRangeInfo.ts, which reads a range for unit scaling. */
function extractRangeInfo(range: string): number | undefined {
  const value = /(?<prefix>(\+-|±)\s*)(?<value>\d.+)/.exec(range)?.groups?.value;
  return value === undefined || Number.isNaN(Number(value)) ? undefined : Number(value);
}

describe('formatHalfWidth', () => {
  it('writes a range the tool reads back to the same number at three digits', () => {
    for (const halfWidth of [0, 5, 0.5, 51.234, 99.99, 100, 2_754_508.4, 0.000123]) {
      const read = extractRangeInfo(formatHalfWidth(halfWidth));
      expect(read, formatHalfWidth(halfWidth)).toBeDefined();
      expect(Math.abs(read! - halfWidth)).toBeLessThanOrEqual(
        halfWidth * 0.005 + 0.5e-12 + (halfWidth >= 100 ? 0.5 : 0),
      );
    }
    expect(formatHalfWidth(5)).toBe('± 5.00');
    expect(formatHalfWidth(2_754_508.4)).toBe('± 2754508');
  });
});
