import { describe, expect, it } from 'vitest';
import type { Results } from '../lab/results.js';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import {
  expectOneUnitPerQuantity,
  metricNamed,
  metricsOf,
  runTiny,
} from '../test/fixtures/tiny-experiment.js';
import { STATES, TAILS_BYTES, parseCounts, experiment } from './recovery.js';

const newDir = tempDirs('recovery');
const RECORD_BYTES = 1024;
const DIVISOR = 256;
const COUNTS = [1, 10];
const TINY = {
  segmentCounts: COUNTS.join(','),
  tailDivisor: DIVISOR,
  sealedSegmentBytes: 4096,
  recoveryPointGapBytes: 2048,
  rebuildSegmentBytes: 64 * 1024,
  rounds: 2,
};
const TAILS = TAILS_BYTES.map((bytes) => bytes / DIVISOR);

let results: Promise<Results> | undefined;
function tinyRun(): Promise<Results> {
  results ??= runTiny(experiment, { dir: newDir(), params: TINY, drops: 'refused' });
  return results;
}

describe('the recovery experiment', () => {
  it('times the open of every log in every state, labelled as the chart expects', async () => {
    const run = await tinyRun();
    expectOneUnitPerQuantity(run);
    // Every state warm, and the torn state cold too.
    const logs = COUNTS.length * TAILS.length;
    expect(metricsOf(run, 'openNs')).toHaveLength(logs * (STATES.length + 1));
    for (const segments of COUNTS) {
      for (const tailBytes of TAILS) {
        for (const state of STATES) {
          const open = metricNamed(run, `recovery.${segments}.${tailBytes}.${state}.openNs`);
          expect(open.labels).toMatchObject({ segments, tailBytes, state, cache: 'warm' });
          expect(open.unit).toBe('ns');
        }
        const cold = metricNamed(run, `recovery.${segments}.${tailBytes}.torn.cold.openNs`);
        expect(cold.labels).toMatchObject({ segments, tailBytes, state: 'torn', cache: 'cold' });
      }
    }
    expect(metricNamed(run, 'recovery.rebuildNsPerMiB').unit).toBe('ns/MiB');
    expect(run.counters['rebuild.indexEntries']).toBeGreaterThan(0);
  });

  it('scans nothing when clean, the whole tail when torn, the gap with a point', async () => {
    const run = await tinyRun();
    for (const segments of COUNTS) {
      for (const tailBytes of TAILS) {
        const key = `${segments}.${tailBytes}`;
        const scanned = (state: string) =>
          metricNamed(run, `recovery.${key}.${state}.scannedBytes`).median;
        const lastRecordAt = run.counters[`${key}.tailBytes`]! - RECORD_BYTES;
        const point = run.counters[`${key}.olderPointPositionBytes`]!;
        expect(scanned('clean')).toBe(0);
        expect(scanned('torn')).toBe(lastRecordAt);
        expect(scanned('recovery-point')).toBe(lastRecordAt - point);
        expect(run.counters[`${key}.torn.fromSegmentStart`]).toBe(1);
        expect(run.counters[`${key}.recovery-point.fromSegmentStart`]).toBe(0);
        // The cut half of a record: its bytes up to the last non-zero one are reported discarded.
        expect(run.counters[`${key}.torn.discardedBytes`]).toBeGreaterThan(0);
        expect(run.counters[`${key}.torn.discardedBytes`]).toBeLessThanOrEqual(RECORD_BYTES / 2);
        expect(run.counters[`${key}.clean.discardedBytes`]).toBe(0);
      }
    }
  });

  it('reads the walked tail from the device when it opens cold (O_DIRECT here: no root drop)', async () => {
    const run = await tinyRun();
    expect(run.parameters.coldReads).toBe('o-direct');
    for (const segments of COUNTS) {
      for (const tailBytes of TAILS) {
        const key = `${segments}.${tailBytes}`;
        const walked = metricNamed(run, `recovery.${key}.torn.scannedBytes`).median;
        const device = metricNamed(run, `recovery.${key}.torn.cold.deviceReadBytes`);
        expect(device.unit).toBe('B');
        expect(device.median).toBeGreaterThanOrEqual(walked);
      }
    }
    expect(run.headline).toMatch(/with a cold page cache, as after a machine restart/);
  });

  it('reads segment counts as a list of positive integers', () => {
    expect(parseCounts('1, 10,100')).toEqual([1, 10, 100]);
    expect(() => parseCounts('1,0')).toThrow(/positive/);
    expect(() => parseCounts('ten')).toThrow(/positive/);
  });
});
