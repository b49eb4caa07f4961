import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../../test/fixtures/main-in-process.js';
import { sampleResults } from '../../test/fixtures/sample-results.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { EXOS_X20 } from '../models/models.js';
import { modelCosts } from './plan-costs.js';
import { type MeasuredDocument, measuredFigures } from './plan-measured.js';
import { recommend } from './plan-recommend.js';
import { type PlanInput, PLAN_DEFAULTS } from './plan.js';
import type { Metric, Results } from '../results.js';
import { GiB, MiB } from '../../storage/units.js';

const newDir = tempDirs('plan-measured');
const INPUT: PlanInput = {
  ratePerSec: 5,
  recordBytes: 1024,
  ...PLAN_DEFAULTS,
  retentionSeconds: 3 * 86_400,
  consumerLagSeconds: null,
  lookupPositionBytes: null,
};

type Labels = NonNullable<Metric['labels']>;
const metric = (name: string, unit: string, median: number, labels: Labels): Metric => ({
  name,
  unit,
  kind: 'timing',
  class: 'timing',
  direction: 'lower',
  median,
  labels,
});
const doc = (id: string, metrics: Metric[]): Results =>
  sampleResults({ experiment: { id, question: `what does ${id} show?` }, metrics });

/** Cold lookups flat up to 4 KiB then slower; warm ones (to be ignored) all fast. */
function indexDensity(): Results {
  const coldNs: Record<number, number> = {
    0: 2.0e6,
    1024: 2.0e6,
    4096: 2.1e6,
    16384: 2.6e6,
    65536: 4e6,
  };
  return doc(
    'index-density',
    Object.entries(coldNs).flatMap(([interval, ns]) => {
      const intervalBytes = Number(interval);
      const base = { intervalBytes, recordSizeBytes: 1024 };
      const name = (rest: string) => `index-density.${interval}.${rest}`;
      const indexBytes = (8 * GiB) / Math.max(intervalBytes, 1024);
      return [
        metric(name('1024.cold.lookupLatencyNs'), 'ns', ns, { ...base, cache: 'cold' }),
        metric(name('1024.warm.lookupLatencyNs'), 'ns', 900, { ...base, cache: 'warm' }),
        // Another record size, far from the plan's: never chosen.
        metric(name('64.cold.lookupLatencyNs'), 'ns', 1, {
          intervalBytes,
          recordSizeBytes: 64,
          cache: 'cold',
        }),
        metric(name('1024.indexBytesPerGiB'), 'B', indexBytes, base),
      ];
    }),
  );
}

const scan = (targetMiB: number, cache: string, ns: number) =>
  metric(`scan-vs-lookup.scan.${targetMiB}.${cache}.timeNs`, 'ns', ns, {
    method: 'scan',
    targetMiB,
    cache,
  });

function documents(recoveryTailNs = 0.1e9): MeasuredDocument[] {
  const sizes = [16 * MiB, 64 * MiB, 256 * MiB, GiB];
  return [
    { file: 'index-density.json', results: indexDensity() },
    {
      file: 'scan-vs-lookup.json',
      results: doc('scan-vs-lookup', [
        scan(64, 'cold', 0.5e9),
        scan(8, 'cold', 1e6),
        scan(64, 'warm', 1e7),
      ]),
    },
    {
      file: 'recovery.json',
      results: doc('recovery', [
        metric('recovery.torn.openNs', 'ns', recoveryTailNs, {
          segments: 4,
          tailBytes: 16 * MiB,
          state: 'torn',
        }),
        metric('recovery.clean.openNs', 'ns', 50e6, {
          segments: 100,
          tailBytes: 0,
          state: 'clean',
        }),
      ]),
    },
    {
      file: 'segment-size.json',
      results: doc(
        'segment-size',
        sizes.flatMap((segmentBytes) => [
          metric(`segment-size.${segmentBytes}.openNs`, 'ns', 1e6, { segmentBytes }),
          metric(`segment-size.${segmentBytes}.rollNs`, 'ns', 2e5, { segmentBytes }),
        ]),
      ),
    },
    { file: 'puzzle.json', results: doc('puzzle', []) },
  ];
}

describe('measured figures for the plan', () => {
  it('prefers cold figures at the nearest record size and derives rates from them', () => {
    const measured = measuredFigures(documents(), 1000, 4096);
    expect(measured.intervals.map((figure) => [figure.intervalBytes, figure.lookupNs])).toEqual([
      [0, 2.0e6],
      [1024, 2.0e6],
      [4096, 2.1e6],
      [16384, 2.6e6],
      [65536, 4e6],
    ]);
    expect(measured.costs.coldLookupNs?.value).toBe(2.1e6);
    expect(measured.costs.scanBytesPerSec?.value).toBeCloseTo((64 * MiB) / 0.5, 0);
    expect(measured.costs.recoveryBytesPerSec?.value).toBeCloseTo((16 * MiB) / 0.1, 0);
    expect(measured.costs.openNsPerSegment?.value).toBe(5e5);
    expect(measured.segmentSizes.map((row) => row.segmentBytes)).toEqual([
      16 * MiB,
      64 * MiB,
      256 * MiB,
      GiB,
    ]);
    expect(measured.ignored).toEqual(['puzzle.json (puzzle)']);
  });

  it('sizes recovery by the cold torn open (a machine restart) when the document has one', () => {
    const docs = documents();
    const recovery = docs.find((entry) => entry.file === 'recovery.json')!;
    const cold = metric('recovery.torn.cold.openNs', 'ns', 0.4e9, {
      segments: 4,
      tailBytes: 16 * MiB,
      state: 'torn',
      cache: 'cold',
    });
    const withCold = [
      ...docs.filter((entry) => entry !== recovery),
      {
        ...recovery,
        results: { ...recovery.results, metrics: [...recovery.results.metrics, cold] },
      },
    ];
    const measured = measuredFigures(withCold, 1000, 4096);
    expect(measured.costs.recoveryBytesPerSec?.value).toBeCloseTo((16 * MiB) / 0.4, 0);
  });

  it('keeps the default interval when no figure carries an interval or samples', () => {
    const measured = measuredFigures(documents(), 1024, 4096);
    const costs = { ...modelCosts(EXOS_X20, 5120), ...measured.costs };
    const { indexIntervalBytes } = recommend(INPUT, costs, measured);
    expect(indexIntervalBytes?.bytes).toBe(4096);
    expect(indexIntervalBytes?.reason).toMatch(
      /The default, 4 KiB: 2.1 ms \(no interval, 0 samples/,
    );
    expect(indexIntervalBytes?.reason).toMatch(
      /dense: 2 ms .*: fewer than 5 samples, no interval recorded/,
    );
  });

  it('recommends the largest segment within the retention and recovery bounds', () => {
    const slowRecovery = measuredFigures(documents(0.1e9), 1024, 4096);
    const costs = { ...modelCosts(EXOS_X20, 5120), ...slowRecovery.costs };
    const chosen = recommend(INPUT, costs, slowRecovery).segmentBytes;
    expect(chosen.bytes).toBe(64 * MiB);
    expect(chosen.reason).toMatch(/lasts about 3.6 hours \(5.06% of the retention\)/);
    expect(chosen.reason).toMatch(/128 MiB lasts about 7.3 hours \(10.1% of the retention\)/);
    expect(chosen.basis).toMatch(
      /^measured at this size(, a --quick run.*)?: open 1 ms, roll 200 µs/,
    );
    // Without a retention, only recovery bounds the size: a fast walk allows 256 MiB.
    const fast = measuredFigures(documents(0.05e9), 1024, 4096);
    const unbounded = { ...INPUT, retentionSeconds: null };
    const fastCosts = { ...modelCosts(EXOS_X20, 5120), ...fast.costs };
    expect(recommend(unbounded, fastCosts, fast).segmentBytes.bytes).toBe(256 * MiB);
  });

  it('prints the recommendation with where each figure came from', async () => {
    const dir = newDir();
    for (const { file, results } of documents()) {
      writeFileSync(join(dir, file), JSON.stringify(results));
    }
    const run = await runMain([
      'plan',
      '--rate',
      '5/s',
      '--size',
      '1KiB',
      '--retention',
      '3d',
      '--measured',
      dir,
    ]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/lookup, not cached += measured += 2.1 ms/);
    expect(run.stdout).toMatch(/lookup: measured: index-density.4096.1024.cold.lookupLatencyNs/);
    expect(run.stdout).toMatch(/scan instead += 67,108,864 B \/ 134 MB\/s += 500 ms/);
    expect(run.stdout).toMatch(/open, clean += 21 segments x 500 µs += 10.5 ms/);
    expect(run.stdout).toMatch(/not used \(not a sizing experiment\): .*puzzle.json \(puzzle\)/);
    expect(run.stdout).toMatch(/segment 64 MiB:\n +the largest candidate of 1 MiB … 2 GiB within/);
    expect(run.stdout).toMatch(/index interval 4 KiB:\n +Lookups measured with cold cache/);
  });

  it('refuses a measured file that is not a results document, with exit code 2', async () => {
    const dir = newDir();
    mkdirSync(join(dir, 'out'));
    writeFileSync(join(dir, 'out', 'broken.json'), '{"schema":"loglab/results@1"}');
    const plan = (measured: string) =>
      runMain(['plan', '--rate', '5/s', '--size', '1KiB', '--measured', measured]);
    const run = await plan(join(dir, 'out'));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^loglab: INVALID_RESULTS: --measured: lab: .*broken.json: /);
    const missing = await plan(join(dir, 'nope'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--measured: expected a results file or a directory of them/);
  });
});
