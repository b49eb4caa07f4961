/**
 * Issue 41's two cases, on real quick runs: `loglab compare` against a copy of the same results
 * file made worse on purpose. The fixtures are `loglab run puzzle --quick` and `loglab run
 * durability --quick` on the 2-core VM (another program wrote 18% of the disk's bytes during the
 * puzzle's), trimmed to what compare reads (no descriptions, predictions, notes or charts; six
 * significant digits), so no test runs an experiment.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../../test/fixtures/main-in-process.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { worsened } from '../../test/fixtures/worsened.js';
import type { Metric, Results } from '../results.js';

const newDir = tempDirs('quick-run-regressions');
const FIXTURES = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'quick-runs');
const quickRun = (id: string): Results =>
  JSON.parse(readFileSync(join(FIXTURES, `${id}.json`), 'utf8')) as Results;

async function compareWith(baseline: Results, current: Results) {
  const dir = newDir();
  const [before, after] = [join(dir, 'baseline.json'), join(dir, 'current.json')];
  writeFileSync(before, JSON.stringify(baseline));
  writeFileSync(after, JSON.stringify(current));
  return runMain(['compare', before, after]);
}

/** The metrics the failure line on stderr names. */
const failing = (stderr: string) =>
  (/regressed: (.*)$/m.exec(stderr)?.[1] ?? '').split(', ').filter((name) => name !== '');

const bytesPerMsg = (metric: Metric) => metric.name.endsWith('BytesPerMsg');

describe('compare against a quick run made worse on purpose', () => {
  it('fails the puzzle with every bytes-per-message figure 1.5x, naming those of steady rounds', async () => {
    const puzzle = quickRun('puzzle');
    const run = await compareWith(puzzle, worsened(puzzle, 0.5, bytesPerMsg));
    expect(run.code).toBe(1);
    // Device bytes are the whole disk's: under none and the course's streaming they hold within
    // a few percent round to round; a synced round's few messages carry the journal's and other
    // programs' bytes, and their rounds' intervals stay wider than 1.5x.
    expect(failing(run.stderr)).toEqual([
      'puzzle.B.course.deviceBytesPerMsg',
      'puzzle.A.none.deviceBytesPerMsg',
      'puzzle.B.none.deviceBytesPerMsg',
    ]);
    expect(run.stdout).toMatch(/puzzle.B.always.deviceBytesPerMsg +measurement .* within noise$/m);
  });

  it('says the puzzle bytes of 3 rounds were not gated, and why, and passes', async () => {
    const threeRounds = (results: Results): Results => ({
      ...results,
      metrics: results.metrics.map((metric) =>
        bytesPerMsg(metric) ? { ...metric, samples: metric.samples?.slice(0, 3) } : metric,
      ),
    });
    const puzzle = threeRounds(quickRun('puzzle'));
    const run = await compareWith(puzzle, worsened(puzzle, 0.5, bytesPerMsg));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /puzzle.B.none.deviceBytesPerMsg +measurement .* regressed \(not gated: n=3 rounds, a measurement needs 6 to be gated\)$/m,
    );
  });

  it('fails durability with every figure 50% worse, naming messages per fsync and group over always', async () => {
    const durability = quickRun('durability');
    const run = await compareWith(durability, worsened(durability, 0.5));
    expect(run.code).toBe(1);
    const names = failing(run.stderr);
    const synced = durability.metrics.filter(
      (metric) => metric.name.endsWith('.msgsPerFsync') && metric.labels?.policy !== 'none',
    );
    expect(synced).toHaveLength(16);
    expect(names).toEqual(expect.arrayContaining(synced.map((metric) => metric.name)));
    expect(names).toEqual(
      expect.arrayContaining(['durability.1.groupVsAlways', 'durability.64.groupVsAlways']),
    );
    // Under always and group the loss window is 0, a promise: 50% worse is 0 still.
    expect(run.stdout).toMatch(/durability.group.64.lossWindowMsgs +counter .* unchanged$/m);
  });

  it('passes either quick run compared with itself', async () => {
    for (const id of ['puzzle', 'durability']) {
      const run = await compareWith(quickRun(id), quickRun(id));
      expect(run, id).toMatchObject({ code: 0, stderr: '' });
    }
  });
});
