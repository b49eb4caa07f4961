import { describe, expect, it } from 'vitest';
import { parseDurationSeconds, parsePercentArgument, parseRatePerSec } from './arguments.js';

describe('argument parsers', () => {
  it.each([
    ['5', 5],
    ['5/s', 5],
    ['0.5/s', 0.5],
    ['300/min', 5],
    ['18000/h', 5],
    ['432000/d', 5],
  ])('reads the rate %s as %d a second', (raw, perSec) => {
    expect(parseRatePerSec('--rate', raw)).toBeCloseTo(perSec, 9);
  });

  it.each(['abc', '-5/s', '0/s', '5/fortnight', '5 per s', ''])('refuses the rate %j', (raw) => {
    expect(() => parseRatePerSec('--rate', raw)).toThrow(
      /^--rate: expected a positive rate up to 1,000,000,000,000\/s, as a number with an optional/,
    );
  });

  it.each([
    ['30', 30],
    ['30s', 30],
    ['500ms', 0.5],
    ['15min', 900],
    ['3h', 10_800],
    ['3d', 259_200],
    ['2w', 1_209_600],
  ])('reads the duration %s as %d seconds', (raw, seconds) => {
    expect(parseDurationSeconds('--retention', raw, 0, 1e9)).toBe(seconds);
  });

  it.each(['3y', '-1s', 'soon', '2e9'])('refuses the duration %j', (raw) => {
    expect(() => parseDurationSeconds('--retention', raw, 0, 1e9)).toThrow(
      /^--retention: expected a duration from 0 to 1,000,000,000 seconds/,
    );
  });

  it('reads a percentage with or without the sign and refuses zero', () => {
    expect(parsePercentArgument('--threshold', '5%')).toBeCloseTo(0.05, 12);
    expect(parsePercentArgument('--threshold', '12.5')).toBeCloseTo(0.125, 12);
    expect(() => parsePercentArgument('--threshold', '0%')).toThrow(
      /--threshold: expected a percentage/,
    );
    expect(() => parsePercentArgument('--threshold', 'x')).toThrow(/got 'x'/);
  });
});
