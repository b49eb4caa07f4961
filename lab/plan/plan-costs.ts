/**
 * What the plan's reads cost in time: a scan, a lookup whose pages are not cached, and the
 * recovery walk after a crash. By default they come from the course's disk model (the Exos X20
 * datasheet, models.ts); `loglab plan --measured` replaces each figure it finds in this
 * machine's results (plan-measured.ts).
 */
import { assert } from '../../storage/errors.js';
import { formatNumber } from '../format.js';
import { type HddModel, halfTurnMs, transferMs } from '../models/models.js';

const NS_PER_MS = 1e6;
const NS_PER_SECOND = 1e9;

/** A figure and where it came from, printed beside it. */
export interface CostFigure {
  readonly value: number;
  readonly source: string;
}

export interface PlanCosts {
  /** Sequential read rate of a scan without the index. */
  readonly scanBytesPerSec: CostFigure;
  /** One lookup whose pages are not in the page cache. */
  readonly coldLookupNs: CostFigure;
  /** How fast opening the log walks records after a crash. */
  readonly recoveryBytesPerSec: CostFigure;
  /** Opening a cleanly closed log, per segment; measured only. */
  readonly openNsPerSegment: CostFigure | null;
}

/**
 * The datasheet's figures: a cold lookup is one random read (seek, half a turn, then the bytes
 * stepped at the sequential rate); a scan and a recovery walk stream at the sequential rate.
 */
export function modelCosts(model: HddModel, stepForwardMaxBytes: number): PlanCosts {
  assert(stepForwardMaxBytes > 0, `step forward must be positive: ${stepForwardMaxBytes}`);
  const source = `datasheet: ${model.name}`;
  const readMs = model.averageSeekMs + halfTurnMs(model) + transferMs(model, stepForwardMaxBytes);
  const rate = `${formatNumber(model.sustainedBytesPerSec / 1e6)} MB/s`;
  const sustained = { value: model.sustainedBytesPerSec, source: `${source}, ${rate} sustained` };
  return {
    scanBytesPerSec: sustained,
    coldLookupNs: {
      value: readMs * NS_PER_MS,
      source:
        `${source}: seek ${model.averageSeekMs.toFixed(2)} ms + half a turn ` +
        `${halfTurnMs(model).toFixed(2)} ms + ${formatNumber(stepForwardMaxBytes)} B at ${rate}`,
    },
    recoveryBytesPerSec: sustained,
    openNsPerSegment: null,
  };
}

/** Time to stream `bytes` at `bytesPerSec`, in ns. */
export function streamNs(bytes: number, bytesPerSec: number): number {
  assert(bytesPerSec > 0, `rate must be positive: ${bytesPerSec}`);
  return (bytes / bytesPerSec) * NS_PER_SECOND;
}
