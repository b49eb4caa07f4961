import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  SYNTHETIC_COUNTER,
  SYNTHETIC_RATIO,
  syntheticCommit,
  syntheticRuns,
} from '../../test/fixtures/synthetic-history.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import type { Results } from '../results.js';
import { addRuns } from './add.js';
import { HistoryDatabase } from './database.js';
import { runRecord } from './run-record.js';
import { buildTrend } from './trend.js';

const tempDir = tempDirs('history-trend');

function historyOf(runs: readonly Results[]): HistoryDatabase {
  const db = HistoryDatabase.open(join(tempDir(), 'h.db'), 'write');
  const records = runs.map((results, i) =>
    runRecord({ file: `run${i + 1}.json`, results, contractInferred: false }, undefined),
  );
  addRuns(db, records, '2026-12-01T00:00:00.000Z');
  return db;
}

describe('buildTrend', () => {
  it('gives each gated metric across commits in the order runs started, rounds as a span', () => {
    const runs = syntheticRuns({ runs: 4 });
    const db = historyOf([...runs].reverse());
    const trend = buildTrend(db);
    // The raw rate is a timing: reported by a check, never gated, so not charted either.
    expect(trend.series.map((series) => series.metric).sort()).toEqual([
      SYNTHETIC_COUNTER,
      SYNTHETIC_RATIO,
    ]);
    const ratio = trend.series.find((series) => series.metric === SYNTHETIC_RATIO)!;
    expect(ratio.points.map((point) => point.commit)).toEqual([1, 2, 3, 4].map(syntheticCommit));
    const written = runs[0]!.metrics.find((metric) => metric.name === SYNTHETIC_RATIO)!;
    expect(ratio.points[0]).toMatchObject({
      median: written.median,
      low: Math.min(...written.samples!),
      high: Math.max(...written.samples!),
      rounds: 6,
    });
    const counter = trend.series.find((series) => series.metric === SYNTHETIC_COUNTER)!;
    expect(counter.points[0]).toMatchObject({ median: 1040, low: 1040, high: 1040, rounds: 0 });
    db.close();
  });

  it('keeps machines and parameters apart, a series each, and leaves out other experiments', () => {
    const [run] = syntheticRuns({ runs: 1 });
    const elsewhere = { ...run!, environment: { ...run!.environment, cpuCores: 16 } };
    const full = { ...run!, quick: false };
    const db = historyOf([run!, elsewhere, full]);
    const labels = buildTrend(db, ['synthetic'])
      .series.filter((series) => series.metric === SYNTHETIC_RATIO)
      .map((series) => series.series);
    expect(labels).toHaveLength(3);
    expect(labels.filter((label) => label.endsWith(', quick'))).toHaveLength(2);
    expect(buildTrend(db, ['other']).series).toEqual([]);
    db.close();
  });
});
