/**
 * The one wall clock of the storage core, for stored times: time-index timestamps and the due
 * times of delayed messages, which must mean the same after a restart. It is the wall time at
 * process start plus a monotonic clock since then, so it never steps backwards while the process
 * runs (an NTP step would otherwise reorder the time index). Nothing here measures a duration;
 * the lab times with process.hrtime.bigint().
 */
import { performance } from 'node:perf_hooks';

export function wallClockMs(): number {
  return Math.floor(performance.timeOrigin + performance.now());
}
