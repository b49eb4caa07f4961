import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import {
  type Experiment,
  FULL_SECONDS,
  QUICK_SECONDS,
  createContext,
  runExperiment,
} from './experiment.js';
import { createOwnedDir, isOwnedDir, removeOwnedDir } from './owned-dir.js';
import { SYNCED_ROUND_MIN_SECONDS } from './round-length.js';

const tempDir = tempDirs('experiment');

function experiment(overrides: Partial<Experiment> = {}): Experiment {
  return {
    id: 'sizes',
    question: 'which size is used?',
    params: {
      recordSizeBytes: { quick: 64, full: 1024 },
      policy: { quick: 'none', full: 'always' },
    },
    seed: 42,
    run: async (ctx) => ctx.results({ metrics: [] }),
    ...overrides,
  };
}

describe('the lab context', () => {
  it('records the CPU time the hypervisor took during the run, and notes it when large', () => {
    const readings = [
      { stealTicks: 1000, totalTicks: 10_000 },
      { stealTicks: 1220, totalTicks: 11_000 },
    ];
    const ctx = createContext(experiment(), {
      dir: tempDir(),
      quick: true,
      readCpuTimes: () => readings.shift() ?? null,
    });
    const results = ctx.results({ metrics: [] });
    expect(results.cpuSteal).toEqual({ share: 0.22, stealTicks: 220, totalTicks: 1000 });
    expect(results.notes.filter((note) => note.startsWith('The hypervisor gave 22%'))).toHaveLength(
      1,
    );
    const quiet = createContext(experiment(), {
      dir: tempDir(),
      quick: true,
      readCpuTimes: () => ({ stealTicks: 0, totalTicks: Date.now() }),
    });
    const unknown = createContext(experiment(), {
      dir: tempDir(),
      quick: true,
      readCpuTimes: () => null,
    });
    expect(quiet.results({ metrics: [] }).notes.join(' ')).not.toMatch(/hypervisor/);
    expect(unknown.results({ metrics: [] }).cpuSteal).toBeUndefined();
  });

  it('resolves parameters and the time budget for the quick flag', () => {
    const quick = createContext(experiment(), { dir: tempDir(), quick: true });
    expect(quick.params).toEqual({ recordSizeBytes: 64, policy: 'none' });
    expect(quick.numberParam('recordSizeBytes')).toBe(64);
    expect(quick.stringParam('policy')).toBe('none');
    expect(quick.secondsBudget).toBe(QUICK_SECONDS);
    const full = createContext(experiment(), { dir: tempDir(), quick: false });
    expect(full.params).toEqual({ recordSizeBytes: 1024, policy: 'always' });
    expect(full.secondsBudget).toBe(FULL_SECONDS);
    const budgeted = createContext(experiment(), { dir: tempDir(), quick: true, seconds: 3 });
    expect(budgeted.secondsBudget).toBe(3);
  });

  it('refuses a parameter of the wrong type or name', () => {
    const ctx = createContext(experiment(), { dir: tempDir(), quick: true });
    expect(() => ctx.numberParam('policy')).toThrow(/no number parameter policy/);
    expect(() => ctx.stringParam('missing')).toThrow(/no string parameter missing/);
  });

  it('seeds its random source from the experiment', () => {
    const draw = (seed: number) =>
      createContext(experiment({ seed }), { dir: tempDir(), quick: true }).random.nextU32();
    const first = draw(42);
    const again = draw(42);
    const other = draw(43);
    expect(again).toBe(first);
    expect(other).not.toBe(first);
  });

  it('builds a valid results document with the environment, parameters and notes', () => {
    const dir = tempDir();
    const cacheControl = { isRoot: false, mode: 'drop-caches' as const };
    const ctx = createContext(experiment(), { dir, quick: true, cacheControl });
    ctx.note('first note');
    expect(ctx.startColdReads([]).method).toBe(null);
    ctx.startColdReads([]);
    const results = ctx.results({
      metrics: [],
      counters: { writes: 3 },
      notes: ['last note'],
      headline: 'h',
    });
    expect(results).toMatchObject({
      experiment: { id: 'sizes', question: 'which size is used?' },
      quick: true,
      seed: 42,
      headline: 'h',
      parameters: {
        recordSizeBytes: 64,
        policy: 'none',
        secondsBudget: QUICK_SECONDS,
        coldReads: 'unavailable',
      },
      counters: { writes: 3 },
      timer: 'process.hrtime.bigint',
    });
    expect(results.environment.dir).toBe(dir);
    // The floor of every per-operation latency: two clock reads, measured, not assumed.
    expect(results.timerOverheadNs).toBeGreaterThan(0);
    expect(results.timerOverheadNs).toBeLessThan(100_000);
    expect(results.notes[0]).toBe('first note');
    const cold = /cold-cache figures are unavailable/;
    const coldNotes = results.notes.filter((note) => cold.test(note));
    expect(coldNotes).toHaveLength(1);
    expect(results.notes.at(-1)).toBe('last note');
  });

  it('raises synced rounds to half a second at the default budget, not at a budget set', () => {
    const quick = createContext(experiment(), { dir: tempDir(), quick: true });
    expect(quick.syncedRoundSeconds(0.083)).toBe(SYNCED_ROUND_MIN_SECONDS);
    expect(quick.syncedRoundSeconds(2)).toBe(2);
    expect(quick.results({ metrics: [] }).parameters['syncedRoundSeconds']).toBe(
      SYNCED_ROUND_MIN_SECONDS,
    );
    const tiny = createContext(experiment(), { dir: tempDir(), quick: true, seconds: 0.3 });
    expect(tiny.syncedRoundSeconds(0.05)).toBe(0.05);
    const results = tiny.results({ metrics: [] });
    expect(results.parameters['syncedRoundSeconds']).toBe(0.05);
    expect(results.notes.join('\n')).toMatch(/Synced rounds of 0\.050 s, under the 0\.5 s/);
  });

  it('records a warm-up, measured and discarded, in the counters and says so', () => {
    const ctx = createContext(experiment(), { dir: tempDir(), quick: true });
    ctx.recordWarmUp('A.always', { ops: 40, elapsedNs: 100_000_000 });
    const results = ctx.results({ metrics: [], counters: { sends: 1 } });
    expect(results.counters).toEqual({
      sends: 1,
      'warmUp.A.always.ops': 40,
      'warmUp.A.always.elapsedNs': 100_000_000,
    });
    expect(results.notes.join('\n')).toMatch(/timed and discarded/);
    expect(() => ctx.recordWarmUp('A.always', { ops: 1, elapsedNs: 1 })).toThrow(/twice/);
  });

  it('accounts I/O on its own directory', () => {
    const ctx = createContext(experiment(), { dir: tempDir(), quick: true });
    const phase = ctx.ioPhase();
    fs.writeFileSync(join(ctx.dir, 'f'), 'hello');
    expect(phase.end().proc?.wcharBytes).toBeGreaterThanOrEqual(5);
  });

  it('refuses an experiment whose description is malformed', () => {
    const options = { dir: tempDir(), quick: true };
    expect(() => createContext(experiment({ id: 'Not Kebab' }), options)).toThrow(/kebab-case/);
    const mixed = experiment({ params: { size: { quick: 1, full: 'big' } } });
    expect(() => createContext(mixed, options)).toThrow(/mixes a number and a string/);
  });
});

describe('runExperiment', () => {
  it('returns the validated document of the experiment it ran', async () => {
    const results = await runExperiment(experiment(), { dir: tempDir(), quick: false });
    expect(results.experiment.id).toBe('sizes');
    expect(results.quick).toBe(false);
  });

  it('refuses a document that belongs to another experiment or does not validate', async () => {
    const impostor = experiment({
      run: async (ctx) => ({
        ...ctx.results({ metrics: [] }),
        experiment: { id: 'other', question: 'q' },
      }),
    });
    await expect(runExperiment(impostor, { dir: tempDir(), quick: true })).rejects.toThrow(
      /returned results of other/,
    );
    const broken = experiment({
      run: async (ctx) => ({ ...ctx.results({ metrics: [] }), seed: 1.5 }),
    });
    await expect(runExperiment(broken, { dir: tempDir(), quick: true })).rejects.toThrow(/seed/);
  });
});

describe('owned directories', () => {
  it('removes a directory loglab created and refuses one it did not', () => {
    const parent = tempDir();
    const owned = createOwnedDir(parent, 'run-');
    fs.writeFileSync(join(owned, 'segment'), 'data');
    expect(isOwnedDir(owned)).toBe(true);
    expect(removeOwnedDir(owned)).toBe(true);
    expect(fs.existsSync(owned)).toBe(false);
    fs.writeFileSync(join(parent, 'precious'), 'data');
    expect(removeOwnedDir(parent)).toBe(false);
    expect(fs.readFileSync(join(parent, 'precious'), 'utf8')).toBe('data');
  });
});
