import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runExperiment } from '../lab/experiment.js';
import { alignedFloorBytesPerAppend, blocksPerAppend } from '../lab/models/page-floor.js';
import type { Results } from '../lab/results.js';
import {
  expectContractCharts,
  expectWellFormed,
  metricsOf,
} from '../test/fixtures/experiment-shape.js';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import { experiment } from './record-size.js';

const newDir = tempDirs('record-size');
const QUICK_BODIES = [64, 1024, 4080];
const HEADER_BYTES = 16;
const TMPFS_MAGIC = 0x01021994;
const SHM = '/dev/shm';
const shmIsTmpfs = (() => {
  try {
    return statfsSync(SHM).type === TMPFS_MAGIC;
  } catch {
    return false;
  }
})();

const BLOCK_BYTES = 4096;

/** Blocks each record touches, counted one start position at a time. */
function countedBlocks(starts: readonly number[], recordBytes: number): number {
  const blocks = starts.map(
    (start) =>
      Math.floor((start + recordBytes - 1) / BLOCK_BYTES) - Math.floor(start / BLOCK_BYTES) + 1,
  );
  return blocks.reduce((sum, count) => sum + count, 0) / starts.length;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

function expectShape(results: Results): readonly unknown[] {
  expectWellFormed(results);
  const sizes = QUICK_BODIES.map((bodyBytes) => ({
    bodyBytes,
    recordBytes: bodyBytes + HEADER_BYTES,
  }));
  expect(metricsOf(results, 'msgsPerSec').map((metric) => metric.labels)).toEqual(sizes);
  expect(metricsOf(results, 'mbPerSec').map((metric) => metric.labels)).toEqual(sizes);
  expect(results.headline).toMatch(
    // The log aligns under `always`: a 1,040-byte record never crosses a block (page-alignment.ts).
    /^A 1,040-byte record touches 1\.00 pages on average: 4,096 bytes per synced append is the floor; /,
  );
  return metricsOf(results, 'deviceBytesPerMsg');
}

describe("the page model's floor", () => {
  it('is 1 + (R - 1)/P blocks from a random byte, 1 + (R - gcd(R, P))/P end to end', () => {
    const everyByte = Array.from({ length: BLOCK_BYTES }, (_, start) => start);
    for (const recordBytes of [1, 17, 80, 1040, 2064, 4095, 4096, 4097, 4112, 16400]) {
      expect(countedBlocks(everyByte, recordBytes), `${recordBytes} at random`).toBeCloseTo(
        1 + (recordBytes - 1) / BLOCK_BYTES,
        12,
      );
      expect(blocksPerAppend(recordBytes, BLOCK_BYTES), `${recordBytes} end to end`).toBeCloseTo(
        1 + (recordBytes - gcd(recordBytes, BLOCK_BYTES)) / BLOCK_BYTES,
        12,
      );
    }
  });
});

describe('the record-size experiment', () => {
  it('measures each size at quick size: rates, device bytes as measurements, the floor', async () => {
    const results = await runExperiment(experiment, { dir: newDir(), quick: true, seconds: 0.3 });
    const device = expectShape(results);
    if (device.length === 0) {
      // This machine's temp dir has no readable block device: the degraded path below.
      expect(results.predictions).toEqual([]);
      return;
    }
    expect(metricsOf(results, 'deviceBytesPerMsg').map((metric) => metric.class)).toEqual(
      QUICK_BODIES.map(() => 'measurement'),
    );
    expect(metricsOf(results, 'deviceWriteBytesPerMsg')).toHaveLength(QUICK_BODIES.length);
    const blockBytes = statfsSync(results.environment.dir).bsize;
    expect(results.predictions.map((prediction) => prediction.value)).toEqual(
      QUICK_BODIES.map((bodyBytes) =>
        alignedFloorBytesPerAppend(bodyBytes + HEADER_BYTES, blockBytes),
      ),
    );
    expectContractCharts(results);
  });

  describe.runIf(shmIsTmpfs)('on a tmpfs', () => {
    const dir = mkdtempSync(join(SHM, 'loglab-record-size-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('has no device figure and says so, and still charts the rates', async () => {
      const results = await runExperiment(experiment, { dir, quick: true, seconds: 0.3 });
      expect(expectShape(results)).toEqual([]);
      expect(results.predictions).toEqual([]);
      expect(results.notes.some((note) => note.startsWith('No device figure'))).toBe(true);
      expectContractCharts(results, ['device-bytes']);
    });
  });
});
