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
import { expectHonestStatistics } from '../test/fixtures/experiment-shape.js';
import { INTERVALS_BYTES, RECORD_SIZES, experiment } from './index-density.js';
import { GiB } from '../storage/index.js';

const newDir = tempDirs('index-density');
const TINY = {
  logBytes: 128 * 1024,
  rounds: 2,
  coldLookupsPerRound: 3,
  walkSamples: 8,
  recentBytes: 4096,
};

let refused: Promise<Results> | undefined;
/** One run without cache drops, shared by the tests that only read its document. */
function withoutDrops(): Promise<Results> {
  refused ??= runTiny(experiment, { dir: newDir(), params: TINY, drops: 'off' });
  return refused;
}

describe('the index-density experiment', () => {
  it('measures every setting under the names and labels the charts select', async () => {
    const results = await withoutDrops();
    expect(results.experiment.id).toBe('index-density');
    expectOneUnitPerQuantity(results);
    for (const recordSizeBytes of RECORD_SIZES) {
      for (const intervalBytes of INTERVALS_BYTES) {
        const prefix = `index-density.${recordSizeBytes}.${intervalBytes}`;
        const size = metricNamed(results, `${prefix}.indexBytesPerGiB`);
        expect(size.labels).toEqual({ intervalBytes, recordSizeBytes });
        expect(size.unit).toBe('B');
        const warm = metricNamed(results, `${prefix}.warm.lookupLatencyNs`);
        expect(warm.labels).toMatchObject({ intervalBytes, recordSizeBytes, cache: 'warm' });
        expect(warm.p50).toBeDefined();
        expectHonestStatistics(warm);
        expect(metricNamed(results, `${prefix}.appendMsgsPerSec`).unit).toBe('msgs/s');
      }
    }
  });

  it('leaves out cold figures and says why when cold reads are turned off', async () => {
    const results = await withoutDrops();
    const cold = results.metrics.filter((metric) => metric.labels?.cache === 'cold');
    expect(cold).toEqual([]);
    expect(results.notes.join('\n')).toMatch(/cold-cache figures are unavailable/);
  });

  it("sets the course's index sizes beside the 53-byte dense and 4 KiB figures", async () => {
    const results = await withoutDrops();
    expectPredictionsBesideMetrics(results);
    const course = Object.fromEntries(results.predictions.map((p) => [p.name, p.value]));
    expect(course).toEqual({
      'index-density.53.0.indexBytesPerGiB': 10_129_640 * 16,
      'index-density.53.4096.indexBytesPerGiB': 131_072 * 16,
    });
  });

  it('keeps its counters consistent with the index files and the lookup walks', async () => {
    const results = await withoutDrops();
    for (const recordSizeBytes of RECORD_SIZES) {
      const sizes = INTERVALS_BYTES.map((interval) =>
        metricNamed(results, `index-density.${recordSizeBytes}.${interval}.indexBytesPerGiB`),
      ).map((metric) => metric.median);
      sizes.slice(1).forEach((size, i) => expect(size).toBeLessThanOrEqual(sizes[i]!));
      for (const interval of INTERVALS_BYTES) {
        const key = `${recordSizeBytes}.${interval}`;
        const perGiB = metricNamed(results, `index-density.${key}.indexBytesPerGiB`).median;
        const logBytes = results.counters[`${key}.logBytes`]!;
        const entries = results.counters[`${key}.indexEntries`]!;
        expect((perGiB * logBytes) / GiB).toBeCloseTo(entries * 8, 3);
        const comparisons = metricNamed(results, `index-density.${key}.comparisons`).median;
        expect(comparisons).toBeLessThanOrEqual(Math.ceil(Math.log2(entries + 1)) + 1);
        expect(
          metricNamed(results, `index-density.${key}.pagesPerLookup`).median,
        ).toBeGreaterThanOrEqual(1);
      }
      if (typeof recordSizeBytes === 'number') {
        const dense = metricNamed(results, `index-density.${recordSizeBytes}.0.stepForwardBytes`);
        expect(dense.median).toBe(recordSizeBytes);
      }
    }
  });

  it('counts index-file searches for the 53-byte logs, plain and warm section first', async () => {
    const results = await withoutDrops();
    const pages = metricsOf(results, 'indexPagesPerSearch');
    expect(pages).toHaveLength(INTERVALS_BYTES.length * 2 * 2);
    for (const interval of INTERVALS_BYTES) {
      const probes = (search: string) =>
        metricNamed(results, `index-density.53.${interval}.${search}.any.probesPerSearch`).median;
      expect(probes('warm-first')).toBeLessThanOrEqual(probes('plain') + 2);
    }
    expect(results.notes.join('\n')).toMatch(/warm section first/);
  });

  it('reports cold lookups and index-file searches when the cache can be dropped', async () => {
    const run = { dir: newDir(), params: TINY, drops: 'scratch' } as const;
    const results = await runTiny(experiment, run);
    expectOneUnitPerQuantity(results);
    const cold = metricsOf(results, 'lookupLatencyNs').filter((m) => m.labels?.cache === 'cold');
    expect(cold).toHaveLength(RECORD_SIZES.length * INTERVALS_BYTES.length);
    const searches = metricsOf(results, 'indexSearchNs');
    expect(searches).toHaveLength(INTERVALS_BYTES.length * 2);
    for (const search of searches) expect(search.labels).toMatchObject({ targets: 'recent' });
  });

  it('reads cold lookups from the device with O_DIRECT when the cache cannot be dropped', async () => {
    const run = { dir: newDir(), params: TINY, drops: 'refused' } as const;
    const results = await runTiny(experiment, run);
    expect(results.parameters.coldReads).toBe('o-direct');
    const device = metricsOf(results, 'deviceReadBytesPerLookup');
    expect(device).toHaveLength(RECORD_SIZES.length * INTERVALS_BYTES.length);
    // Whole pages from the device; two lookups in one page of a tiny log share it, as after a drop.
    for (const metric of device) expect(metric.median).toBeGreaterThan(0);
    expect(metricsOf(results, 'indexSearchNs')).toHaveLength(INTERVALS_BYTES.length * 2);
  });
});
