/**
 * Small steps from what the runner measured to the figures docs/report-contract.md names: means
 * of per-lookup counts, pages a byte range spans, durations for notes. (A runner metric goes out
 * under a contract's name through its experiment's catalog: lab/metric-catalog.ts `adopt`.)
 */
import { PAGE_BYTES, formatFigure } from '../../lab/index.js';
import { assert } from '../../storage/testing/index.js';

export function mean(values: readonly number[]): number {
  assert(values.length > 0, 'a mean needs values');
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Distinct 4 KiB pages the bytes [startBytes, endBytes) lie in: what a cold read must fetch. */
export function pagesSpanned(startBytes: number, endBytes: number): number {
  assert(startBytes >= 0, `start must be >= 0: ${startBytes}`);
  assert(endBytes > startBytes, `an empty range spans no page: ${startBytes}..${endBytes}`);
  return Math.floor((endBytes - 1) / PAGE_BYTES) - Math.floor(startBytes / PAGE_BYTES) + 1;
}

/** A duration for notes and headlines: `850 ns`, `3.2 µs`, `84 ms`, `1.5 s`. */
export function formatNs(ns: number): string {
  const abs = Math.abs(ns);
  if (abs < 1e3) return `${formatFigure(ns)} ns`;
  if (abs < 1e6) return `${formatFigure(ns / 1e3)} µs`;
  if (abs < 1e9) return `${formatFigure(ns / 1e6)} ms`;
  return `${formatFigure(ns / 1e9)} s`;
}
