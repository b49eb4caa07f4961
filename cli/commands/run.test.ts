import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { runMain } from '../../test/fixtures/main-in-process.js';
import { readResultsFile } from '../../lab/results.js';

/** Experiments defined for these tests: one that measures a no-op, one that fails. */
const { probe, failing, cold, strayPath, seen } = await vi.hoisted(async () => {
  const fs = await import('node:fs');
  const { join } = await import('node:path');
  const { LabError } = await import('../../lab/errors.js');
  const { OWNED_MARKER } = await import('../../lab/owned-dir.js');
  // Written as an experiment file would be: against the harness's public face.
  const { runSync } = await import('../../lab/index.js');
  type Experiment = import('../../lab/index.js').Experiment;

  /** What the probe experiment saw of its context, for the assertions. */
  const seen = { dirs: [] as string[], quick: [] as boolean[], seconds: [] as number[] };

  const probe: Experiment = {
    id: 'probe',
    question: 'does the harness run an experiment end to end?',
    params: { ops: { quick: 5, full: 50 } },
    seed: 7,
    run: async (ctx) => {
      seen.dirs.push(ctx.dir);
      seen.quick.push(ctx.quick);
      seen.seconds.push(ctx.secondsBudget);
      if (!fs.existsSync(join(ctx.dir, OWNED_MARKER))) {
        throw new Error('the data dir is not marked');
      }
      fs.writeFileSync(join(ctx.dir, 'data'), 'x');
      const summary = runSync('probe.noop', (index) => index, {
        measure: { ops: ctx.numberParam('ops') },
        repetitions: 2,
        random: ctx.random,
      });
      // A tail taken over every operation of the rounds: one figure, no samples to bound it.
      const tail = {
        name: 'probe.noop.p99Ns',
        unit: 'ns',
        kind: 'timing',
        class: 'timing',
        direction: 'lower',
        median: 5,
        count: 1000,
      } as const;
      return ctx.results({
        metrics: [...summary.metrics, tail],
        counters: { checksum: summary.checksum },
        headline: 'it ran',
      });
    },
  };

  const failing: Experiment = {
    id: 'failing',
    question: 'what happens when an experiment throws?',
    params: {},
    seed: 1,
    run: async (ctx) => {
      seen.dirs.push(ctx.dir);
      throw new LabError('NOT_ENOUGH_SPACE', `${ctx.dir} has 1 B free but this run needs 2 B`);
    },
  };

  /** Starts one cold phase with no files, so `--cold-reads` shows in its parameters. */
  const cold: Experiment = {
    id: 'cold',
    question: 'how does a run make its reads cold?',
    params: {},
    seed: 3,
    run: async (ctx) => {
      const reads = ctx.startColdReads([]);
      if (reads.method !== null) reads.end();
      return ctx.results({ metrics: [] });
    },
  };

  /** Lab code that meets an unusable path throws Node's fs error as it is. */
  const strayPath: Experiment = {
    id: 'stray-path',
    question: 'what does a raw fs error look like?',
    params: {},
    seed: 5,
    run: async (ctx) => {
      seen.dirs.push(ctx.dir);
      fs.writeFileSync(join(ctx.dir, 'file'), '');
      fs.mkdirSync(join(ctx.dir, 'file', 'sub'));
      return ctx.results({ metrics: [] });
    },
  };

  return { probe, failing, cold, strayPath, seen };
});

vi.mock('../../experiments/index.js', () => ({ experiments: [probe, failing, cold, strayPath] }));

const tempDir = tempDirs('run-test');

afterEach(() => {
  seen.dirs.length = 0;
  seen.quick.length = 0;
  seen.seconds.length = 0;
});

describe('loglab run', () => {
  it('runs an experiment in a fresh temp dir, writes its results, removes the dir', async () => {
    const out = join(tempDir(), 'results');
    const run = await runMain(['run', 'probe', '--quick', '--out', out, '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as Array<{ experiment: { id: string } }>;
    expect(printed.map((results) => results.experiment.id)).toEqual(['probe']);
    const results = readResultsFile(join(out, 'probe.json'));
    expect(results).toMatchObject({
      quick: true,
      seed: 7,
      headline: 'it ran',
      parameters: { ops: 5, secondsBudget: 5 },
    });
    expect(results.metrics.map((metric) => metric.name)).toEqual([
      'probe.noop.ratePerSec',
      'probe.noop.latencyNs',
      'probe.noop.p99Ns',
    ]);
    expect(fs.existsSync(join(out, 'report.html'))).toBe(true);
    expect(fs.existsSync(join(out, 'report.md'))).toBe(true);
    expect(seen.quick).toEqual([true]);
    const dataDir = seen.dirs[0] ?? '';
    expect(dirname(dirname(dataDir))).toBe(tmpdir());
    expect(fs.existsSync(dataDir)).toBe(false);
    expect(fs.existsSync(dirname(dataDir))).toBe(false);
  });

  it('puts data under --dir, leaves that dir and its files alone, honours --seconds', async () => {
    const dir = tempDir();
    fs.writeFileSync(join(dir, 'mine.txt'), 'keep me');
    const out = tempDir();
    const run = await runMain(['run', 'probe', '--dir', dir, '--seconds', '2.5', '--out', out]);
    expect(run.code).toBe(0);
    expect(dirname(seen.dirs[0] ?? '')).toBe(dir);
    expect(seen.seconds).toEqual([2.5]);
    expect(fs.readdirSync(dir)).toEqual(['mine.txt']);
    expect(run.stdout).toMatch(/^probe: does the harness run an experiment end to end\?/);
    // Two repetitions: too few for an interval, so the line says n instead.
    expect(run.stdout).toMatch(
      /probe\.noop\.ratePerSec {2}[\d,.]+ ops\/s {2}\(n=2, too few for an interval\)/,
    );
    expect(run.stdout).toContain(
      'probe.noop.p99Ns  5 ns  (one figure over 1,000 operations, no interval)',
    );
    expect(run.stdout).toContain(`results: ${join(out, 'probe.json')}`);
  });

  it('removes the data directory of an experiment that fails and exits with its code', async () => {
    const run = await runMain(['run', 'failing', '--out', tempDir()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^loglab: NOT_ENOUGH_SPACE: .* has 1 B free but this run needs 2 B/);
    expect(fs.existsSync(seen.dirs[0] ?? '')).toBe(false);
  });

  it('makes cold reads the way --cold-reads says, and refuses a mode it does not know', async () => {
    const out = tempDir();
    const direct = await runMain(['run', 'cold', '--cold-reads', 'o-direct', '--out', out]);
    expect(direct.code).toBe(0);
    expect(readResultsFile(join(out, 'cold.json')).parameters.coldReads).toBe('o-direct');
    const off = await runMain(['run', 'cold', '--cold-reads', 'off', '--out', out]);
    expect(off.code).toBe(0);
    const results = readResultsFile(join(out, 'cold.json'));
    expect(results.parameters.coldReads).toBe('unavailable');
    expect(results.notes.join('\n')).toMatch(/--cold-reads off/);
    const bad = await runMain(['run', 'cold', '--cold-reads', 'sometimes']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /--cold-reads: expected one of auto, drop-caches, o-direct, off, got 'sometimes'/,
    );
  });

  it('names an unknown experiment and the known ones', async () => {
    const run = await runMain(['run', 'probe', 'nope']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/unknown experiment 'nope'; known: probe, failing, cold/);
    expect(seen.dirs).toEqual([]);
  });

  it('refuses a --dir that does not exist and an --out that is a file', async () => {
    const missing = await runMain(['run', 'probe', '--dir', '/nonexistent/loglab']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /--dir: expected an existing directory, got '\/nonexistent\/loglab'/,
    );
    const file = join(tempDir(), 'file');
    fs.writeFileSync(file, '');
    const badOut = await runMain(['run', 'probe', '--out', file]);
    expect(badOut.code).toBe(2);
    expect(badOut.stderr).toMatch(/--out: expected a directory/);
  });

  it('an fs error on an unusable path is one line naming the call and path, exit 2', async () => {
    const run = await runMain(['run', 'stray-path', '--out', tempDir()]);
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(
      /^loglab: mkdir failed on .*file\/sub \(ENOTDIR: .*\); check the path$/m,
    );
    expect(fs.existsSync(seen.dirs[0] ?? '')).toBe(false);
  });

  // Root may write anywhere: the mode bits cannot refuse it.
  const asRoot = process.getuid?.() === 0;
  it.skipIf(asRoot)('refuses a --dir it may not write in, before running', async () => {
    const dir = tempDir();
    fs.chmodSync(dir, 0o500);
    try {
      const run = await runMain(['run', 'probe', '--dir', dir, '--out', tempDir()]);
      expect(run.code).toBe(2);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(
        /--dir: expected an existing directory you may write in, .*EACCES/,
      );
      expect(seen.dirs).toEqual([]);
    } finally {
      fs.chmodSync(dir, 0o700);
    }
  });
});

describe('loglab list', () => {
  it('lists each experiment with its question', async () => {
    const list = await runMain(['list']);
    expect(list.stdout).toBe(
      'probe       does the harness run an experiment end to end?\n' +
        'failing     what happens when an experiment throws?\n' +
        'cold        how does a run make its reads cold?\n' +
        'stray-path  what does a raw fs error look like?\n',
    );
    const listed = await runMain(['list', '--json']);
    const json = JSON.parse(listed.stdout) as Array<{ id: string; seed: number }>;
    expect(json.map((row) => [row.id, row.seed])).toEqual([
      ['probe', 7],
      ['failing', 1],
      ['cold', 3],
      ['stray-path', 5],
    ]);
  });
});
