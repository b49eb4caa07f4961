/**
 * `loglab export`, each format checked against the shape its tool publishes:
 *
 * - github-action-benchmark: README, "Examples > Custom" (and src/extract.ts's BenchmarkResult):
 *   a JSON array of `{ name: string, unit: string, value: number, range?: string,
 *   extra?: string }`; `range` is read as `± X` (src/extractRangeInfo.ts: `(\+-|±)\s*\d.+`).
 * - Bencher Metric Format: bencher.dev/bmf.json, an object of benchmarks, each an object of
 *   measures, each `{ value: number, lower_value?: number, upper_value?: number }`, value
 *   required; measure slugs at most 64 characters.
 * - JUnit XML: testsuites > testsuite > testcase, with failure or skipped.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runMain } from '../../test/fixtures/main-in-process.js';
import { sampleResults } from '../../test/fixtures/sample-results.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { type XmlElement, parseXmlSubset } from '../../test/fixtures/xml-subset.js';
import { type Metric, type Results, readResultsFile, writeResultsFile } from '../../lab/results.js';

const SAMPLE = fileURLToPath(new URL('../../docs/sample-report/', import.meta.url));
const PUZZLE = path.join(SAMPLE, 'puzzle.json');
const PAGE_CACHE = path.join(SAMPLE, 'page-cache.json');
const newDir = tempDirs('export');

const githubActionBenchmarkSchema = z.array(
  z
    .object({
      name: z.string().min(1),
      unit: z.string().min(1),
      value: z.number(),
      range: z
        .string()
        .regex(/(\+-|±)\s*\d.+/)
        .refine((range) => Number.isFinite(Number(/(?:\+-|±)\s*(\d.+)/.exec(range)![1])))
        .optional(),
      extra: z.string().optional(),
    })
    .strict(),
);

const bencherMetricFormatSchema = z.record(
  z.string().min(1).max(1024),
  z.record(
    z
      .string()
      .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/)
      .max(64),
    z
      .object({
        value: z.number(),
        lower_value: z.number().optional(),
        upper_value: z.number().optional(),
      })
      .strict(),
  ),
);

const metricsOf = (file: string): Metric[] => readResultsFile(file).metrics;

describe('loglab export --format github-action-benchmark', () => {
  it('writes the higher-is-better metrics as customBiggerIsBetter reads them', async () => {
    const run = await runMain([
      'export',
      PUZZLE,
      '--format',
      'github-action-benchmark',
      '--direction',
      'higher',
    ]);
    expect(run.code).toBe(0);
    const entries = githubActionBenchmarkSchema.parse(JSON.parse(run.stdout));
    const higher = metricsOf(PUZZLE).filter((metric) => metric.direction === 'higher');
    expect(entries.map((entry) => entry.name)).toEqual(higher.map((metric) => metric.name));
    for (const [i, entry] of entries.entries()) {
      const metric = higher[i]!;
      expect(entry).toMatchObject({ unit: metric.unit, value: metric.median });
      if (metric.ci95 === undefined) {
        expect(entry.range).toBeUndefined();
        continue;
      }
      const halfWidth = Number(/± (.+)$/.exec(entry.range!)![1]);
      const reach = Math.max(metric.median - metric.ci95[0], metric.ci95[1] - metric.median);
      expect(halfWidth).toBeCloseTo(reach, -Math.floor(Math.log10(reach)) + 2);
      expect(entry.extra).toContain('95% interval of the median: [');
    }
    expect(run.stderr).toMatch(
      /lower-is-better metric\(s\) are not in this file; --direction lower/,
    );
  });

  it('writes both files with --out-dir, naming the informational metrics left out', async () => {
    const dir = path.join(newDir(), 'gab');
    const run = await runMain([
      'export',
      PAGE_CACHE,
      '--format',
      'github-action-benchmark',
      '--out-dir',
      dir,
    ]);
    expect(run.code).toBe(0);
    const read = (tool: string) =>
      githubActionBenchmarkSchema.parse(
        JSON.parse(fs.readFileSync(path.join(dir, `${tool}.json`), 'utf8')),
      );
    const bigger = read('customBiggerIsBetter');
    const smaller = read('customSmallerIsBetter');
    const metrics = metricsOf(PAGE_CACHE);
    const named = (direction: string) =>
      metrics.filter((metric) => metric.direction === direction).map((metric) => metric.name);
    expect(bigger.map((entry) => entry.name)).toEqual(named('higher'));
    expect(smaller.map((entry) => entry.name)).toEqual(named('lower'));
    const informational = named('informational');
    expect(informational.length).toBeGreaterThan(0);
    expect(run.stderr).toContain(
      `loglab: export: left out ${informational.length} ` +
        'informational metric(s) of page-cache (no direction is better): ' +
        informational.join(', '),
    );
    expect(run.stdout).toContain(`to ${path.join(dir, 'customSmallerIsBetter.json')}`);
  });

  it('refuses to guess a direction without --direction or --out-dir', async () => {
    const run = await runMain(['export', PUZZLE, '--format', 'github-action-benchmark']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^loglab: BAD_ARGUMENT: --direction: github-action-benchmark reads /,
    );
    expect(run.stdout).toBe('');
  });
});

describe('loglab export --format bencher', () => {
  it('writes Bencher Metric Format: benchmark, measure slug, median and interval', async () => {
    const run = await runMain(['export', SAMPLE, '--format', 'bencher']);
    expect(run.code).toBe(0);
    const bmf = bencherMetricFormatSchema.parse(JSON.parse(run.stdout));
    const files = fs.readdirSync(SAMPLE).filter((name) => name.endsWith('.json'));
    const directed = files
      .flatMap((name) => metricsOf(path.join(SAMPLE, name)))
      .filter((metric) => metric.direction !== 'informational');
    const count = Object.values(bmf).reduce(
      (sum, measures) => sum + Object.keys(measures).length,
      0,
    );
    expect(count).toBe(directed.length);
    const ratio = directed.find((metric) => metric.name === 'puzzle.always.ratioBA')!;
    expect(bmf['puzzle.always']!['ratio-ba']).toEqual({
      value: ratio.median,
      lower_value: ratio.ci95![0],
      upper_value: ratio.ci95![1],
    });
    const latency = directed.find((metric) => metric.name === 'puzzle.A.always.sendLatencyNs')!;
    expect(bmf['puzzle.A.always']!['send-latency-ns']!.value).toBe(latency.median);
    expect(run.stderr).toMatch(
      /for Bencher thresholds: higher is better \(a lower boundary\): .*msgs-per-sec/,
    );
    expect(run.stderr).toMatch(/lower is better \(an upper boundary\): .*send-latency-ns/);
  });

  it('refuses options that belong to another format', async () => {
    const run = await runMain(['export', PUZZLE, '--format', 'bencher', '--direction', 'higher']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'loglab: BAD_ARGUMENT: --direction: only with --format ' +
        'github-action-benchmark, not bencher\n',
    );
  });
});

/** Two documents of one experiment whose names need escaping, the current one worse. */
function hostilePair(): { baseline: string; current: string; names: string[] } {
  const dir = newDir();
  const names = ['a<b>&"c\'.fsyncsPerMsg', 'x\u0001y.msgsPerSec', 'plain.dirtyBytes'];
  const metric = (name: string, median: number, overrides: Partial<Metric>): Metric => ({
    name,
    unit: 'count',
    kind: 'counter',
    class: 'counter',
    direction: 'lower',
    median,
    ...overrides,
  });
  const doc = (fsyncs: number): Results =>
    sampleResults({
      metrics: [
        metric(names[0]!, fsyncs, {}),
        metric(names[1]!, 100, {
          unit: 'msgs/s',
          kind: 'timing',
          class: 'timing',
          direction: 'higher',
        }),
        metric(names[2]!, 4096, {
          unit: 'B',
          class: 'measurement',
          kind: 'timing',
          direction: 'informational',
        }),
      ],
    });
  const baseline = path.join(dir, 'baseline.json');
  const current = path.join(dir, 'current.json');
  writeResultsFile(baseline, doc(1));
  writeResultsFile(current, doc(2));
  return { baseline, current, names };
}

const childrenNamed = (element: XmlElement, name: string) =>
  element.children.filter((child) => child.name === name);

describe('loglab export --format junit', () => {
  it('reports a regressed counter as failed, ungated metrics as skipped, escaped', async () => {
    const { baseline, current, names } = hostilePair();
    const out = path.join(newDir(), 'junit.xml');
    const run = await runMain([
      'export',
      current,
      '--format',
      'junit',
      '--baseline',
      baseline,
      '--out',
      out,
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`export: wrote 3 test(s), 1 failure(s) to ${out}\n`);
    const root = parseXmlSubset(fs.readFileSync(out, 'utf8'));
    expect(root.name).toBe('testsuites');
    expect(root.attributes).toMatchObject({ tests: '3', failures: '1', errors: '0', skipped: '2' });
    const [suite] = childrenNamed(root, 'testsuite');
    expect(suite!.attributes).toMatchObject({ name: 'sample', tests: '3', failures: '1' });
    const cases = childrenNamed(suite!, 'testcase');
    expect(cases.map((testcase) => testcase.attributes.name)).toEqual([
      names[0],
      'x\uFFFDy.msgsPerSec',
      names[2],
    ]);
    const [failure] = childrenNamed(cases[0]!, 'failure');
    expect(failure!.attributes.message).toBe(
      'regressed: baseline 1 count, current 2 count, ' +
        'change +100.0% (+1), interval exact (counter)',
    );
    expect(failure!.text).toContain(`baseline: ${baseline}\ncurrent: ${current}`);
    expect(childrenNamed(cases[1]!, 'skipped')[0]!.attributes.message).toMatch(
      /^within noise, not gated \(a raw timing, gated only with --gate-timings\): baseline 100/,
    );
    expect(childrenNamed(cases[2]!, 'skipped')[0]!.attributes.message).toMatch(
      /^within noise, not gated \(informational, no direction is better\)/,
    );
  });

  it('passes a rerun of every sample experiment against the sample directory', async () => {
    const run = await runMain(['export', SAMPLE, '--format', 'junit', '--baseline', SAMPLE]);
    expect(run.code).toBe(0);
    const root = parseXmlSubset(run.stdout);
    expect(root.attributes.failures).toBe('0');
    // One suite per results document in the sample, however many experiments it holds.
    const documents = fs.readdirSync(SAMPLE).filter((name) => name.endsWith('.json')).length;
    expect(documents).toBeGreaterThanOrEqual(10);
    expect(childrenNamed(root, 'testsuite')).toHaveLength(documents);
    const cases = childrenNamed(root, 'testsuite').flatMap((suite) =>
      childrenNamed(suite, 'testcase'),
    );
    expect(cases.some((testcase) => testcase.children.length === 0)).toBe(true);
    expect(String(cases.length)).toBe(root.attributes.tests);
  });

  it('exits 2 without a baseline, or when the baseline lacks an experiment', async () => {
    const without = await runMain(['export', PUZZLE, '--format', 'junit']);
    expect(without.code).toBe(2);
    expect(without.stderr).toMatch(/^loglab: BAD_ARGUMENT: --baseline: junit reports a comparison/);
    const lacking = await runMain([
      'export',
      PUZZLE,
      '--format',
      'junit',
      '--baseline',
      PAGE_CACHE,
    ]);
    expect(lacking.code).toBe(2);
    expect(lacking.stderr).toContain(
      `INVALID_RESULTS: export: ${PAGE_CACHE} holds no baseline for puzzle;`,
    );
  });
});

describe('loglab export inputs', () => {
  it('refuses one experiment given twice, naming both files', async () => {
    const run = await runMain(['export', PUZZLE, SAMPLE, '--format', 'bencher']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `puzzle is in both ${PUZZLE} and ${path.join(SAMPLE, 'puzzle.json')}`,
    );
  });

  it('refuses a directory without results files and a file that is not one', async () => {
    const empty = newDir();
    fs.writeFileSync(path.join(empty, 'chart.json'), '{"$schema": "vega-lite"}');
    const none = await runMain(['export', empty, '--format', 'bencher']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`${empty} holds no results file`);
    const notJson = path.join(empty, 'report.md');
    fs.writeFileSync(notJson, '# report');
    const bad = await runMain(['export', notJson, '--format', 'bencher']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`export: ${notJson} is not JSON`);
  });
});
