import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../../test/fixtures/main-in-process.js';
import {
  SYNTHETIC_RATIO,
  syntheticCommit,
  writeSyntheticRuns,
} from '../../test/fixtures/synthetic-history.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { HistoryDatabase } from '../../lab/history/database.js';

const tempDir = tempDirs('history-cli');

/** Ten synthetic runs in a fresh folder, and the history file beside them (not made yet). */
function setUp(stepAtRun?: number): { files: string[]; db: string; dir: string } {
  const dir = tempDir();
  const step = stepAtRun === undefined ? {} : { stepAtRun };
  return { files: writeSyntheticRuns(dir, { runs: 10, ...step }), db: join(dir, 'h.db'), dir };
}

function storedFiles(db: string): string[] {
  const history = HistoryDatabase.open(db, 'read');
  try {
    return history.allRuns().map((run) => run.sourceFile);
  } finally {
    history.close();
  }
}

describe('loglab history', () => {
  it('passes the 10th of 10 noisy runs against the 9 before, naming the test it ran', async () => {
    const { files, db } = setUp();
    const added = await runMain(['history', 'add', ...files.slice(0, 9), '--db', db]);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('history add: 9 added, 0 already there');
    const check = await runMain(['history', 'check', files[9]!, '--db', db]);
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/^history check: t-test, window 10, boundary 0\.99\n {2}each /);
    expect(check.stdout).toContain('against 9 earlier run(s)');
    expect(check.stdout).toContain('synthetic: no gated regression');
    expect(check.stderr).toBe('');
  });

  it('exits 1 at run 8 of a 20% step, naming the metric, its value and its limits', async () => {
    const { files, db } = setUp(8);
    await runMain(['history', 'add', ...files.slice(0, 7), '--db', db]);
    const check = await runMain(['history', 'check', files[7]!, '--db', db, '--window', '5']);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('history check: t-test, window 5, boundary 0.99');
    expect(check.stdout).toMatch(new RegExp(`${SYNTHETIC_RATIO} +timing ratio .* regressed\\n`));
    expect(check.stderr).toMatch(
      new RegExp(
        `^loglab: CHECK_FAILED: history check \\(t-test, window 5, boundary 0\\.99\\): 1 ` +
          `metric\\(s\\) regressed: ${SYNTHETIC_RATIO} = 1\\.\\d+ ratio in .*run08\\.json, below ` +
          'the lower limit 1\\.\\d+ \\(limits \\[1\\.\\d+, 2\\.\\d+\\] from 5 earlier runs\\)\\n$',
      ),
    );
  });

  it('adds nothing when the 2nd of 2 files is bad; a file added twice is skipped', async () => {
    const { files, db, dir } = setUp();
    await runMain(['history', 'add', files[0]!, '--db', db]);
    const bad = join(dir, 'bad.json');
    fs.writeFileSync(bad, '{"schema": "loglab/results@1"}');
    const refused = await runMain(['history', 'add', files[1]!, bad, '--db', db]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^loglab: INVALID_RESULTS: history: lab: .*bad\.json: /);
    const conflict = await runMain([
      'history',
      'add',
      files[1]!,
      files[0]!,
      '--commit',
      syntheticCommit(2),
      '--db',
      db,
    ]);
    expect(conflict.code).toBe(2);
    expect(conflict.stderr).toContain('nothing was added');
    expect(storedFiles(db)).toEqual([files[0]]);
    const again = await runMain(['history', 'add', files[0]!, files[1]!, '--db', db]);
    expect(again.stdout).toContain(`skipped ${files[0]}: already in ${db}`);
    expect(again.stdout).toContain('history add: 1 added, 1 already there');
  });

  it.each<[string, (dir: string, files: string[], db: string) => string[], RegExp]>([
    [
      'a results file of another schema version',
      (dir, files, db) => {
        const newer = join(dir, 'newer.json');
        const doc = JSON.parse(fs.readFileSync(files[9]!, 'utf8')) as { schema: string };
        fs.writeFileSync(newer, JSON.stringify({ ...doc, schema: 'loglab/results@2' }));
        return ['check', newer, '--db', db];
      },
      new RegExp(
        'INVALID_RESULTS: .*newer\\.json: schema: is loglab/results@2, this loglab reads ' +
          'loglab/results@1; upgrade loglab',
      ),
    ],
    [
      'a history of another machine',
      (dir, files, db) => {
        const elsewhere = join(dir, 'elsewhere.json');
        const doc = JSON.parse(fs.readFileSync(files[9]!, 'utf8'));
        doc.environment.cpuModel = 'another cpu';
        fs.writeFileSync(elsewhere, JSON.stringify(doc));
        return ['check', elsewhere, '--db', db];
      },
      new RegExp(
        'NO_USABLE_HISTORY: .*only of other machines \\([0-9a-f]{12}, 9 run\\(s\\), differing ' +
          'in CPU Synthetic CPU @ 2\\.0GHz → another cpu\\)',
      ),
    ],
    [
      'a file that is not a history',
      (dir, files) => {
        fs.writeFileSync(join(dir, 'notes.db'), 'notes\n'.repeat(100));
        return ['check', files[9]!, '--db', join(dir, 'notes.db')];
      },
      /INVALID_HISTORY: history: .*notes\.db is not a loglab history \(file is not a database\)/,
    ],
    [
      'a missing results file',
      (dir, _, db) => ['add', join(dir, 'missing.json'), '--db', db],
      /INVALID_RESULTS: history: .*missing\.json does not exist; check the path/,
    ],
    [
      'a missing history',
      (dir, files) => ['check', files[9]!, '--db', join(dir, 'none.db')],
      /INVALID_HISTORY: history: .*none\.db does not exist/,
    ],
  ])('exits 2 with one line on %s', async (_, args, message) => {
    const { files, db, dir } = setUp();
    await runMain(['history', 'add', ...files.slice(0, 9), '--db', db]);
    const run = await runMain(['history', ...args(dir, files, db)]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it("shows the runs by commit, a metric's values across commits, and JSON", async () => {
    const { files, db, dir } = setUp();
    await runMain(['history', 'add', ...files.slice(0, 3), '--db', db]);
    const runs = await runMain(['history', 'show', '--db', db]);
    const lines = runs.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^commit +started +machine +host +experiments$/);
    expect(lines[2]).toMatch(
      new RegExp(
        `^${syntheticCommit(1).slice(0, 12)}  2026-11-01 10:00Z  [0-9a-f]{12}  h +synthetic$`,
      ),
    );
    expect(lines.at(-1)).toBe('3 results file(s), 3 commit(s) × machine, 1 machine(s)');
    const values = await runMain(['history', 'show', '--db', db, '--metric', SYNTHETIC_RATIO]);
    expect(values.stdout.trim().split('\n')).toHaveLength(5);
    expect(values.stdout).toMatch(/ratio +6: \[\d\.\d+, \d\.\d+\]\n/);
    const json = await runMain([
      'history',
      'show',
      '--db',
      db,
      '--experiment',
      'synthetic',
      '--json',
    ]);
    const parsed = JSON.parse(json.stdout) as { values: { metric: { name: string } }[] };
    expect(parsed.values).toHaveLength(9);
    const unknown = await runMain(['history', 'show', '--db', db, '--metric', 'nope']);
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      "loglab: BAD_ARGUMENT: --metric: expected a metric the history holds, got 'nope'\n",
    ]);
    expect(fs.existsSync(join(dir, 'loglab-history.db'))).toBe(false);
  });
});
