import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { runMain } from '../../test/fixtures/main-in-process.js';
import { readResultsFile } from '../../lab/results.js';
import type { StorageClass } from '../../lab/probes/storage-kind.js';
import { mainJobPlace } from './lab.js';

/** One experiment that records where it ran; and the directories the fake probe calls memory. */
const { probe, seen, memoryDirs, diskDirs } = await vi.hoisted(async () => {
  // From the harness's own files, not its public face (../index.js): this runs before the mock
  // of ../storage-kind.js below is registered, and the public face's runExperiment loads
  // experiment.ts, which would bind the real storage-kind.js before the mock could replace it.
  const { runSync } = await import('../../lab/runner.js');
  type Experiment = import('../../lab/experiment.js').Experiment;
  const seen = { dirs: [] as string[] };
  const memoryDirs = new Set<string>();
  /** Disks mounted inside a memory dir (as a test's current directory is, under the temp dir). */
  const diskDirs = new Set<string>();
  const probe: Experiment = {
    id: 'probe',
    question: 'where did the run measure?',
    params: {},
    seed: 7,
    run: async (ctx) => {
      seen.dirs.push(ctx.dir);
      const summary = runSync('probe.noop', (index) => index, {
        measure: { ops: 5 },
        repetitions: 2,
        random: ctx.random,
      });
      return ctx.results({ metrics: summary.metrics, headline: 'it ran.' });
    },
  };
  return { probe, seen, memoryDirs, diskDirs };
});

vi.mock('../../experiments/index.js', () => ({ experiments: [probe] }));

/** The device probe, faked: a directory under one of `memoryDirs` is a tmpfs. */
vi.mock('../../lab/probes/storage-kind.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../lab/probes/storage-kind.js')>();
  const classifyStorage = (dir: string): StorageClass => {
    const under = (roots: Set<string>) =>
      [...roots].some((root) => dir === root || dir.startsWith(`${root}/`));
    return under(memoryDirs) && !under(diskDirs)
      ? { kind: 'memory', filesystem: 'tmpfs', device: null }
      : {
          kind: 'block',
          filesystem: 'ext4',
          device: { majorMinor: '253:0', node: 'vda', disks: ['vda'] },
        };
  };
  return { ...real, classifyStorage };
});

const tempDir = tempDirs('run-storage');

afterEach(() => {
  seen.dirs.length = 0;
  memoryDirs.clear();
  diskDirs.clear();
  vi.restoreAllMocks();
});

describe('measuring memory as a disk', () => {
  it('run refuses a --dir on tmpfs with exit 2 and one line naming --allow-memory', async () => {
    const dir = tempDir();
    memoryDirs.add(dir);
    const out = join(tempDir(), 'results');
    const run = await runMain(['run', 'probe', '--dir', dir, '--out', out]);
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(`NOT_A_DISK: run: ${dir} is on tmpfs (memory), not a disk`);
    expect(run.stderr).toContain('--allow-memory');
    expect(seen.dirs).toEqual([]);
    expect(fs.existsSync(out)).toBe(false);
  });

  it('run refuses when the default temp dir is a tmpfs, before measuring anything', async () => {
    memoryDirs.add(tmpdir());
    const run = await runMain(['run', 'probe', '--out', join(tempDir(), 'results')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${tmpdir()} is on tmpfs (memory)`);
    expect(seen.dirs).toEqual([]);
  });

  it('with --allow-memory, measures and says so in the environment, headline and notes', async () => {
    const dir = tempDir();
    memoryDirs.add(dir);
    const out = join(tempDir(), 'results');
    const run = await runMain(['run', 'probe', '--dir', dir, '--out', out, '--allow-memory']);
    expect(run.code).toBe(0);
    const results = readResultsFile(join(out, 'probe.json'));
    const mark = "Measured on tmpfs (memory), not a disk: these figures are not a disk's.";
    expect(results.environment.storage).toBe('memory');
    expect(results.headline).toBe(`it ran. ${mark}`);
    expect(results.notes).toContain(mark);
    expect(run.stdout).toContain(mark);
  });

  it('run on a disk records block storage and leaves the headline alone', async () => {
    const out = join(tempDir(), 'results');
    const run = await runMain(['run', 'probe', '--dir', tempDir(), '--out', out]);
    expect(run.code).toBe(0);
    const results = readResultsFile(join(out, 'probe.json'));
    expect(results.environment.storage).toBe('block');
    expect(results.headline).toBe('it ran.');
  });
});

describe('the main job on a machine whose temp dir is a tmpfs', () => {
  it('measures in a fresh owned directory under the current directory and says so', async () => {
    memoryDirs.add(tmpdir());
    const cwd = tempDir();
    diskDirs.add(cwd);
    vi.spyOn(process, 'cwd').mockReturnValue(cwd);
    const out = join(tempDir(), 'results');
    const run = await runMain(['lab', '--out', out]);
    expect(run.code).toBe(0);
    const said =
      `Measured under ${cwd} (on vda) because the temp dir ${tmpdir()} is on ` +
      'tmpfs (memory), not a disk.';
    expect(run.stderr).toContain(`lab: ${said}`);
    expect(dirname(dirname(seen.dirs[0] ?? ''))).toBe(cwd);
    expect(fs.readdirSync(cwd)).toEqual([]);
    const results = readResultsFile(join(out, 'probe.json'));
    expect(results.notes).toContain(said);
    expect(results.environment.storage).toBe('block');
  });

  it('measures the temp dir anyway, marked, when the current directory is no disk either', () => {
    memoryDirs.add(tmpdir());
    memoryDirs.add('/somewhere');
    const place = mainJobPlace(tmpdir(), '/somewhere');
    expect(place).toMatchObject({ tempParent: tmpdir(), allowMemory: true });
    expect(place.note).toContain('pass --dir on a disk');
  });

  it('uses the temp dir, with nothing to say, when it is on a disk', () => {
    expect(mainJobPlace(tmpdir(), '/anywhere')).toEqual({
      tempParent: tmpdir(),
      allowMemory: false,
      note: null,
    });
  });
});
