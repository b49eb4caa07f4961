import { describe, expect, it } from 'vitest';
import type { Results } from '../lab/results.js';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import {
  expectOneUnitPerQuantity,
  expectPredictionsBesideMetrics,
  metricNamed,
  metricsOf,
  runTiny,
} from '../test/fixtures/tiny-experiment.js';
import { METHODS, TARGET_SIXTY_FOURTHS, scanPredictions, experiment } from './scan-vs-lookup.js';

const newDir = tempDirs('scan-vs-lookup');
const SEGMENT_BYTES = 1024 * 1024;
const TINY = {
  segmentBytes: SEGMENT_BYTES,
  rounds: 2,
  warmScansPerRound: 1,
  warmLookupsPerRound: 5,
};
const TARGETS_MIB = TARGET_SIXTY_FOURTHS.map((sixtyFourths) => sixtyFourths / 64);

let warmOnly: Promise<Results> | undefined;
function withoutDrops(): Promise<Results> {
  warmOnly ??= runTiny(experiment, { dir: newDir(), params: TINY, drops: 'off' });
  return warmOnly;
}

describe('the scan-vs-lookup experiment', () => {
  it('times both methods at every target under the names and labels charts select', async () => {
    const results = await withoutDrops();
    expectOneUnitPerQuantity(results);
    for (const method of METHODS) {
      for (const targetMiB of TARGETS_MIB) {
        const time = metricNamed(results, `scan-vs-lookup.${method}.${targetMiB}.warm.timeNs`);
        expect(time.labels).toMatchObject({ method, targetMiB, cache: 'warm' });
        const bytes = metricNamed(results, `scan-vs-lookup.${method}.${targetMiB}.bytesRead`);
        expect(bytes.labels).toEqual({ method, targetMiB });
      }
    }
    expect(metricsOf(results, 'timeNs').every((metric) => metric.labels?.cache === 'warm')).toBe(
      true,
    );
    expect(results.notes.join('\n')).toMatch(/cold-cache figures are unavailable/);
    expect(results.predictions).toEqual([]);
  });

  it('reads at least up to the target by scan and one window by lookup', async () => {
    const results = await withoutDrops();
    const bytes = (method: string, targetMiB: number) =>
      metricNamed(results, `scan-vs-lookup.${method}.${targetMiB}.bytesRead`).median;
    TARGETS_MIB.forEach((targetMiB, i) => {
      expect(bytes('scan', targetMiB)).toBeGreaterThanOrEqual(targetMiB * SEGMENT_BYTES - 1024);
      expect(bytes('lookup', targetMiB)).toBeLessThanOrEqual(8192);
      const previous = TARGETS_MIB[i - 1];
      if (previous !== undefined) {
        expect(bytes('scan', targetMiB)).toBeGreaterThanOrEqual(bytes('scan', previous));
      }
    });
    const offsets = TARGETS_MIB.map((targetMiB) => results.counters[`${targetMiB}.offset`]);
    expect(offsets.at(-1)).toBe(SEGMENT_BYTES / 1024 - 1);
  });

  it('adds cold times, device bytes and the HDD model when the cache drops', async () => {
    const run = { dir: newDir(), params: TINY, drops: 'scratch' } as const;
    const results = await runTiny(experiment, run);
    expectOneUnitPerQuantity(results);
    expectPredictionsBesideMetrics(results);
    const cold = metricsOf(results, 'timeNs').filter((metric) => metric.labels?.cache === 'cold');
    expect(cold).toHaveLength(METHODS.length * TARGETS_MIB.length);
    expect(metricsOf(results, 'deviceReadBytes')).toHaveLength(METHODS.length * TARGETS_MIB.length);
    expect(results.predictions.map((prediction) => prediction.model)).toEqual(
      Array(cold.length).fill('hdd:exos-x20'),
    );
    expect(results.notes.join('\n')).toMatch(/HDD model says/);
  });

  it('reads cold with O_DIRECT when the cache cannot be dropped: the device supplies every byte', async () => {
    const run = { dir: newDir(), params: TINY, drops: 'refused' } as const;
    const results = await runTiny(experiment, run);
    expect(results.parameters.coldReads).toBe('o-direct');
    for (const targetMiB of TARGETS_MIB) {
      const device = (method: string) =>
        metricNamed(results, `scan-vs-lookup.${method}.${targetMiB}.cold.deviceReadBytes`).median;
      const asked = (method: string) =>
        metricNamed(results, `scan-vs-lookup.${method}.${targetMiB}.bytesRead`).median;
      // Whole pages, no readahead: at least what was asked, less than a page more per read.
      expect(device('lookup')).toBeGreaterThanOrEqual(asked('lookup'));
      expect(device('lookup')).toBeLessThanOrEqual(asked('lookup') + 2 * 4096);
      expect(device('scan')).toBeGreaterThanOrEqual(asked('scan'));
    }
    expect(results.notes.join('\n')).toMatch(/O_DIRECT reads have no readahead/);
  });

  it("prices the course's case beside the 24 MiB target: 84 ms of scan against two pages", () => {
    const targets = [{ targetMiB: 24, bytesRead: { scan: 24 * 1024 * 1024, lookup: 8192 } }];
    const predicted = scanPredictions(targets, true);
    const course = predicted.filter((prediction) => prediction.model === 'course');
    expect(course.map((prediction) => [prediction.name, Math.round(prediction.value)])).toEqual([
      ['scan-vs-lookup.scan.24.cold.timeNs', 84_068_502],
      ['scan-vs-lookup.scan.24.bytesRead', 23_959_576],
      ['scan-vs-lookup.lookup.24.bytesRead', 8_192],
    ]);
    const hdd = predicted.find((p) => p.name === 'scan-vs-lookup.lookup.24.cold.timeNs');
    expect(hdd?.value).toBeCloseTo(10_028_744, -1);
  });
});
