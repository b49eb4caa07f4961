import { describe, expect, it } from 'vitest';
import {
  EXOS_X20,
  SAMSUNG_990_PRO,
  halfTurnMs,
  hddQueuedRandomWriteMs,
  rotationMs,
} from './models.js';
import { SeededRandom } from '../../storage/sim/prng.js';
import { predictionSchema } from '../results.js';
import { estimatePrediction, estimateTrace, estimatedRatePerSec } from './trace-estimate.js';
import { TRACE_DIR_SYNC, TRACE_SYNC, TRACE_WRITE, WriteTrace } from './trace-io.js';
import { KiB } from '../../storage/units.js';

const SLOT_FILE_BYTES = 1024 ** 3;

/** Design A: each message a slot write and a delete write at random slots, each synced. */
function slotTrace(messages: number, sync: boolean): WriteTrace {
  const trace = new WriteTrace();
  const file = trace.fileId('/slots');
  const random = new SeededRandom(1);
  for (let i = 0; i < messages * 2; i++) {
    trace.push(TRACE_WRITE, file, random.nextInt(SLOT_FILE_BYTES / KiB) * KiB, KiB);
    if (sync) trace.push(TRACE_SYNC, file, 0, 0);
  }
  return trace;
}

/** Design B: 1 KiB appends, synced every `syncEvery` messages (0: never). */
function logTrace(messages: number, syncEvery: number): WriteTrace {
  const trace = new WriteTrace();
  const file = trace.fileId('/log');
  for (let i = 0; i < messages; i++) {
    trace.push(TRACE_WRITE, file, i * KiB, KiB);
    if (syncEvery > 0 && (i + 1) % syncEvery === 0) trace.push(TRACE_SYNC, file, 0, 0);
  }
  return trace;
}

describe('estimateTrace on the hard-disk model', () => {
  it('prices synced slot writes at a seek and half a turn each: about 50 messages a second', () => {
    const estimate = estimateTrace(slotTrace(200, true), EXOS_X20);
    expect(estimate.writes).toBe(400);
    expect(estimate.syncs).toBe(400);
    expect(Math.round(estimatedRatePerSec(estimate, 200))).toBe(50);
  });

  it('prices unsynced appends at the transfer rate: about 278,000 messages a second', () => {
    const estimate = estimateTrace(logTrace(1_000_000, 0), EXOS_X20);
    expect(estimate.sequentialWrites).toBe(999_999);
    expect(estimate.flushedExtents).toBe(1);
    expect(estimatedRatePerSec(estimate, 1_000_000) / (285e6 / KiB)).toBeGreaterThan(0.99);
    expect(estimatedRatePerSec(estimate, 1_000_000) / (285e6 / KiB)).toBeLessThanOrEqual(1);
  });

  it('charges a synced append a full turn, since its sector has just passed under the head', () => {
    const estimate = estimateTrace(logTrace(101, 1), EXOS_X20);
    const expectedMs = 10 + 100 * rotationMs(EXOS_X20) + (101 * 4 * KiB) / 285e3;
    expect(estimate.totalMs).toBeCloseTo(expectedMs, 6);
    expect(estimate.deviceBytes).toBe(101 * 4 * KiB);
  });

  it('lets the drive reorder the scattered pages of one writeback', () => {
    const estimate = estimateTrace(slotTrace(50, false), EXOS_X20);
    const extents = estimate.flushedExtents;
    expect(extents).toBeGreaterThan(90);
    const queuedMs = hddQueuedRandomWriteMs(EXOS_X20);
    expect(estimate.positioningMs).toBeCloseTo(10 + (extents - 1) * queuedMs, 6);
  });

  it('costs a hop within a track half a turn', () => {
    const trace = new WriteTrace();
    const file = trace.fileId('/f');
    trace.push(TRACE_WRITE, file, 0, 4 * KiB);
    trace.push(TRACE_SYNC, file, 0, 0);
    trace.push(TRACE_WRITE, file, 64 * KiB, 4 * KiB);
    trace.push(TRACE_SYNC, file, 0, 0);
    expect(estimateTrace(trace, EXOS_X20).positioningMs).toBeCloseTo(10 + halfTurnMs(EXOS_X20), 6);
  });

  it('coalesces rewrites of one page before a sync and counts a directory sync as a page', () => {
    const trace = new WriteTrace();
    const file = trace.fileId('/f');
    for (let i = 0; i < 10; i++) trace.push(TRACE_WRITE, file, 2 * KiB, KiB);
    trace.push(TRACE_SYNC, file, 0, 0);
    trace.push(TRACE_DIR_SYNC, trace.fileId('/'), 0, 0);
    const estimate = estimateTrace(trace, EXOS_X20);
    expect(estimate).toMatchObject({
      writes: 10,
      sequentialWrites: 0,
      syncs: 1,
      dirSyncs: 1,
      dataBytes: 10 * KiB,
    });
    expect(estimate.deviceBytes).toBe(8 * KiB);
  });
});

describe('estimateTrace on the SSD model', () => {
  it('prices synced random page writes at the QD1 figure: 40,000 messages a second', () => {
    const estimate = estimateTrace(slotTrace(500, true), SAMSUNG_990_PRO);
    expect(Math.round(estimatedRatePerSec(estimate, 500))).toBe(40_000);
    expect(estimate.model).toBe('ssd:990-pro');
  });

  it('writes about 8 KiB per message for design A and about 1 KiB for design B', () => {
    expect(estimateTrace(slotTrace(500, true), SAMSUNG_990_PRO).deviceBytes / 500).toBe(8 * KiB);
    expect(estimateTrace(logTrace(4000, 0), SAMSUNG_990_PRO).deviceBytes / 4000).toBe(KiB);
  });

  it('classifies writes per file, so two interleaved appends stay sequential', () => {
    const trace = new WriteTrace();
    const log = trace.fileId('/log');
    const index = trace.fileId('/index');
    for (let i = 0; i < 10; i++) {
      trace.push(TRACE_WRITE, log, i * KiB, KiB);
      trace.push(TRACE_WRITE, index, i * 8, 8);
    }
    expect(estimateTrace(trace, SAMSUNG_990_PRO)).toMatchObject({
      writes: 20,
      sequentialWrites: 18,
      randomWrites: 2,
    });
  });

  it('becomes a results prediction named for the metric it predicts', () => {
    const estimate = estimateTrace(slotTrace(500, true), SAMSUNG_990_PRO);
    const labels = { design: 'A' };
    const prediction = estimatePrediction('puzzle.A.always.ratePerSec', estimate, 500, labels);
    expect(predictionSchema.parse(prediction)).toEqual(prediction);
    expect(prediction).toMatchObject({ model: 'ssd:990-pro', unit: 'ops/s', labels });
    expect(Math.round(prediction.value)).toBe(40_000);
    expect(prediction.basis).toMatch(/1000 writes \(1000 random\), 1000 syncs/);
  });

  it('refuses a rate for a trace that wrote nothing', () => {
    const empty = estimateTrace(new WriteTrace(), SAMSUNG_990_PRO);
    expect(() => estimatedRatePerSec(empty, 1)).toThrow(/wrote nothing/);
  });
});
