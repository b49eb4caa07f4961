import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../test/fixtures/main-in-process.js';
import { sampleResults } from '../test/fixtures/sample-results.js';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import { type CompareOptions, compareDocuments } from './compare.js';
import { betterDirection } from './metric-direction.js';
import { SeededRandom } from './random.js';
import type { Metric, Results } from './results.js';

const newDir = tempDirs('compare');
const GATE: CompareOptions = { thresholdRatio: 0.05, gateTimings: false };

/** 20 samples within ±1% of `centre`, from a fixed seed. */
function samples(centre: number, seed: number): number[] {
  const random = new SeededRandom(seed);
  return Array.from({ length: 20 }, () => centre * (1 + (random.int(2001) - 1000) / 100_000));
}

function sampled(
  name: string,
  unit: string,
  kind: Metric['kind'],
  centre: number,
  seed: number,
): Metric {
  const values = samples(centre, seed);
  const sorted = [...values].sort((a, b) => a - b);
  return { name, unit, kind, median: (sorted[9]! + sorted[10]!) / 2, samples: values };
}

const counter = (name: string, unit: string, median: number): Metric =>
  ({ name, unit, kind: 'counter', median });

/** A puzzle-like document: a ratio, a raw timing, a latency and two counters. */
interface Scale {
  readonly ratio?: number;
  readonly timing?: number;
  readonly latency?: number;
  readonly bytes?: number;
}

function puzzle(scale: Scale = {}, seed = 1): Results {
  return sampleResults({
    experiment: { id: 'puzzle', question: 'why does the log win?' },
    metrics: [
      sampled('puzzle.always.ratioBA', 'ratio', 'ratio', 5000 * (scale.ratio ?? 1), seed),
      sampled('puzzle.B.always.msgsPerSec', 'msgs/s', 'timing', 40_000 * (scale.timing ?? 1),
        seed + 1),
      sampled('puzzle.B.always.sendLatencyNs', 'ns', 'ratio', 25_000 * (scale.latency ?? 1),
        seed + 2),
      counter('puzzle.B.none.writeBytesPerMsg', 'B/msg', 1016 + (scale.bytes ?? 0)),
      counter('puzzle.B.always.fsyncsPerMsg', 'fsyncs/msg', 1),
    ],
  });
}

const compare = (baseline: Results, current: Results, options = GATE) =>
  compareDocuments(
    { file: 'base.json', results: baseline },
    { file: 'now.json', results: current },
    options,
  );
const verdicts = (baseline: Results, current: Results, options = GATE) =>
  Object.fromEntries(compare(baseline, current, options).metrics.map((m) => [m.name, m.verdict]));

describe('comparing results documents', () => {
  it('calls a 20% drop of a ratio a regression, with an interval that excludes zero', () => {
    const comparison = compare(puzzle(), puzzle({ ratio: 0.8 }, 7));
    const ratio = comparison.metrics.find((metric) => metric.name === 'puzzle.always.ratioBA')!;
    expect(ratio.verdict).toBe('regressed');
    expect(ratio.change).toBeCloseTo(-0.2, 1);
    expect(ratio.ci95![1]).toBeLessThan(0);
    expect(comparison.failures.map((metric) => metric.name)).toEqual(['puzzle.always.ratioBA']);
  });

  it('calls 1% jitter within noise, and a 20% slower latency a regression', () => {
    expect(verdicts(puzzle(), puzzle({ ratio: 1.01, latency: 0.99 }, 7))).toMatchObject({
      'puzzle.always.ratioBA': 'within noise',
      'puzzle.B.always.sendLatencyNs': 'within noise',
    });
    const latency = (scale: number) =>
      verdicts(puzzle(), puzzle({ latency: scale }, 7))['puzzle.B.always.sendLatencyNs'];
    expect(latency(1.2)).toBe('regressed');
    expect(latency(0.8)).toBe('improved');
  });

  it('calls one byte more per message a regression and one byte less an improvement', () => {
    const bytes = (change: number) =>
      verdicts(puzzle(), puzzle({ bytes: change }))['puzzle.B.none.writeBytesPerMsg'];
    expect(bytes(1)).toBe('regressed');
    expect(bytes(-1)).toBe('improved');
    expect(bytes(0)).toBe('unchanged');
  });

  it('reports a raw timing regression without failing, unless timings are gated', () => {
    const slower = puzzle({ timing: 0.5 }, 7);
    const reported = compare(puzzle(), slower);
    const timing = reported.metrics.find((m) => m.name === 'puzzle.B.always.msgsPerSec');
    expect(timing?.verdict).toBe('regressed');
    expect(reported.failures).toEqual([]);
    expect(compare(puzzle(), slower, { ...GATE, gateTimings: true }).failures).toHaveLength(1);
  });

  it('judges by the threshold alone when a side has no samples, and says so', () => {
    const withoutSamples = (results: Results): Results => ({
      ...results,
      metrics: results.metrics.map(({ samples: _samples, ...metric }) => metric),
    });
    const comparison = compare(withoutSamples(puzzle()), puzzle({ ratio: 0.8 }, 7));
    const ratio = comparison.metrics.find((metric) => metric.name === 'puzzle.always.ratioBA')!;
    expect(ratio).toMatchObject({ verdict: 'regressed', ci95: null });
    expect(ratio.intervalNote).toBe('unavailable: the baseline has 0 samples');
  });

  it('fails a change of a metric whose better direction nobody declared', () => {
    const widgets = (median: number) =>
      sampleResults({ metrics: [counter('x.widgets', 'widgets', median)] });
    expect(betterDirection({ name: 'x.widgets', unit: 'widgets' })).toBeNull();
    const comparison = compare(widgets(3), widgets(4));
    expect(comparison.metrics[0]?.verdict).toBe('changed');
    expect(comparison.failures).toHaveLength(1);
  });

  it.each([
    [{ name: 'a.msgsPerSec', unit: 'msgs/s' }, 'higher'],
    [{ name: 'a.iops', unit: 'ops/s' }, 'higher'],
    [{ name: 'a.latencyNs', unit: 'ns' }, 'lower'],
    [{ name: 'a.rebuildNsPerMiB', unit: 'ns/MiB' }, 'lower'],
    [{ name: 'a.deviceBytesPerMsg', unit: 'B/msg' }, 'lower'],
    [{ name: 'a.fsyncsPerMsg', unit: 'fsyncs/msg' }, 'lower'],
    [{ name: 'a.indexBytesPerGiB', unit: 'B' }, 'lower'],
    [{ name: 'a.msgsPerFsync', unit: 'msgs' }, 'higher'],
    [{ name: 'a.lostAckedMsgs', unit: 'msgs' }, 'lower'],
    [{ name: 'a.always.ratioBA', unit: 'ratio' }, 'higher'],
  ])('knows which way is better for %j', (metric, direction) => {
    expect(betterDirection(metric)).toBe(direction);
  });

  it('refuses documents of different experiments or with different metrics, listing them', () => {
    const other = sampleResults({ experiment: { id: 'recovery', question: 'q?' } });
    expect(() => compare(sampleResults(), other)).toThrow(
      /different experiments: base.json is 'sample', now.json is 'recovery'/);
    const fewer = { ...puzzle(), metrics: puzzle().metrics.slice(0, 3) };
    expect(() => compare(puzzle(), fewer)).toThrow(
      /missing from now.json: 2 \(puzzle.B.none.writeBytesPerMsg, puzzle.B.always.fsyncsPerMsg\)/);
    expect(() => compare(fewer, puzzle())).toThrow(/not in base.json: 2 \(/);
    const inBytes = counter('puzzle.B.none.writeBytesPerMsg', 'B', 1);
    const renamedUnit = { ...puzzle(), metrics: [...fewer.metrics, inBytes, puzzle().metrics[4]!] };
    expect(() => compare(puzzle(), renamedUnit)).toThrow(/changed unit: B\/msg → B$/);
  });
});

describe('loglab compare', () => {
  function files(baseline: unknown, current: unknown): [string, string] {
    const dir = newDir();
    const write = (name: string, value: unknown) => {
      const file = join(dir, name);
      writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
      return file;
    };
    return [write('baseline.json', baseline), write('current.json', current)];
  }

  it('exits 0 when nothing regressed and 1 when something did, naming it', async () => {
    const same = await runMain(['compare', ...files(puzzle(), puzzle({ ratio: 1.01 }, 3))]);
    expect(same).toMatchObject({ code: 0, stderr: '' });
    expect(same.stdout).toMatch(/puzzle: no regression — 0 regressed/);
    const worse = await runMain(['compare', ...files(puzzle(), puzzle({ bytes: 1 }))]);
    expect(worse.code).toBe(1);
    expect(worse.stdout).toMatch(
      /BytesPerMsg +counter +1,016 B\/msg +1,017 B\/msg +\+0.1% \(\+1\) +exact +regressed/);
    expect(worse.stderr).toBe(
      'loglab: CHECK_FAILED: compare: 1 metric(s) regressed: puzzle.B.none.writeBytesPerMsg\n');
  });

  it('lets --threshold widen what counts as noise', async () => {
    const [baseline, current] = files(puzzle(), puzzle({ ratio: 0.8 }, 7));
    expect((await runMain(['compare', baseline, current])).code).toBe(1);
    expect((await runMain(['compare', baseline, current, '--threshold', '25%'])).code).toBe(0);
  });

  it('prints a Markdown table for a pull request and JSON for machines', async () => {
    const [baseline, current] = files(puzzle(), puzzle({ ratio: 0.8 }, 7));
    const md = await runMain(['compare', baseline, current, '--format', 'md']);
    expect(md.stdout).toMatch(/^### loglab compare: `puzzle`\n\n\| metric \| kind \| baseline \|/);
    expect(md.stdout).toMatch(/\| `puzzle.always.ratioBA` \| ratio \| .* \| ❌ regressed \|/);
    const json = await runMain(['compare', baseline, current, '--format', 'json']);
    const parsed = JSON.parse(json.stdout);
    const failing = parsed.failures.map((metric: { name: string }) => metric.name);
    expect(failing).toEqual(['puzzle.always.ratioBA']);
    expect(json.code).toBe(1);
  });

  it.each([
    ['a file that is not JSON', () => files('{"schema":', puzzle()), /baseline.json is not JSON/],
    [
      'an invalid document',
      () => files({ ...puzzle(), metrics: 'none' }, puzzle()),
      /baseline.json: metrics: /,
    ],
    [
      'different schema versions',
      () => files(puzzle(), { ...puzzle(), schema: 'loglab/results@2' }),
      /different schema versions: .*baseline.json is loglab\/results@1, .*current.json is .*@2/,
    ],
    [
      'missing metrics',
      () => files(puzzle(), { ...puzzle(), metrics: puzzle().metrics.slice(1) }),
      /missing from .*current.json: 1 \(puzzle.always.ratioBA\)/,
    ],
  ])('exits 2 for %s, saying what is wrong', async (_case, make, message) => {
    const run = await runMain(['compare', ...make()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^loglab: INVALID_RESULTS: compare: /);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });

  it('refuses a bad threshold or format with exit 2', async () => {
    const [baseline, current] = files(puzzle(), puzzle());
    const threshold = await runMain(['compare', baseline, current, '--threshold', 'abc']);
    expect(threshold.stderr).toMatch(/--threshold: expected a percentage .* got 'abc'/);
    const format = await runMain(['compare', baseline, current, '--format', 'html']);
    expect(format.stderr).toMatch(/--format: expected one of text, md, json, got 'html'/);
    expect([threshold.code, format.code]).toEqual([2, 2]);
  });
});
