import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  SYNTHETIC_COUNTER,
  SYNTHETIC_RATE,
  SYNTHETIC_RATIO,
  syntheticRuns,
} from '../../test/fixtures/synthetic-history.js';
import { labErrorOf } from '../../test/fixtures/lab-error.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import type { NamedResults } from '../results-documents.js';
import type { Metric, Results } from '../results.js';
import { addRuns } from './add.js';
import { type CheckOptions, checkDocument, judgeMetric } from './check.js';
import { HistoryDatabase, type HistoryMetric } from './database.js';
import { runRecord } from './run-record.js';

const tempDir = tempDirs('history-check');
const OPTIONS: CheckOptions = { windowRuns: 10, boundary: 0.99, gateTimings: false };

const named = (results: Results, i: number): NamedResults => ({
  file: `run${String(i + 1).padStart(2, '0')}.json`,
  results,
  contractInferred: false,
});

/** A history holding every run given, open for reading. */
function historyOf(runs: readonly NamedResults[]): HistoryDatabase {
  const file = join(tempDir(), 'h.db');
  const db = HistoryDatabase.open(file, 'write');
  addRuns(
    db,
    runs.map((run) => runRecord(run, undefined)),
    '2026-12-01T00:00:00.000Z',
  );
  db.close();
  return HistoryDatabase.open(file, 'read');
}

const verdicts = (db: HistoryDatabase, run: NamedResults, options = OPTIONS) =>
  Object.fromEntries(checkDocument(db, run, options).metrics.map((m) => [m.name, m.verdict]));

describe('history check on synthetic runs', () => {
  it('passes every one of 10 runs with a few per cent of noise against the runs before it', () => {
    const runs = syntheticRuns({ runs: 10 }).map(named);
    const db = historyOf(runs);
    for (const run of runs.slice(1)) {
      const check = checkDocument(db, run, OPTIONS);
      expect(check.failures, run.file).toEqual([]);
      expect(check.metrics.find((m) => m.name === SYNTHETIC_COUNTER)?.verdict).toBe('unchanged');
    }
    const last = checkDocument(db, runs[9]!, OPTIONS);
    expect(last.window).toHaveLength(9);
    const ratio = last.metrics.find((m) => m.name === SYNTHETIC_RATIO)!;
    expect([ratio.verdict, ratio.windowRuns, ratio.gated]).toEqual(['within noise', 9, true]);
    db.close();
  });

  it('fails at run 8 on a 20% step there, naming the gated ratio, and not before', () => {
    const runs = syntheticRuns({ runs: 10, stepAtRun: 8, stepRatio: 0.2 }).map(named);
    const db = historyOf(runs);
    expect(checkDocument(db, runs[6]!, OPTIONS).failures).toEqual([]);
    const check = checkDocument(db, runs[7]!, OPTIONS);
    expect(check.window).toHaveLength(7);
    expect(check.failures.map((metric) => metric.name)).toEqual([SYNTHETIC_RATIO]);
    const [failure] = check.failures;
    expect(failure!.value).toBeLessThan(failure!.limits![0]);
    // The raw rate dropped as much, and is reported, but a timing fails only when asked to.
    expect(verdicts(db, runs[7]!)[SYNTHETIC_RATE]).toBe('regressed');
    const gated = { ...OPTIONS, gateTimings: true };
    const both = checkDocument(db, runs[7]!, gated).failures.map((metric) => metric.name);
    expect(both).toEqual([SYNTHETIC_RATIO, SYNTHETIC_RATE]);
    db.close();
  });

  it('judges against the newest runs of the window only', () => {
    const runs = syntheticRuns({ runs: 10, stepAtRun: 8 }).map(named);
    const db = historyOf(runs);
    // Runs 8 and 9 are the window of run 10: all at the new level, so it is within noise.
    const check = checkDocument(db, runs[9]!, { ...OPTIONS, windowRuns: 2 });
    expect(check.window.map((run) => run.sourceFile)).toEqual(['run09.json', 'run08.json']);
    expect(check.failures).toEqual([]);
    db.close();
  });
});

describe('judgeMetric', () => {
  const ratio: Metric = {
    name: 'x.ratioBA',
    unit: 'ratio',
    kind: 'ratio',
    class: 'timing',
    direction: 'higher',
    median: 1,
  };
  const stored = (median: number): HistoryMetric => ({ ...ratio, labels: {}, median, rounds: [] });

  it('judges a counter exactly against the newest earlier run', () => {
    const counter: Metric = { ...ratio, kind: 'counter', class: 'counter', direction: 'lower' };
    const judged = judgeMetric({ ...counter, median: 1041 }, [stored(1040), stored(9)], OPTIONS);
    expect([judged.verdict, judged.test, judged.limits, judged.gated]).toEqual([
      'regressed',
      'exact',
      [1040, 1040],
      true,
    ]);
  });

  it('says why it does not judge: one earlier run, or earlier values that do not vary', () => {
    expect(judgeMetric(ratio, [stored(1)], OPTIONS).note).toBe(
      '1 earlier run(s) hold it; the t-test needs 2',
    );
    expect(judgeMetric(ratio, [stored(1), stored(1)], OPTIONS).verdict).toBe('not judged');
  });

  it('never gates an informational metric, and calls its move a change', () => {
    const informational: Metric = { ...ratio, direction: 'informational', median: 5 };
    const judged = judgeMetric(informational, [stored(1), stored(1.1), stored(0.9)], OPTIONS);
    expect([judged.verdict, judged.gated]).toEqual(['changed', false]);
  });
});

describe('a history with nothing to judge by', () => {
  const runs = syntheticRuns({ runs: 3 }).map(named);

  it("names the other machine and how it differs from this one's", () => {
    const db = historyOf(runs.slice(0, 2));
    const env = runs[2]!.results.environment;
    const elsewhere = named(
      { ...runs[2]!.results, environment: { ...env, kernel: '6.18.44', cpuCores: 8 } },
      2,
    );
    const error = labErrorOf(() => checkDocument(db, elsewhere, OPTIONS));
    expect(error.code).toBe('NO_USABLE_HISTORY');
    expect(error.message).toMatch(
      new RegExp(
        'holds no run of synthetic on this machine \\([0-9a-f]{12}\\), only of other machines ' +
          '\\([0-9a-f]{12}, 2 run\\(s\\), differing in cores 2 → 8, kernel 6\\.1 → 6\\.18\\.44\\)',
      ),
    );
    db.close();
  });

  it('says so for another experiment, other parameters, and a run older than the history', () => {
    const db = historyOf(runs.slice(1));
    const other = named({ ...runs[2]!.results, experiment: { id: 'other', question: 'q?' } }, 2);
    expect(labErrorOf(() => checkDocument(db, other, OPTIONS)).message).toContain(
      'holds no run of other; add earlier runs of it first',
    );
    const full = named({ ...runs[2]!.results, quick: false }, 2);
    expect(labErrorOf(() => checkDocument(db, full, OPTIONS)).message).toContain(
      'with these parameters (1 other set(s)',
    );
    expect(labErrorOf(() => checkDocument(db, runs[0]!, OPTIONS)).message).toContain(
      'that started before this one',
    );
    db.close();
  });
});
