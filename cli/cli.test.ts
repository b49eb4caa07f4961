import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { experiments } from '../experiments/index.js';
import { StorageError, type StorageErrorCode } from '../storage/errors.js';
import { runMain } from '../test/fixtures/main-in-process.js';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import { describeFailure, exitCodeFor } from './cli.js';
import { LabError } from '../lab/errors.js';

const newDir = tempDirs('cli-main');

/** A Node fs error as `fs.mkdirSync` throws it. */
function fsError(code: string, syscall: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed, ${syscall} '${path}'`), { code, syscall, path });
}

describe('loglab CLI', () => {
  it('prints help for the program and for each command', async () => {
    const help = await runMain(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/list.*\n[\s\S]*run[\s\S]*model/);
    for (const command of ['list', 'run', 'model']) {
      const commandHelp = await runMain([command, '--help']);
      expect(commandHelp.code).toBe(0);
      expect(commandHelp.stdout).toMatch(new RegExp(`Usage: loglab ${command}`));
    }
  });

  it('lists the registered experiments with the question each answers', async () => {
    const list = await runMain(['list']);
    expect(list).toMatchObject({ code: 0, stderr: '' });
    for (const experiment of experiments) {
      expect(list.stdout).toMatch(new RegExp(`^${experiment.id} +${experiment.question}`, 'm'));
    }
    const json = await runMain(['list', '--json']);
    expect(JSON.parse(json.stdout).map((row: { id: string }) => row.id)).toEqual(
      experiments.map((experiment) => experiment.id),
    );
  });

  it("prints the course's arithmetic for every preset, or for the one asked for", async () => {
    const all = await runMain(['model']);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/Exos X20[\s\S]*990 PRO/);
    const exos = await runMain(['model', '--disk', 'exos-x20']);
    expect(exos.stdout).toMatch(/one turn .*8\.33 ms/);
    expect(exos.stdout).toMatch(/design A at QD16 .*275 messages a second/);
    expect(exos.stdout).not.toMatch(/990 PRO/);
    const ssd = await runMain(['model', '--disk', '990-pro']);
    expect(ssd.stdout).toMatch(/gap .*= 21 times/);
  });

  it('refuses to run an experiment it does not know, naming those it does', async () => {
    const run = await runMain(['run', 'no-such-experiment', '--quick']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^loglab: UNKNOWN_EXPERIMENT: run: unknown experiment 'no-such-experiment'; known: puzzle,/,
    );
  });

  it.each([
    [['model', '--disk', 'floppy'], /--disk: expected one of exos-x20, 990-pro, got 'floppy'/],
    [['run', '--seconds', '0'], /--seconds: expected a number of seconds in \(0, 86400\], got '0'/],
    [['run', '--seconds', 'abc'], /--seconds: expected .* in \(0, 86400\], got 'abc'/],
    [['run', '--bogus'], /unknown option '--bogus'/],
    [['frobnicate'], /unknown command 'frobnicate'/],
  ])('answers %j with one line naming the argument and exit code 2', async (args, message) => {
    const run = await runMain(args);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(message);
  });
});

describe('exit codes', () => {
  it.each<[StorageErrorCode, number]>([
    ['LOG_LOCKED', 2],
    ['QUEUE_LOCKED', 2],
    ['LOG_NOT_FOUND', 2],
    ['LOG_READ_ONLY', 2],
    ['OFFSET_LIMIT', 2],
    ['INVALID_CONFIG', 2],
    ['OFFSET_OUT_OF_RANGE', 2],
    ['INVALID_SEGMENT_FILE', 2],
    ['UNSAFE_ENTRY', 2],
    ['RECORD_TOO_LARGE', 2],
    ['LOCK_UNAVAILABLE', 2],
    ['CODEC_UNAVAILABLE', 2],
    ['INVALID_QUEUE_FILE', 2],
    ['MESSAGE_TOO_LARGE', 2],
    ['LOG_GAP', 1],
    ['SEGMENT_NAME_MISMATCH', 1],
    ['SEGMENT_OVERLAP', 1],
    ['CORRUPT_RECORD', 1],
    ['CORRUPT_CHECKPOINT', 1],
    ['CORRUPT_BATCH', 1],
    ['LOG_FENCED', 1],
    ['QUEUE_FENCED', 1],
    ['LOG_CLOSED', 1],
    ['QUEUE_CLOSED', 1],
  ])('maps storage error %s to exit %i', (code, exit) => {
    expect(exitCodeFor(new StorageError(code, 'x'))).toBe(exit);
  });

  it.each(['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM', 'EROFS', 'EEXIST', 'EISDIR'])(
    "maps an I/O error on the user's path (%s), raw or from storage, to exit 2",
    (errno) => {
      expect(exitCodeFor(new StorageError('IO_ERROR', 'x', { reason: errno }))).toBe(2);
      expect(exitCodeFor(fsError(errno, 'mkdir', '/a/b'))).toBe(2);
    },
  );

  it('maps a failing disk to 1, lab errors by code, and anything else to 3', () => {
    expect(exitCodeFor(new StorageError('IO_ERROR', 'x', { reason: 'EIO' }))).toBe(1);
    expect(exitCodeFor(new LabError('CHECK_FAILED', 'x'))).toBe(1);
    expect(exitCodeFor(new LabError('BAD_ARGUMENT', 'x'))).toBe(2);
    expect(exitCodeFor(new CommanderError(1, 'commander.unknownOption', 'x'))).toBe(2);
    expect(exitCodeFor(fsError('EIO', 'read', '/a'))).toBe(3);
    expect(exitCodeFor(new TypeError('x is undefined'))).toBe(3);
  });

  it('words a raw fs error as what failed on which path and what to do, on one line', () => {
    expect(describeFailure(fsError('EACCES', 'mkdtemp', '/data/run-XXXXXX'))).toBe(
      'loglab: mkdtemp failed on /data/run-XXXXXX (EACCES: permission denied); ' +
        'pick a path you may write, or fix its permissions',
    );
    expect(describeFailure(new LabError('INVALID_RESULTS', 'a.json is not JSON: "x\ny"'))).toBe(
      'loglab: INVALID_RESULTS: a.json is not JSON: "x y"',
    );
  });
});

describe('unusable input exits 2 with one line', () => {
  /** The paths a case may name: a file that is not JSON, a missing file, and their folder. */
  interface Paths {
    readonly bad: string;
    readonly none: string;
    readonly dir: string;
  }
  const plan = ['plan', '--rate', '5', '--size', '1KiB'];

  it.each<[string, (paths: Paths) => string[], RegExp]>([
    ['compare of a missing file', ({ none }) => ['compare', none, none], /cannot be read/],
    ['compare of a file that is not JSON', ({ bad }) => ['compare', bad, bad], /is not JSON/],
    [
      'report of a file that is not JSON',
      ({ bad, dir }) => ['report', bad, '--out', join(dir, 'r')],
      /no valid results document/,
    ],
    [
      'report --out under a file',
      ({ bad }) => ['report', bad, '--out', join(bad, 'r')],
      /--out: expected a directory \(created when missing\), got .*\(.*bad\.json is a file, not/,
    ],
    [
      'plan --measured of a missing file',
      ({ none }) => [...plan, '--measured', none],
      /does not exist/,
    ],
    [
      'plan --measured of a file that is not JSON',
      ({ bad }) => [...plan, '--measured', bad],
      /is not JSON/,
    ],
  ])('%s', async (_what, args, message) => {
    const dir = newDir();
    const bad = join(dir, 'bad.json');
    // JSON.parse quotes the text it choked on, newlines and all.
    writeFileSync(bad, '{\n  "schema": \n oops\n');
    const run = await runMain(args({ bad, none: join(dir, 'none.json'), dir }));
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(message);
    expect(readdirSync(dir)).toEqual(['bad.json']);
  });

  it('run --out that cannot be created is refused before anything runs', async () => {
    const dir = newDir();
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'file'), '');
    const out = join(dir, 'file', 'out');
    const run = await runMain(['run', '--quick', '--dir', join(dir, 'data'), '--out', out]);
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/--out: expected a directory .*file is a file, not a directory/);
    expect(readdirSync(join(dir, 'data'))).toEqual([]);
  });
});
