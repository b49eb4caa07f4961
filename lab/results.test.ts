import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleResults } from '../test/fixtures/sample-results.js';
import { ResultsFormatError, parseResults, readResultsFile, writeResultsFile } from './results.js';

describe('results documents', () => {
  it('round-trips a valid document through an atomic write', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'loglab-results-')), 'r.json');
    writeResultsFile(file, sampleResults());
    expect(readResultsFile(file)).toEqual(sampleResults());
  });

  it('names the field that is wrong', () => {
    const bad = { ...sampleResults(), metrics: [{ name: 'x', unit: '', kind: 'timing', median: 1 }] };
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
});
