/**
 * What the runner's own clock costs. Every per-operation latency measureSync records includes the
 * two process.hrtime.bigint() calls around the operation and the histogram write; timing an empty
 * operation the same way measures that floor, so a reader can tell a 2 µs append from a 2 µs
 * artefact. Measured once per process (a few milliseconds), recorded in every results document.
 */
import { Measurement } from './measurement.js';
import { measureSync, warmUpSync } from './runner.js';

const CALIBRATION_OPS = 20_000;
let measuredNs: number | null = null;

/** Median latency measureSync records for an operation that does nothing, in ns. */
export function timerOverheadNs(): number {
  if (measuredNs !== null) return measuredNs;
  const measurement = new Measurement('timer-overhead', 'sync');
  const nothing = (index: number): number => index;
  warmUpSync(measurement, nothing, { ops: CALIBRATION_OPS });
  const repetition = measureSync(measurement, nothing, { ops: CALIBRATION_OPS });
  measuredNs = repetition.latencyNsP50;
  return measuredNs;
}
