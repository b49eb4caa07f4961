import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../../test/fixtures/main-in-process.js';
import { expectMetricContract } from '../../test/fixtures/metric-contract.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import type { Results } from '../../lab/results.js';

const newDir = tempDirs('ci');
const BYTES_PER_MSG = 'ci.B.none.send.writeBytesPerMsg';

function doctor(file: string, name: string, change: (median: number) => number): void {
  const results = JSON.parse(readFileSync(file, 'utf8')) as Results;
  const metric = results.metrics.find((candidate) => candidate.name === name)!;
  metric.median = change(metric.median);
  writeFileSync(file, JSON.stringify(results));
}

describe('loglab ci', () => {
  it('writes a baseline of deterministic counters and then finds nothing changed', async () => {
    const baseline = join(newDir(), 'baseline.json');
    const update = await runMain(['ci', '--baseline', baseline, '--update-baseline']);
    expect(update).toMatchObject({ code: 0, stderr: '' });
    const results = JSON.parse(readFileSync(baseline, 'utf8')) as Results;
    expect(results.experiment.id).toBe('ci-counters');
    expectMetricContract(results);
    expect(new Set(results.metrics.map((metric) => metric.class))).toEqual(new Set(['counter']));
    const byName = new Map(results.metrics.map((metric) => [metric.name, metric.median]));
    expect(byName.get('ci.log.sparse.recoveryScannedBytes')).toBe(0);
    expect(byName.get('ci.B.none.send.fdatasyncsPerMsg')).toBe(0);
    expect(byName.get('ci.B.always.send.fdatasyncsPerMsg')).toBeGreaterThanOrEqual(1);
    expect(byName.get(BYTES_PER_MSG)).toBe(1016);
    // Group commit: one write and one fdatasync for each group of 16 appends.
    expect(byName.get('ci.log.group.writeCallsPerMsg')).toBe(1 / 16);
    expect(byName.get('ci.log.group.fdatasyncsPerMsg')).toBe(1 / 16);
    const again = await runMain(['ci', '--baseline', baseline]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/ci-counters: no gated regression — 0 regressed, 0 improved, /);
    expect(again.stdout).toMatch(new RegExp(` ${results.metrics.length} unchanged`));
  });

  it('fails when the storage core writes one byte more per message than the baseline', async () => {
    const baseline = join(newDir(), 'baseline.json');
    await runMain(['ci', '--baseline', baseline, '--update-baseline']);
    doctor(baseline, BYTES_PER_MSG, (median) => median - 1);
    const run = await runMain(['ci', '--baseline', baseline, '--format', 'md']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /\| `ci.B.none.send.writeBytesPerMsg` .* 1,015 B\/msg \| 1,016 B\/msg \| .* ❌ regressed/,
    );
    expect(run.stderr).toBe(`loglab: CHECK_FAILED: ci: 1 metric(s) regressed: ${BYTES_PER_MSG}\n`);
  });

  it('passes an improvement and suggests keeping it in the baseline', async () => {
    const baseline = join(newDir(), 'baseline.json');
    await runMain(['ci', '--baseline', baseline, '--update-baseline']);
    doctor(baseline, BYTES_PER_MSG, (median) => median + 1);
    const run = await runMain(['ci', '--baseline', baseline]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/some counters improved; keep the gain with `loglab ci --update-/);
  });

  it('exits 2 without a baseline, saying how to make one', async () => {
    const run = await runMain(['ci', '--baseline', join(newDir(), 'missing.json')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^loglab: INVALID_RESULTS: ci: no baseline at .*missing.json;/);
  });

  it('matches the baseline committed in ci/baseline.json', async () => {
    const run = await runMain(['ci']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });
});

describe('loglab ci --against and compare --against: what they refuse before building', () => {
  it('refuses a ref that does not exist, naming it, with exit 2', async () => {
    const run = await runMain(['ci', '--against', 'no-such-ref-anywhere']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/BAD_REF: --against: no commit 'no-such-ref-anywhere' in /);
  });

  it("refuses --against's companions without it, and what --against makes pointless", async () => {
    const pairs = await runMain(['ci', '--pairs', '3']);
    expect(pairs).toMatchObject({ code: 2 });
    expect(pairs.stderr).toMatch(/--pairs: only with --against REF/);
    const update = await runMain(['ci', '--against', 'HEAD', '--update-baseline']);
    expect(update.stderr).toMatch(/--update-baseline: not with --against/);
    const nothing = await runMain(['compare', '--against', 'HEAD']);
    expect(nothing).toMatchObject({ code: 2 });
    expect(nothing.stderr).toMatch(/name what to run, e.g. --bench storage/);
    const files = await runMain(['compare', '--against', 'HEAD', 'a.json', '--bench', 'storage']);
    expect(files.stderr).toMatch(/compare --against: no files, got 'a.json'/);
    const pairsOutOfRange = await runMain(['ci', '--against', 'HEAD', '--pairs', '0']);
    expect(pairsOutOfRange.stderr).toMatch(/--pairs/);
  });
});
