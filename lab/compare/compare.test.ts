import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../../test/fixtures/main-in-process.js';
import { sampleResults } from '../../test/fixtures/sample-results.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { type CompareOptions, compareDocuments } from './compare.js';
import { inferredClass, inferredDirection } from '../metric-legacy.js';
import { SeededRandom } from '../../storage/sim/prng.js';
import type { Metric, Results } from '../results.js';

const newDir = tempDirs('compare');
const GATE: CompareOptions = { thresholdRatio: 0.05, gateTimings: false };

/** 20 samples within ±1% of `centre`, from a fixed seed. */
function samples(centre: number, seed: number): number[] {
  const random = new SeededRandom(seed);
  return Array.from({ length: 20 }, () => centre * (1 + (random.nextInt(2001) - 1000) / 100_000));
}

type Contract = Pick<Metric, 'kind' | 'class' | 'direction'>;
const RATIO: Contract = { kind: 'ratio', class: 'timing', direction: 'higher' };
const RATE: Contract = { kind: 'timing', class: 'timing', direction: 'higher' };

function sampled(
  name: string,
  unit: string,
  contract: Contract,
  centre: number,
  seed: number,
): Metric {
  const values = samples(centre, seed);
  const sorted = [...values].sort((a, b) => a - b);
  return { name, unit, ...contract, median: (sorted[9]! + sorted[10]!) / 2, samples: values };
}

const counter = (
  name: string,
  unit: string,
  median: number,
  direction: Metric['direction'] = 'lower',
): Metric => ({ name, unit, kind: 'counter', class: 'counter', direction, median });

/** One value the machine decided (whole-disk bytes per message): no samples. */
const measured = (name: string, unit: string, median: number): Metric => ({
  name,
  unit,
  kind: 'timing',
  class: 'measurement',
  direction: 'lower',
  median,
});

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
      sampled('puzzle.always.ratioBA', 'ratio', RATIO, 5000 * (scale.ratio ?? 1), seed),
      sampled('puzzle.B.always.msgsPerSec', 'msgs/s', RATE, 40_000 * (scale.timing ?? 1), seed + 1),
      sampled(
        'puzzle.B.always.sendLatencyNs',
        'ns',
        { ...RATIO, direction: 'lower' },
        25_000 * (scale.latency ?? 1),
        seed + 2,
      ),
      counter('puzzle.B.none.writeBytesPerMsg', 'B/msg', 1016 + (scale.bytes ?? 0)),
      counter('puzzle.B.always.fsyncsPerMsg', 'fsyncs/msg', 1),
    ],
  });
}

const compare = (baseline: Results, current: Results, options = GATE) =>
  compareDocuments(
    { file: 'base.json', results: baseline, contractInferred: false },
    { file: 'now.json', results: current, contractInferred: false },
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
    expect(ratio.intervalNote).toBe(
      'unavailable: the baseline has 0 samples (an interval needs 6)',
    );
  });

  it('reports a ratio of three rounds a side without gating it: too few rounds to tell noise', () => {
    const ratioOf = (values: number[]): Results =>
      sampleResults({
        metrics: [
          {
            name: 'x.ratioBA',
            unit: 'ratio',
            ...RATIO,
            median: [...values].sort((a, b) => a - b)[1]!,
            samples: values,
          },
        ],
      });
    const worse = compare(ratioOf([1.8, 1.9, 2.0]), ratioOf([1.2, 1.25, 1.3]));
    expect(worse.metrics[0]).toMatchObject({ verdict: 'regressed', gated: false });
    expect(worse.failures).toEqual([]);
  });

  it('passes a rerun whose six rounds overlap, though the medians differ by 8%, and fails a ratio 50% worse', () => {
    const ratioOf = (values: number[]): Results =>
      sampleResults({
        metrics: [
          {
            name: 'x.ratioBA',
            unit: 'ratio',
            ...RATIO,
            median: [...values].sort((a, b) => a - b)[3]!,
            samples: values,
          },
        ],
      });
    const run1 = [1.7, 1.95, 1.8, 2.05, 1.75, 1.9];
    const run2 = [1.62, 1.88, 1.7, 1.98, 1.66, 1.74];
    const rerun = compare(ratioOf(run1), ratioOf(run2));
    expect(rerun.metrics[0]).toMatchObject({ verdict: 'within noise' });
    expect(rerun.failures).toEqual([]);
    const worse = compare(ratioOf(run1), ratioOf(run1.map((value) => value / 1.5)));
    expect(worse.failures.map((metric) => metric.name)).toEqual(['x.ratioBA']);
  });

  it('passes a measurement that differs by 3% and fails a counter one byte worse', () => {
    const doc = (deviceBytes: number, writeBytes: number) =>
      sampleResults({
        metrics: [
          measured('x.deviceBytesPerMsg', 'B/msg', deviceBytes),
          counter('x.writeBytesPerMsg', 'B/msg', writeBytes),
        ],
      });
    const rerun = compare(doc(8952, 1016), doc(8952 * 1.03, 1016));
    expect(rerun.metrics.map((metric) => metric.verdict)).toEqual(['within noise', 'unchanged']);
    expect(rerun.metrics[0]?.intervalNote).toBe('none: one value each, threshold only');
    expect(rerun.failures).toEqual([]);
    const oneByte = compare(doc(8952, 1016), doc(8952, 1017));
    expect(oneByte.failures.map((metric) => metric.name)).toEqual(['x.writeBytesPerMsg']);
  });

  it('does not gate a measurement of one value a side, and says why', () => {
    const doc = (median: number) =>
      sampleResults({ metrics: [measured('x.deviceBytesPerMsg', 'B/msg', median)] });
    const worse = compare(doc(1000), doc(1500), { ...GATE, gateTimings: true });
    expect(worse.metrics[0]).toMatchObject({
      verdict: 'regressed',
      gated: false,
      notGated: 'one value, a measurement needs 6 rounds to be gated',
    });
    expect(worse.failures).toEqual([]);
  });

  describe('a measurement across runs', () => {
    const MEASURED: Contract = { kind: 'timing', class: 'measurement', direction: 'lower' };
    const doc = (values: number[]) =>
      sampleResults({
        metrics: [
          {
            name: 'x.deviceBytesPerMsg',
            unit: 'B/msg',
            ...MEASURED,
            median: [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!,
            samples: values,
          },
        ],
      });
    const rounds = [1010, 1000, 1020, 990, 1005, 1015];

    it('fails 50% worse over 6 rounds a side', () => {
      const worse = compare(doc(rounds), doc(rounds.map((value) => value * 1.5)));
      expect(worse.failures.map((metric) => metric.name)).toEqual(['x.deviceBytesPerMsg']);
      expect(worse.metrics[0]).toMatchObject({ thresholdRatio: 0.1, notGated: null });
    });

    it('passes a change whose intervals are disjoint but within 10%, the floor over --threshold', () => {
      const slightly = compare(doc(rounds), doc(rounds.map((value) => value * 1.08)));
      expect(slightly.metrics[0]).toMatchObject({ verdict: 'within noise', gated: true });
      expect(slightly.metrics[0]!.ci95![0]).toBeGreaterThan(0);
      expect(slightly.measurementThresholdRatio).toBe(0.1);
      const wider = compare(doc(rounds), doc(rounds.map((value) => value * 1.2)), {
        ...GATE,
        thresholdRatio: 0.25,
      });
      expect(wider.metrics[0]).toMatchObject({ verdict: 'within noise', thresholdRatio: 0.25 });
      expect(compare(doc(rounds), doc(rounds.map((value) => value * 1.2))).failures).toHaveLength(
        1,
      );
    });

    it('reports 3 rounds a side 50% worse without gating it, saying why', () => {
      const three = rounds.slice(0, 3);
      const worse = compare(doc(three), doc(three.map((value) => value * 1.5)));
      expect(worse.metrics[0]).toMatchObject({
        verdict: 'regressed',
        gated: false,
        notGated: 'n=3 rounds, a measurement needs 6 to be gated',
      });
      expect(worse.failures).toEqual([]);
    });
  });

  it('never fails an informational metric, counter or not, however far it moves', () => {
    const doc = (median: number) =>
      sampleResults({
        metrics: [
          counter('x.segments', 'count', median, 'informational'),
          { ...sampled('x.appendSharePct', '%', RATIO, median, 3), direction: 'informational' },
        ],
      });
    const comparison = compare(doc(3), doc(30));
    expect(comparison.metrics.map((metric) => metric.verdict)).toEqual(['changed', 'changed']);
    expect(comparison.metrics.map((metric) => metric.gated)).toEqual([false, false]);
    expect(compare(doc(3), doc(30), { ...GATE, gateTimings: true }).failures).toEqual([]);
  });

  it('refuses a metric whose class changed between two documents that declare it', () => {
    const doc = (metric: Metric) => sampleResults({ metrics: [metric] });
    const asCounter = counter('x.fsyncsPerMsg', 'fsyncs/msg', 1);
    const asMeasured = measured('x.fsyncsPerMsg', 'fsyncs/msg', 1);
    expect(() => compare(doc(asCounter), doc({ ...asMeasured, kind: 'counter' }))).toThrow(
      /x.fsyncsPerMsg changed class: counter → measurement/,
    );
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
    [{ name: 'a.deviceIosPerMsg', unit: 'I/Os/msg' }, 'lower'],
    [{ name: 'a.deviceReadBytesPerRead', unit: 'B/read' }, 'lower'],
    [{ name: 'x.widgets', unit: 'widgets' }, 'informational'],
  ])('infers which way is better for %j in a file without directions', (metric, direction) => {
    expect(inferredDirection(metric)).toBe(direction);
  });

  it.each([
    [{ name: 'a.B.none.writeBytesPerMsg', kind: 'counter' }, 'counter'],
    [{ name: 'a.B.group.deviceBytesPerMsg', kind: 'counter' }, 'measurement'],
    [{ name: 'a.B.group.fsyncsPerMsg', kind: 'counter' }, 'measurement'],
    [{ name: 'a.none.lossWindowMsgs', kind: 'counter' }, 'measurement'],
    [{ name: 'a.cold.deviceReadBytes', kind: 'timing' }, 'measurement'],
    [{ name: 'a.always.ratioBA', kind: 'ratio' }, 'timing'],
    [{ name: 'a.B.msgsPerSec', kind: 'timing' }, 'timing'],
  ] as const)('infers the class of %j in a file without classes', (metric, metricClass) => {
    expect(inferredClass(metric)).toBe(metricClass);
  });

  it('refuses documents of different experiments or with different metrics, listing them', () => {
    const other = sampleResults({ experiment: { id: 'recovery', question: 'q?' } });
    expect(() => compare(sampleResults(), other)).toThrow(
      /different experiments: base.json is 'sample', now.json is 'recovery'/,
    );
    const fewer = { ...puzzle(), metrics: puzzle().metrics.slice(0, 3) };
    expect(() => compare(puzzle(), fewer)).toThrow(
      /missing from now.json: 2 \(puzzle.B.none.writeBytesPerMsg, puzzle.B.always.fsyncsPerMsg\)/,
    );
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
    expect(same.stdout).toMatch(/puzzle: no gated regression — 0 regressed/);
    const worse = await runMain(['compare', ...files(puzzle(), puzzle({ bytes: 1 }))]);
    expect(worse.code).toBe(1);
    expect(worse.stdout).toMatch(
      /BytesPerMsg +counter +1,016 B\/msg +1,017 B\/msg +\+0.1% \(\+1\) +exact +regressed/,
    );
    expect(worse.stderr).toBe(
      'loglab: CHECK_FAILED: compare: 1 metric(s) regressed: puzzle.B.none.writeBytesPerMsg\n',
    );
  });

  it('sets two runs side by side with --side-by-side: machines named, changed not regressed, exit 0', async () => {
    const [baseline, current] = files(puzzle(), puzzle({ bytes: 1 }));
    const run = await runMain(['compare', baseline, current, '--side-by-side']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^side by side, no verdict:\n {2}.*baseline\.json: /);
    expect(run.stdout).toMatch(
      /BytesPerMsg +counter +1,016 B\/msg +1,017 B\/msg +\+0.1% \(\+1\) +exact +changed/,
    );
    expect(run.stdout).not.toMatch(/regressed\s*$/m);
  });

  it('lets --threshold widen what counts as noise', async () => {
    const [baseline, current] = files(puzzle(), puzzle({ ratio: 0.8 }, 7));
    expect((await runMain(['compare', baseline, current])).code).toBe(1);
    expect((await runMain(['compare', baseline, current, '--threshold', '25%'])).code).toBe(0);
  });

  it('prints a Markdown table for a pull request and JSON for machines', async () => {
    const [baseline, current] = files(puzzle(), puzzle({ ratio: 0.8 }, 7));
    const md = await runMain(['compare', baseline, current, '--format', 'md']);
    expect(md.stdout).toMatch(/^### loglab compare: `puzzle`\n\n\| metric \| class \| baseline \|/);
    expect(md.stdout).toMatch(
      /\| `puzzle.always.ratioBA` \| timing ratio \| .* \| ❌ regressed \|/,
    );
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
      'two files of a schema version this loglab does not read',
      () => {
        const newer = { ...puzzle(), schema: 'loglab/results@2' };
        return files(newer, newer);
      },
      /baseline.json: schema: is loglab\/results@2, this loglab reads loglab\/results@1; upgrade loglab to read it\n$/,
    ],
    [
      'missing metrics',
      () => files(puzzle(), { ...puzzle(), metrics: puzzle().metrics.slice(1) }),
      /missing from .*current.json: 1 \(puzzle.always.ratioBA\)/,
    ],
  ])('exits 2 for %s, saying what is wrong', async (_case, make, message) => {
    const run = await runMain(['compare', ...make()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^loglab: INVALID_RESULTS: compare: [^\n]*\n$/);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });

  it("says when a file was written before metrics carried a class, and uses the other side's", async () => {
    const { class: _class, direction: _direction, ...old } = counter('x.bytesPerMsg', 'B/msg', 1);
    const legacy = { ...sampleResults(), metrics: [old] };
    const run = await runMain([
      'compare',
      ...files(legacy, sampleResults({ metrics: [measured('x.bytesPerMsg', 'B/msg', 1.03)] })),
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /warning: .*baseline.json was written before metrics carried a class/,
    );
    expect(run.stdout).toMatch(/x.bytesPerMsg +measurement .* within noise/);
  });

  it('compares two directories experiment by experiment, skipping other JSON', async () => {
    const suite = (bytes: number) => {
      const dir = newDir();
      writeFileSync(join(dir, 'puzzle.json'), JSON.stringify(puzzle({ bytes })));
      writeFileSync(join(dir, 'sample.json'), JSON.stringify(sampleResults()));
      mkdirSync(join(dir, 'charts'));
      writeFileSync(join(dir, 'chart.vl.json'), '{"mark":"bar"}');
      return dir;
    };
    const [before, same, worse] = [suite(0), suite(0), suite(1)];
    const pass = await runMain(['compare', before, same]);
    expect(pass.code).toBe(0);
    expect(pass.stdout).toMatch(/suite: 2 experiment\(s\) compared, 0 failing/);
    const fail = await runMain(['compare', before, worse]);
    expect(fail.code).toBe(1);
    expect(fail.stderr).toMatch(/1 metric\(s\) regressed: puzzle.B.none.writeBytesPerMsg/);
    const lone = newDir();
    writeFileSync(join(lone, 'puzzle.json'), JSON.stringify(puzzle()));
    const missing = await runMain(['compare', before, lone]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/missing from .*: 1 \(sample\)/);
  });

  it('says which threshold each class was judged by, and why a 3-round measurement was not gated', async () => {
    const rounds = (scale: number): Metric => ({
      ...measured('x.deviceBytesPerMsg', 'B/msg', 1000 * scale),
      samples: [990, 1000, 1010].map((value) => value * scale),
    });
    const [baseline, current] = files(
      sampleResults({ metrics: [rounds(1)] }),
      sampleResults({ metrics: [rounds(1.5)] }),
    );
    const run = await runMain(['compare', baseline, current]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /x.deviceBytesPerMsg +measurement .* regressed \(not gated: n=3 rounds, a measurement needs 6 to be gated\)/,
    );
    expect(run.stdout).toMatch(
      /\(counters exact; intervals at 95%; threshold 5.0% for ratios, 10.0% for measurements \(the larger of 10.0% and the threshold; 6 rounds a side\); raw timings reported only \(--gate-timings gates them\); informational never fail\)$/m,
    );
    const wider = await runMain(['compare', baseline, current, '--threshold', '25%']);
    expect(wider.stdout).toMatch(/threshold 25.0% for ratios, 25.0% for measurements/);
  });

  it('fails a raw timing with --gate-timings, and refuses the old --timings', async () => {
    const [baseline, current] = files(puzzle(), puzzle({ timing: 0.5 }, 7));
    expect((await runMain(['compare', baseline, current])).code).toBe(0);
    const gated = await runMain(['compare', baseline, current, '--gate-timings']);
    expect(gated.code).toBe(1);
    expect(gated.stdout).toMatch(/threshold 5.0% for ratios and timings, 10.0% for measurements/);
    expect(gated.stderr).toMatch(/regressed: puzzle.B.always.msgsPerSec/);
    const old = await runMain(['compare', baseline, current, '--timings']);
    expect(old.code).toBe(2);
    expect(old.stderr).toMatch(/unknown option '--timings'/);
  });

  it('refuses, in one line, a results file of another experiment', async () => {
    const other = sampleResults({ experiment: { id: 'durability', question: 'q?' } });
    const run = await runMain(['compare', ...files(puzzle(), other)]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^loglab: INVALID_RESULTS: compare: .*baseline.json and .*current.json cannot be compared: different experiments: .*baseline.json is 'puzzle', .*current.json is 'durability'; compare a results file with one of the same experiment\n$/,
    );
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
