import { describe, expect, it } from 'vitest';
import { runMain } from '../../test/fixtures/main-in-process.js';
import { EXOS_X20 } from '../models/models.js';
import { type PlanCosts, modelCosts } from './plan-costs.js';
import type { IntervalFigure, MeasuredFigures, SegmentSizeFigure } from './plan-measured.js';
import { recommend } from './plan-recommend.js';
import { MAX_SEGMENTS, PLAN_DEFAULTS, type PlanInput } from './plan.js';
import { MiB } from '../../storage/units.js';

const WEEK_SECONDS = 7 * 86_400;
const INPUT: PlanInput = {
  ratePerSec: 20_000,
  recordBytes: 2048,
  ...PLAN_DEFAULTS,
  retentionSeconds: WEEK_SECONDS,
  consumerLagSeconds: null,
  lookupPositionBytes: null,
};
/** The sample report's cold walk rate: 4 MiB of torn tail in 9.88 ms. */
const COSTS: PlanCosts = {
  ...modelCosts(EXOS_X20, 6144),
  recoveryBytesPerSec: { value: (4 * MiB) / 9.88e-3, source: 'measured: test' },
  openNsPerSegment: { value: 9.2e3, source: 'measured: test' },
};

const interval = (
  intervalBytes: number,
  lookupUs: number,
  noiseUs: readonly [number, number] | null,
  sampleCount: number,
): IntervalFigure => ({
  intervalBytes,
  lookupNs: lookupUs * 1e3,
  indexBytesPerGiB: null,
  noiseNs: noiseUs === null ? null : [noiseUs[0] * 1e3, noiseUs[1] * 1e3],
  sampleCount,
});

const row = (segmentBytes: number): SegmentSizeFigure => ({
  segmentBytes,
  openNs: 7e5,
  lookupLatencyNs: 3e3,
  rollNs: 5.6e5,
  retentionLagBytes: null,
});

function measured(overrides: Partial<MeasuredFigures> = {}): MeasuredFigures {
  return {
    files: [],
    ignored: [],
    costs: {},
    intervalBasis: 'cold cache, 1024-byte records',
    intervals: [],
    segmentSizes: [64 * 1024, MiB, 16 * MiB].map(row),
    segmentSizesQuick: true,
    ...overrides,
  };
}

const chooseInterval = (intervals: readonly IntervalFigure[]) =>
  recommend(INPUT, COSTS, measured({ intervals })).indexIntervalBytes;

describe('the segment recommendation', () => {
  it('considers 1 MiB … 2 GiB beyond the sizes measured and says it extrapolated', () => {
    const choice = recommend(INPUT, COSTS, measured()).segmentBytes;
    expect(choice.bytes).toBe(256 * MiB);
    expect(choice.reason).toMatch(/^the largest candidate of 1 MiB … 2 GiB within the bounds/);
    expect(choice.basis).toMatch(/^extrapolated from the 16 MiB measurement \(open 700 µs/);
    expect(choice.basis).toMatch(/a --quick run with sizes divided by 64/);
    expect(choice.basis).toMatch(/measure larger segments to confirm: `loglab run segment-size`/);
  });

  it('restates segments, files, open and recovery time for the recommended size', () => {
    const choice = recommend(INPUT, COSTS, measured()).segmentBytes;
    const retainedBytes = WEEK_SECONDS * 20_000 * 2048;
    expect(choice.segments).toBe(Math.ceil(retainedBytes / (256 * MiB)) + 1);
    expect(choice.segments).toBeLessThanOrEqual(MAX_SEGMENTS);
    expect(choice.files).toBe(choice.segments! * 3);
    expect(choice.openNs).toBeCloseTo(choice.segments! * 9.2e3, 0);
    expect(choice.recoveryNs).toBeCloseTo(((256 * MiB) / COSTS.recoveryBytesPerSec.value) * 1e9, 0);
    expect(choice.warning).toBeNull();
  });

  it('says a measured size was measured, and a size with no results was not', () => {
    const at256 = recommend(INPUT, COSTS, measured({ segmentSizes: [row(256 * MiB)] }));
    expect(at256.segmentBytes.basis).toMatch(/^measured at this size, a --quick run/);
    const none = recommend(INPUT, COSTS, measured({ segmentSizes: [] }));
    expect(none.segmentBytes.basis).toMatch(/^no segment-size results, so nothing was measured/);
  });

  it('warns above 100,000 segments and names the size that keeps fewer, with its cost', () => {
    const busy = { ...INPUT, ratePerSec: 100_000 };
    const choice = recommend(busy, COSTS, measured()).segmentBytes;
    expect(choice.segments).toBeGreaterThan(MAX_SEGMENTS);
    expect(choice.warning).toMatch(
      /^WARNING: 461,427 segments \(1,384,281 files\) is more than 100,000: too many/,
    );
    expect(choice.warning).toMatch(
      /choose larger segments: 2 GiB keeps 57,680, at the cost of a 5.06 s recovery walk/,
    );
  });
});

describe('the index interval recommendation', () => {
  it('keeps the default when the intervals overlap, and says the difference is noise', () => {
    const choice = chooseInterval([
      interval(0, 59.8, [55, 66], 10),
      interval(1024, 60.2, [56, 67], 10),
      interval(4096, 66.8, [62, 71], 10),
      interval(16384, 86, [83, 89], 10),
    ]);
    expect(choice?.bytes).toBe(4096);
    expect(choice?.reason).toMatch(/The default, 4 KiB: 66.8 µs/);
    expect(choice?.reason).toMatch(/faster medians are within the noise/);
    expect(choice?.reason).toMatch(
      /1 KiB: 60.2 µs \(interval 56 µs–67 µs, 10 samples\): the intervals overlap/,
    );
  });

  it('keeps the default from fewer than 5 samples, however far apart the figures', () => {
    const choice = chooseInterval([
      interval(1024, 40, [39, 41], 3),
      interval(4096, 66.8, [66, 67], 3),
    ]);
    expect(choice?.bytes).toBe(4096);
    expect(choice?.reason).toMatch(/1 KiB: 40 µs .*: fewer than 5 samples\. To decide/);
  });

  it('chooses a denser interval only when it is faster beyond the noise and the slack', () => {
    const choice = chooseInterval([
      interval(512, 39, [37, 42], 10),
      interval(1024, 40, [38, 42], 10),
      interval(4096, 66.8, [62, 71], 10),
    ]);
    expect(choice?.bytes).toBe(1024);
    expect(choice?.reason).toMatch(/Faster than the default \(4 KiB\), beyond the noise/);
  });

  it('chooses a sparser interval when its whole interval is within 10% of the default', () => {
    const choice = chooseInterval([
      interval(4096, 66.8, [65, 68.5], 10),
      interval(16384, 67, [66, 70], 10),
      interval(65536, 150, [140, 160], 10),
    ]);
    expect(choice?.bytes).toBe(16384);
    expect(choice?.reason).toMatch(/As fast as the default \(4 KiB\) with a smaller index/);
  });
});

/** Every `N s = about M unit` in a printout: N in that unit must round to M. */
function contradictions(stdout: string): string[] {
  const unitSeconds: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86_400 };
  const pattern = /([\d,.]+) s = about ([\d,.]+) (second|minute|hour|day)s?/g;
  return [...stdout.matchAll(pattern)]
    .filter((match) => {
      const seconds = Number(match[1]!.replaceAll(',', ''));
      const about = Number(match[2]!.replaceAll(',', ''));
      const inUnit = seconds / unitSeconds[match[3]!]!;
      return Math.abs(inUnit - about) / about > 0.05;
    })
    .map((match) => match[0]);
}

describe('loglab plan --measured with the sample report', () => {
  const args = ['plan', '--rate', '20000/s', '--size', '2KiB', '--retention', '7d'];

  it('recommends a segment at most 100,000 segments deep, or warns, and says it extrapolated', async () => {
    const run = await runMain([...args, '--measured', 'docs/sample-report']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const block = run.stdout.slice(run.stdout.indexOf('Recommendation'));
    const kept = /segments kept += .* = ([\d,]+)$/m.exec(block);
    expect(kept).not.toBeNull();
    const segments = Number(kept![1]!.replaceAll(',', ''));
    if (segments > MAX_SEGMENTS) expect(block).toMatch(/WARNING: [\d,]+ segments/);
    expect(block).not.toMatch(/segment 16 MiB:/);
    expect(block).toMatch(/extrapolated from the 16 MiB measurement/);
    expect(block).toMatch(/files += [\d,]+ x 3 \(.log .index .timeindex\) += [\d,]+/);
    // The figures are the sample report's own, whatever this machine measured when it was made.
    expect(block).toMatch(/open, clean += [\d,]+ segments x [\d.]+ µs checked += /);
    expect(block).toMatch(/recovery walk += [\d,]+ B \/ [\d.]+ MB\/s += [\d.]+ (ms|s)/);
    expect(block).toMatch(/index interval 4 KiB:/);
    expect(block).toMatch(/within the noise/);
  });

  it('warns about the default 64 MiB segment: 369,142 segments for the week', async () => {
    const run = await runMain(args);
    expect(run.stdout).toMatch(
      /WARNING: 369,142 segments \(1,107,426 files\) is more than 100,000/,
    );
    expect(run.stdout).toMatch(/--segment 256MiB keeps 92,287/);
  });

  it('prints each duration once, at one rounding: 1.64 s, not "2 s = about 1.6 seconds"', async () => {
    const run = await runMain(args);
    expect(run.stdout).toMatch(/lasts += 67,108,864 \/ 40,960,000 += 1.64 s$/m);
    expect(run.stdout).toMatch(/4,194,304 \/ 40,960,000 += 0.102 s /);
    expect(run.stdout).not.toMatch(/ s = about [\d.]+ seconds?/);
    for (const rate of ['1/s', '5/s', '333/s', '20000/s', '1000000/s']) {
      const other = await runMain(['plan', '--rate', rate, '--size', '1KiB', '--retention', '90s']);
      expect(contradictions(other.stdout)).toEqual([]);
    }
  });
});
