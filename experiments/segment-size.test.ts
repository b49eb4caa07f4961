import { describe, expect, it } from 'vitest';
import type { Results } from '../lab/results.js';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import {
  expectOneUnitPerQuantity,
  expectPredictionsBesideMetrics,
  metricNamed,
  runTiny,
} from '../test/fixtures/tiny-experiment.js';
import { SEGMENT_SIZES_BYTES, experiment } from './segment-size.js';
import { GiB } from '../storage/index.js';

const newDir = tempDirs('segment-size');
const RECORD_BYTES = 1040;
const DIVISOR = 1024;
const CHECK_MESSAGES = 40;
const TINY = {
  sizeDivisor: DIVISOR,
  totalBytes: 1_150_000,
  rounds: 2,
  retentionCheckMessages: CHECK_MESSAGES,
};
const SIZES = SEGMENT_SIZES_BYTES.map((bytes) => bytes / DIVISOR);

let results: Promise<Results> | undefined;
function tinyRun(): Promise<Results> {
  results ??= runTiny(experiment, { dir: newDir(), params: TINY, drops: 'refused' });
  return results;
}

describe('the segment-size experiment', () => {
  it('measures the four charted quantities for every size, labelled by segment size', async () => {
    const run = await tinyRun();
    expectOneUnitPerQuantity(run);
    for (const segmentBytes of SIZES) {
      for (const [quantity, unit] of [
        ['rollNs', 'ns'],
        ['openNs', 'ns'],
        ['lookupLatencyNs', 'ns'],
        ['retentionLagBytes', 'B'],
      ] as const) {
        const metric = metricNamed(run, `segment-size.${segmentBytes}.${quantity}`);
        expect(metric.unit).toBe(unit);
        expect(metric.labels).toMatchObject({ segmentBytes });
      }
      expect(metricNamed(run, `segment-size.${segmentBytes}.filesPerGiB`).unit).toBe('files');
      const groupRoll = metricNamed(run, `segment-size.${segmentBytes}.groupRollNs`);
      expect(groupRoll.labels).toMatchObject({ segmentBytes, durability: 'group' });
    }
  });

  it("sets the course's segment lifetimes at 5 messages a second beside the measured", async () => {
    const run = await tinyRun();
    expectPredictionsBesideMetrics(run);
    for (const segmentBytes of SIZES) {
      const name = `segment-size.${segmentBytes}.lifetimeSeconds`;
      const course = run.predictions.find((prediction) => prediction.name === name);
      expect(course?.value).toBe(segmentBytes / 5_120);
      // Records carry a 16-byte header the course's arithmetic leaves out.
      expect(metricNamed(run, name).median).toBeLessThan(segmentBytes / 5_120);
    }
  });

  it('keeps files, recovery scans and retention lag consistent with the segments', async () => {
    const run = await tinyRun();
    for (const segmentBytes of SIZES) {
      const key = String(segmentBytes);
      const segments = metricNamed(run, `segment-size.${key}.segments`).median;
      const perGiB = metricNamed(run, `segment-size.${key}.filesPerGiB`).median;
      expect((perGiB * run.counters[`${key}.logBytes`]!) / GiB).toBeCloseTo(segments * 3, 6);
      const recordsPerSegment = run.counters[`${key}.recordsPerSegment`]!;
      expect(run.counters[`${key}.recoveryScannedBytes`]).toBe(recordsPerSegment * RECORD_BYTES);
      const lag = metricNamed(run, `segment-size.${key}.retentionLagBytes`).median;
      const lagMax = metricNamed(run, `segment-size.${key}.retentionLagBytesMax`).median;
      expect(lag).toBeLessThanOrEqual(lagMax);
      expect(lagMax).toBeLessThanOrEqual(segmentBytes + CHECK_MESSAGES * RECORD_BYTES);
    }
  });
});
