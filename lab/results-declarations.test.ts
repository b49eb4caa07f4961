import { describe, expect, it } from 'vitest';
import { sampleResults } from '../test/fixtures/sample-results.js';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import { byLabel, chart, plot } from './chart-spec.js';
import { type Experiment, runExperiment } from './experiment.js';
import { declareMetrics } from './metric-catalog.js';
import { readResultsFile, writeResultsFile } from './results.js';
import { declaredParts, withDeclarations } from './results-declarations.js';

const tempDir = tempDirs('declarations');

const METRICS = declareMetrics('sample', {
  ratePerSec: {
    unit: 'ops/s',
    class: 'counter',
    direction: 'higher',
    labels: ['policy'],
    title: 'appends per second',
  },
  bytes: { unit: 'B', class: 'counter', direction: 'lower', labels: [] },
});
const CHARTS = [
  chart(
    'rate',
    'Appends per second by policy',
    'Higher is faster: one bar per policy.',
    plot(METRICS.ratePerSec, { yTitle: 'rate', x: byLabel('policy', 'policy'), mark: 'bar' }),
  ),
];
const DECLARED = { id: 'sample', metrics: METRICS, charts: CHARTS };

describe("an experiment's declarations in its results", () => {
  it('are its charts and the titles of its titled quantities', () => {
    expect(declaredParts(DECLARED)).toEqual({
      charts: CHARTS,
      titles: { ratePerSec: 'appends per second' },
    });
  });

  it('are written into every document the context makes, and read back as written', async () => {
    const experiment: Experiment = {
      ...DECLARED,
      question: 'does the document carry its charts?',
      params: {},
      seed: 1,
      run: async (ctx) =>
        ctx.results({
          metrics: [METRICS.ratePerSec.counter('sample.none.ratePerSec', 10, { policy: 'none' })],
        }),
    };
    const results = await runExperiment(experiment, { dir: tempDir(), quick: true });
    const file = `${tempDir()}/sample.json`;
    writeResultsFile(file, results);
    expect(readResultsFile(file)).toMatchObject(declaredParts(DECLARED));
  });

  it("fill in a document written before they were recorded, and keep a newer one's own", () => {
    const old = sampleResults();
    expect(old.charts).toBeUndefined();
    expect(withDeclarations(old, [DECLARED])).toMatchObject(declaredParts(DECLARED));
    expect(withDeclarations(old, [{ ...DECLARED, id: 'other' }])).toBe(old);
    const own = { ...old, charts: [], titles: {} };
    expect(withDeclarations(own, [DECLARED])).toEqual(own);
  });

  it('refuse a chart of a quantity the catalog does not declare', async () => {
    const stray = { ...CHARTS[0]!, panels: [{ ...CHARTS[0]!.panels[0]!, quantity: 'iops' }] };
    const experiment: Experiment = {
      ...DECLARED,
      charts: [stray],
      question: 'is the chart checked?',
      params: {},
      seed: 1,
      run: async (ctx) => ctx.results({ metrics: [] }),
    };
    await expect(runExperiment(experiment, { dir: tempDir(), quick: true })).rejects.toThrow(
      /sample-rate plots iops, which sample does not declare/,
    );
  });
});
