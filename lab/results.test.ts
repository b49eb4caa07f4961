import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleResults } from '../test/fixtures/sample-results.js';
import {
  type Metric,
  ResultsFormatError,
  parseResults,
  parseResultsWithOrigin,
  readResultsFile,
  writeResultsFile,
} from './results.js';

/** A metric as files written before the contract stored it: no class, no direction. */
function legacy(metric: Metric): Omit<Metric, 'class' | 'direction'> {
  const { class: _class, direction: _direction, ...rest } = metric;
  return rest;
}

const deviceBytes: Metric = {
  name: 'puzzle.B.group.deviceBytesPerMsg',
  unit: 'B/msg',
  kind: 'counter',
  class: 'measurement',
  direction: 'lower',
  median: 1859,
};

describe('results documents', () => {
  it('round-trips a valid document through an atomic write', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'loglab-results-')), 'r.json');
    writeResultsFile(file, sampleResults());
    expect(readResultsFile(file)).toEqual(sampleResults());
  });

  it('names the field that is wrong', () => {
    const bad = {
      ...sampleResults(),
      metrics: [{ name: 'x', unit: '', kind: 'timing', median: 1 }],
    };
    expect(() => parseResults(bad, 'bad.json')).toThrow(/bad\.json: metrics\.0\.unit/);
  });

  it('refuses a newer schema version with a clear message', () => {
    const newer = { ...sampleResults(), schema: 'loglab/results@2' };
    expect(() => parseResults(newer, 'n.json')).toThrow(ResultsFormatError);
    expect(() => parseResults(newer, 'n.json')).toThrow(/results@2.*upgrade/);
  });

  it('reports a file that is not JSON', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'loglab-results-')), 'r.json');
    writeFileSync(file, '{not json');
    expect(() => readResultsFile(file)).toThrow(/not JSON/);
    expect(readFileSync(file, 'utf8')).toBe('{not json');
  });

  it('reads a file without metric classes, inferring them, and says it did', () => {
    const metrics = [...sampleResults().metrics, deviceBytes].map(legacy);
    const old = { ...sampleResults(), metrics };
    const { results, contractInferred } = parseResultsWithOrigin(old, 'old.json');
    expect(contractInferred).toBe(true);
    expect(results.metrics.map((metric) => [metric.class, metric.direction])).toEqual([
      ['timing', 'higher'],
      ['measurement', 'lower'],
    ]);
    expect(parseResultsWithOrigin(sampleResults()).contractInferred).toBe(false);
  });

  it('refuses a file where some metrics carry a class and others do not, naming the field', () => {
    const metrics = [...sampleResults().metrics, legacy(deviceBytes)];
    const mixed = { ...sampleResults(), metrics };
    expect(() => parseResults(mixed, 'mixed.json')).toThrow(/mixed\.json: metrics\.1\.class/);
  });

  it('refuses to write a metric without a class or a direction', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'loglab-results-')), 'r.json');
    const unclassed = { ...sampleResults(), metrics: sampleResults().metrics.map(legacy) };
    expect(() => writeResultsFile(file, unclassed as never)).toThrow(/metrics\.0\.class/);
  });
});
