import { describe, expect, it } from 'vitest';
import { sampleResults } from '../../test/fixtures/sample-results.js';
import type { Metric } from '../results.js';
import { measureSlug, toBencherMetricFormat } from './bencher.js';

const metric = (name: string, direction: Metric['direction'] = 'lower'): Metric => ({
  name,
  unit: 'B',
  kind: 'counter',
  class: 'counter',
  direction,
  median: 1,
});
const doc = (metrics: Metric[]) => [
  { file: 'r.json', results: sampleResults({ metrics }), contractInferred: false },
];

describe('Bencher measure slugs', () => {
  it('are kebab-case quantities, the unit last as loglab names carry it', () => {
    expect(measureSlug('msgsPerSec')).toBe('msgs-per-sec');
    expect(measureSlug('ratioBA')).toBe('ratio-ba');
    expect(measureSlug('latencyNsP99')).toBe('latency-ns-p99');
    expect(measureSlug('readBytesPerLookup')).toBe('read-bytes-per-lookup');
    expect(measureSlug('IOsPerMsg')).toBe('i-os-per-msg');
  });
});

describe('toBencherMetricFormat', () => {
  it('files a name without a dot under its experiment and keeps __proto__ a benchmark', () => {
    const { bmf } = toBencherMetricFormat(doc([metric('writeBytes'), metric('__proto__.sizeB')]));
    expect(bmf).toEqual({
      sample: { 'write-bytes': { value: 1 } },
      ['__proto__']: { 'size-b': { value: 1 } },
    });
    expect(Object.getPrototypeOf(bmf)).toBe(Object.prototype);
  });

  it('refuses two metrics that land on one benchmark and measure', () => {
    expect(() => toBencherMetricFormat(doc([metric('a.sizeB'), metric('a.size-b')]))).toThrow(
      'export: two metrics of sample give benchmark a, measure size-b; rename one',
    );
  });

  it('refuses a measure slug longer than Bencher takes', () => {
    expect(() => toBencherMetricFormat(doc([metric(`a.${'x'.repeat(65)}`)]))).toThrow(
      /which Bencher refuses \(1 to 64 characters\)/,
    );
  });

  it('leaves informational metrics out and lists slugs by the better direction', () => {
    const exported = toBencherMetricFormat(
      doc([
        metric('a.ratePerSec', 'higher'),
        metric('a.sizeBytes'),
        metric('a.dirtyBytes', 'informational'),
      ]),
    );
    expect(Object.keys(exported.bmf.a!)).toEqual(['rate-per-sec', 'size-bytes']);
    expect(exported.measures).toEqual({ higher: ['rate-per-sec'], lower: ['size-bytes'] });
    expect(exported.informational).toEqual([{ experimentId: 'sample', names: ['a.dirtyBytes'] }]);
  });
});
