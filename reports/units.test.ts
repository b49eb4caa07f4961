import { describe, expect, it } from 'vitest';
import { formatFigure } from '../lab/format.js';
import { displayUnitFor, formatInDisplayUnit, formatLabelValue } from './units.js';

describe('display units', () => {
  it('shows nanosecond figures of milliseconds as ms', () => {
    expect(displayUnitFor('ns', [4_800_000, 5_100_000])).toEqual({ unit: 'ms', divisor: 1e6 });
  });

  it('keeps the suffix of a per-something unit while scaling its prefix', () => {
    expect(displayUnitFor('B/msg', [8192, 12_288])).toEqual({ unit: 'KiB/msg', divisor: 1024 });
    expect(displayUnitFor('ns/MiB', [6e6])).toEqual({ unit: 'ms/MiB', divisor: 1e6 });
  });

  it('reads us as microseconds and converts from a larger raw unit', () => {
    expect(displayUnitFor('us', [2_500])).toEqual({ unit: 'ms', divisor: 1000 });
    expect(displayUnitFor('ms', [0.004])).toEqual({ unit: 'µs', divisor: 0.001 });
  });

  it('leaves units outside the time and byte families alone', () => {
    expect(displayUnitFor('msgs/s', [278_000])).toEqual({ unit: 'msgs/s', divisor: 1 });
    expect(displayUnitFor('seconds', [1])).toEqual({ unit: 'seconds', divisor: 1 });
  });
});

describe('number formatting', () => {
  it('gives three significant digits below a thousand and whole numbers above', () => {
    expect(formatFigure(84.237)).toBe('84.2');
    expect(formatFigure(0.51234)).toBe('0.512');
    expect(formatFigure(278_431.7)).toBe('278,432');
  });

  it('writes counts bare and ratios with a times sign', () => {
    expect(formatInDisplayUnit(3, 'count')).toBe('3');
    expect(formatInDisplayUnit(55.8, 'ratio')).toBe('55.8×');
    expect(formatInDisplayUnit(84_200_000, 'ns')).toBe('84.2 ms');
  });

  it('reads byte, millisecond and MiB labels as sizes and durations', () => {
    expect(formatLabelValue('segmentBytes', 4 * 1024 * 1024)).toBe('4 MiB');
    expect(formatLabelValue('recordSizeBytes', 53)).toBe('53 B');
    expect(formatLabelValue('maxDelayMs', 0.1)).toBe('0.1 ms');
    expect(formatLabelValue('targetMiB', 24)).toBe('24 MiB');
    expect(formatLabelValue('design', 'A')).toBe('A');
    expect(formatLabelValue('depth', 64)).toBe('64');
  });

  it('writes a size as measured, never rounded to an odd fraction of a larger unit', () => {
    expect(formatLabelValue('segmentBytes', (100 * 1024 * 1024) / 64)).toBe('1,600 KiB');
    expect(formatLabelValue('segmentBytes', 1024 ** 3)).toBe('1 GiB');
    expect(formatLabelValue('tailBytes', 1536)).toBe('1,536 B');
    expect(formatLabelValue('retentionLagBytes', 1.5)).toBe('1.5 B');
  });

  it('names an index interval of 0 dense, and only that label', () => {
    expect(formatLabelValue('intervalBytes', 0)).toBe('dense');
    expect(formatLabelValue('intervalBytes', 4096)).toBe('4 KiB');
    expect(formatLabelValue('tailBytes', 0)).toBe('0 B');
  });
});
