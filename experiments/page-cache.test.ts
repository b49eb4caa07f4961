import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ColdReadOptions } from '../lab/cold-reads.js';
import { runExperiment } from '../lab/experiment.js';
import type { Results } from '../lab/results.js';
import {
  expectContractCharts,
  expectWellFormed,
  metricNamed,
  metricsOf,
} from '../test/fixtures/experiment-shape.js';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import { experiment } from './page-cache.js';
import { MiB } from '../storage/index.js';

const tempDir = tempDirs('page-cache');

const tiny = {
  ...experiment,
  params: {
    ...experiment.params,
    logBytes: { quick: 4 * MiB, full: 4 * MiB },
    oldReads: { quick: 4, full: 4 },
    rounds: { quick: 2, full: 2 },
  },
};

function run(cacheControl: ColdReadOptions): Promise<Results> {
  return runExperiment(tiny, { dir: tempDir(), quick: true, seconds: 0.2, cacheControl });
}

describe('the page-cache experiment', () => {
  let results: Results;
  let withoutRoot: Results;

  it('measures appends and reads of every kind when the cache can be dropped', async () => {
    // A stand-in for /proc/sys/vm/drop_caches: the test must not empty the machine's cache.
    const dropCachesFile = path.join(tempDir(), 'drop_caches');
    results = await run({ isRoot: true, dropCachesFile });
    expectWellFormed(results);
    const kinds = metricsOf(results, 'latencyNs').map((metric) => metric.labels?.readKind);
    expect(kinds).toEqual(['append', 'recent', 'old-warm', 'old-cold']);
    for (const metric of metricsOf(results, 'latencyNs')) {
      expect(metric.unit).toBe('ns');
      expect(metric.labels?.cache).toBe(metric.labels?.readKind === 'old-cold' ? 'cold' : 'warm');
      expect(metric.labels?.policy).toBe('none');
    }
    expectContractCharts(results);
  });

  it('proves per read kind how much was read from memory, from rchar and read_bytes', () => {
    for (const kind of ['recent', 'old-warm', 'old-cold']) {
      const logical = metricNamed(results, `page-cache.${kind}.logicalReadBytesPerRead`);
      const device = metricNamed(results, `page-cache.${kind}.deviceReadBytesPerRead`);
      const served = metricNamed(results, `page-cache.${kind}.servedFromMemory`);
      expect(logical.unit).toBe('B/read');
      expect(served.kind).toBe('ratio');
      const expected = Math.min(1, Math.max(0, 1 - device.median / logical.median));
      expect(served.median).toBeCloseTo(expected);
    }
  });

  it("sets the append's share of the course's 300 ms checkout beside the course's own", () => {
    const share = metricNamed(results, 'page-cache.checkout.appendSharePct');
    const append = metricNamed(results, 'page-cache.append.latencyNs');
    expect(share).toMatchObject({ unit: '%', class: 'timing', direction: 'lower' });
    share.samples?.forEach((value, i) =>
      expect(value).toBeCloseTo((100 * (append.samples?.[i] ?? 0)) / 300e6, 10),
    );
    const course = results.predictions.find(
      (prediction) => prediction.name === 'page-cache.checkout.appendSharePct',
    );
    expect(course).toMatchObject({ model: 'course', unit: '%' });
    expect(course?.value).toBeCloseTo((100 * 0.004) / 300, 8);
  });

  it('reads cold with O_DIRECT when the cache cannot be dropped, and the disk supplies it', async () => {
    withoutRoot = await run({ isRoot: false });
    expectWellFormed(withoutRoot);
    expect(withoutRoot.parameters.coldReads).toBe('o-direct');
    expect(withoutRoot.notes.join('\n')).toMatch(/not running as root.*O_DIRECT/);
    // Every cold read fetched at least its record's pages from the device, none from memory.
    const device = metricNamed(withoutRoot, 'page-cache.old-cold.deviceReadBytesPerRead');
    expect(device.median).toBeGreaterThanOrEqual(4096);
    expect(metricNamed(withoutRoot, 'page-cache.old-cold.servedFromMemory').median).toBeLessThan(
      0.05,
    );
    expect(metricNamed(withoutRoot, 'page-cache.old-warm.servedFromMemory').median).toBeGreaterThan(
      0.95,
    );
  });

  it('counts the bytes the log read per old read exactly, the same whichever way cold reads went', () => {
    for (const kind of ['old-warm', 'old-cold']) {
      const name = `page-cache.${kind}.logReadBytesPerRead`;
      const dropped = metricNamed(results, name);
      expect(dropped).toMatchObject({ class: 'counter', unit: 'B/read' });
      // At least the record and its header; at most the read window and an index page or two.
      expect(dropped.median).toBeGreaterThanOrEqual(1024 + 16);
      expect(dropped.median).toBeLessThanOrEqual(16 * 1024);
      expect(metricNamed(withoutRoot, name).median).toBe(dropped.median);
    }
    expect(metricsOf(results, 'logReadBytesPerRead')).toHaveLength(2);
  });

  it('leaves cold figures out and says so when cold reads are turned off', async () => {
    const off = await run({ isRoot: false, mode: 'off' });
    expectWellFormed(off);
    expect(off.metrics.some((metric) => metric.name.includes('old-cold'))).toBe(false);
    expect(off.notes.join('\n')).toMatch(/--cold-reads off.*cold-cache figures are unavailable/);
    expect(off.headline).toMatch(/cold figures were unavailable/);
    expect(off.parameters.coldReads).toBe('unavailable');
  });
});
