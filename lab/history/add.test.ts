import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sampleResults } from '../../test/fixtures/sample-results.js';
import {
  SYNTHETIC_RATIO,
  syntheticCommit,
  syntheticRuns,
} from '../../test/fixtures/synthetic-history.js';
import { labErrorOf } from '../../test/fixtures/lab-error.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import type { NamedResults } from '../results-documents.js';
import type { Results } from '../results.js';
import { addRuns } from './add.js';
import { HistoryDatabase } from './database.js';
import { runRecord } from './run-record.js';

const tempDir = tempDirs('history-add');
const OTHER_COMMIT = 'f'.repeat(40);

const named = (results: Results, file: string): NamedResults => ({
  file,
  results,
  contractInferred: false,
});

function withDb<T>(work: (db: HistoryDatabase) => T): T {
  const db = HistoryDatabase.open(join(tempDir(), 'h.db'), 'write');
  try {
    return work(db);
  } finally {
    db.close();
  }
}

const [first, second, third] = syntheticRuns({ runs: 3 }).map((results, i) =>
  named(results, `run${i + 1}.json`),
) as [NamedResults, NamedResults, NamedResults];
const NOW = '2026-12-01T00:00:00.000Z';

describe('history add', () => {
  it('stores a run with its commit, machine, metrics and rounds, read back as written', () => {
    withDb((db) => {
      const outcome = addRuns(db, [runRecord(first, undefined)], NOW);
      expect(outcome.added).toHaveLength(1);
      const [run] = db.allRuns();
      expect(run).toMatchObject({
        commit: syntheticCommit(1),
        dirty: false,
        startedAt: first.results.startedAt,
        experimentId: 'synthetic',
        sourceFile: 'run1.json',
        addedAt: NOW,
      });
      const ratio = db.metricsOf(run!.id).find((metric) => metric.name === SYNTHETIC_RATIO);
      const written = first.results.metrics.find((metric) => metric.name === SYNTHETIC_RATIO)!;
      expect(ratio).toEqual({
        name: SYNTHETIC_RATIO,
        labels: {},
        unit: 'ratio',
        kind: 'ratio',
        class: 'timing',
        direction: 'higher',
        median: written.median,
        rounds: written.samples,
      });
    });
  });

  it('adds all files or none: a conflict in the 2nd of 2 leaves the history as it was', () => {
    withDb((db) => {
      addRuns(db, [runRecord(second, undefined)], NOW);
      const error = labErrorOf(() =>
        addRuns(db, [runRecord(first, undefined), runRecord(second, OTHER_COMMIT)], NOW),
      );
      expect(error.code).toBe('INVALID_HISTORY');
      expect(error.message).toContain(`run2.json is already in ${db.file} as commit`);
      expect(error.message).toContain('nothing was added');
      expect(db.allRuns().map((run) => run.sourceFile)).toEqual(['run2.json']);
    });
  });

  it('skips a document it holds already, in one add or the next, at the same commit', () => {
    withDb((db) => {
      const once = addRuns(db, [runRecord(first, undefined), runRecord(first, undefined)], NOW);
      expect([once.added.length, once.skipped.length]).toEqual([1, 1]);
      const copy = named(JSON.parse(JSON.stringify(first.results)) as Results, 'copy.json');
      const again = addRuns(db, [runRecord(copy, undefined), runRecord(third, undefined)], NOW);
      expect(again.skipped.map((skip) => skip.stored.sourceFile)).toEqual(['run1.json']);
      expect(db.allRuns()).toHaveLength(2);
    });
  });

  it('takes --commit over the recorded one (tree unknown), and refuses no commit at all', () => {
    expect(runRecord(first, OTHER_COMMIT)).toMatchObject({ commit: OTHER_COMMIT, dirty: null });
    expect(runRecord(first, syntheticCommit(1)).dirty).toBe(false);
    const bare = named(sampleResults(), 'bare.json');
    expect(runRecord(bare, OTHER_COMMIT).commit).toBe(OTHER_COMMIT);
    expect(labErrorOf(() => runRecord(bare, undefined)).message).toBe(
      'history: bare.json records no commit (it was written outside a git checkout of loglab, ' +
        'or before results recorded one); pass --commit with the commit it measured',
    );
  });

  it('refuses, when reading, a row another program changed', () => {
    withDb((db) => {
      addRuns(db, [runRecord(first, undefined)], NOW);
      const raw = new Database(db.file);
      raw.prepare('UPDATE metrics SET labels = ? WHERE name = ?').run('{oops', SYNTHETIC_RATIO);
      raw.close();
      const error = labErrorOf(() => db.metricsOf(1));
      expect(error.code).toBe('INVALID_HISTORY');
      expect(error.message).toMatch(/holds a row that is not a history's: labels .*\{oops/);
    });
  });
});
