/**
 * A segment size and an index interval for `loglab plan --measured`, each with its reason.
 *
 * Index interval: the default (4 KiB, one entry per page) unless the measurements show another
 * is better beyond the noise. A denser interval wins only when its lookup is faster by more than
 * LOOKUP_SLACK *and* the two intervals (ci95, else the samples' range) are apart with at least
 * MIN_DECISIVE_SAMPLES samples each; a sparser one only when its whole interval stays within
 * LOOKUP_SLACK of the default's lookup. Three samples cannot tell 60 µs from 67 µs apart, and a
 * denser index costs memory and disk for ever, so the burden of proof is on leaving the default.
 *
 * Segment size: the largest of 1 MiB … 2 GiB that keeps both costs of a big segment bounded —
 * retention deletes whole segments, so one segment's lifetime is how much longer than the
 * retention data may stay (at most RETENTION_SHARE of it), and a crash before a recovery point
 * re-walks up to a whole segment (at most RECOVERY_BUDGET_NS at the walk rate). The candidates
 * never shrink to the sizes a run happened to measure: beyond them the walk is priced per byte
 * and the open per segment, and the choice says it was extrapolated. Larger segments mean fewer
 * files to open and keep, so the largest that passes wins; above MAX_SEGMENTS for the retention
 * the choice carries a warning with the trade-off.
 */
import { assert } from '../../storage/errors.js';
import {
  formatAboutDuration,
  formatBytes,
  formatDurationNs,
  formatNumber,
  roundSignificant,
} from '../format.js';
import type { PlanCosts } from './plan-costs.js';
import { streamNs } from './plan-costs.js';
import type { IntervalFigure, MeasuredFigures, SegmentSizeFigure } from './plan-measured.js';
import type { PlanInput } from './plan.js';
import {
  FILES_PER_SEGMENT,
  MAX_SEGMENTS,
  PLAN_DEFAULTS,
  segmentLife,
  segmentsKept,
} from './plan.js';
import { MiB } from '../../storage/units.js';

/** A lookup this much slower than another counts as just as fast. */
export const LOOKUP_SLACK = 0.1;
/** Fewer samples than this decide nothing: the default interval stays. */
export const MIN_DECISIVE_SAMPLES = 5;
/** One segment may outlive the retention by at most this share of it. */
export const RETENTION_SHARE = 0.1;
/** A crash may cost at most this much re-walking of one segment when the log opens. */
export const RECOVERY_BUDGET_NS = 1e9;
/** Sizes always considered, whatever was measured: 1 MiB to 2 GiB. */
export const CANDIDATE_SEGMENTS: readonly number[] = Array.from(
  { length: 12 },
  (_, i) => MiB * 2 ** i,
);
/** The run that measures segment sizes 4 MiB … 1 GiB (without --quick). */
export const SEGMENT_SIZE_RUN = 'loglab run segment-size';
const INDEX_DENSITY_RUN = 'loglab run index-density';

export interface Choice {
  readonly bytes: number;
  readonly reason: string;
}

/** The recommended segment with its consequences restated (plan-lines.ts prints them). */
export interface SegmentChoice extends Choice {
  /** Measured at this size, or extrapolated from which measurement, and how to confirm. */
  readonly basis: string;
  /** Segments and files kept for the retention; null without --retention. */
  readonly segments: number | null;
  readonly files: number | null;
  /** Opening a cleanly closed log of `segments` segments; null when not measured. */
  readonly openNs: number | null;
  readonly openNsPerSegment: number | null;
  /** Re-walking one whole segment after a crash, at `recoveryBytesPerSec`. */
  readonly recoveryNs: number;
  readonly recoveryBytesPerSec: number;
  /** Set when `segments` is above MAX_SEGMENTS. */
  readonly warning: string | null;
}

export interface Recommendation {
  readonly indexIntervalBytes: Choice | null;
  readonly segmentBytes: SegmentChoice;
}

const intervalName = (bytes: number) => (bytes === 0 ? 'dense' : formatBytes(bytes));

/** Enough samples and an interval to judge a difference by. */
const decisive = (
  figure: IntervalFigure,
): figure is IntervalFigure & {
  readonly noiseNs: readonly [number, number];
} => figure.noiseNs !== null && figure.sampleCount >= MIN_DECISIVE_SAMPLES;

/** `a` is faster than `b` by more than the slack, and their intervals do not overlap. */
export function fasterBeyondNoise(a: IntervalFigure, b: IntervalFigure): boolean {
  return (
    decisive(a) &&
    decisive(b) &&
    a.noiseNs[1] < b.noiseNs[0] &&
    a.lookupNs * (1 + LOOKUP_SLACK) < b.lookupNs
  );
}

/** `sparser`'s whole interval is within the slack of `anchor`'s lookup. */
function asFastBeyondNoise(sparser: IntervalFigure, anchor: IntervalFigure): boolean {
  return (
    decisive(sparser) &&
    decisive(anchor) &&
    sparser.noiseNs[1] <= anchor.lookupNs * (1 + LOOKUP_SLACK)
  );
}

/** Why `faster` (a lower median) does not beat `anchor`: every reason that applies. */
function withinNoiseBecause(faster: IntervalFigure, anchor: IntervalFigure): string {
  const reasons: string[] = [];
  if (faster.sampleCount < MIN_DECISIVE_SAMPLES || anchor.sampleCount < MIN_DECISIVE_SAMPLES) {
    reasons.push(`fewer than ${MIN_DECISIVE_SAMPLES} samples`);
  }
  if (faster.noiseNs === null || anchor.noiseNs === null) {
    reasons.push('no interval recorded');
  } else if (faster.noiseNs[1] >= anchor.noiseNs[0]) {
    reasons.push('the intervals overlap');
  }
  if (faster.lookupNs * (1 + LOOKUP_SLACK) >= anchor.lookupNs) {
    reasons.push(`less than ${LOOKUP_SLACK * 100}% faster`);
  }
  return reasons.join(', ');
}

function evidence(figure: IntervalFigure): string {
  const noise =
    figure.noiseNs === null
      ? 'no interval'
      : `interval ${formatDurationNs(figure.noiseNs[0])}–${formatDurationNs(figure.noiseNs[1])}`;
  const index =
    figure.indexBytesPerGiB === null
      ? ''
      : `, index ${formatBytes(figure.indexBytesPerGiB)} per GiB of log`;
  return (
    `${intervalName(figure.intervalBytes)}: ${formatDurationNs(figure.lookupNs)} ` +
    `(${noise}, ${formatNumber(figure.sampleCount)} samples${index})`
  );
}

/** The measured interval nearest the default (4 KiB), the sparser on a tie. */
function anchorOf(intervals: readonly IntervalFigure[]): IntervalFigure {
  const target = PLAN_DEFAULTS.indexIntervalBytes;
  const distance = (figure: IntervalFigure) =>
    Math.abs(Math.log2((figure.intervalBytes + 1) / (target + 1)));
  return intervals.reduce((best, figure) =>
    distance(figure) < distance(best) ||
    (distance(figure) === distance(best) && figure.intervalBytes > best.intervalBytes)
      ? figure
      : best,
  );
}

/** Moves from the default only where a measurement shows it is worth it, beyond the noise. */
function chooseInterval(intervals: readonly IntervalFigure[], anchor: IntervalFigure) {
  let chosen = anchor;
  for (;;) {
    const denser = intervals.filter(
      (figure) => figure.intervalBytes < chosen.intervalBytes && fasterBeyondNoise(figure, chosen),
    );
    if (denser.length === 0) break;
    chosen = denser.reduce((a, b) => (b.intervalBytes > a.intervalBytes ? b : a));
  }
  if (chosen !== anchor) return chosen;
  const sparser = intervals.filter(
    (figure) => figure.intervalBytes > anchor.intervalBytes && asFastBeyondNoise(figure, anchor),
  );
  return sparser.reduce((a, b) => (b.intervalBytes > a.intervalBytes ? b : a), anchor);
}

function intervalReason(
  intervals: readonly IntervalFigure[],
  anchor: IntervalFigure,
  chosen: IntervalFigure,
): string {
  const isDefault = anchor.intervalBytes === PLAN_DEFAULTS.indexIntervalBytes;
  const anchorName = isDefault
    ? `the default (${intervalName(anchor.intervalBytes)})`
    : `${intervalName(anchor.intervalBytes)} (nearest the default 4 KiB)`;
  if (chosen.intervalBytes < anchor.intervalBytes) {
    return (
      `Faster than ${anchorName}, beyond the noise (intervals apart, at least ` +
      `${MIN_DECISIVE_SAMPLES} samples each) and by more than ${LOOKUP_SLACK * 100}%: ` +
      `${evidence(chosen)} against ${evidence(anchor)}`
    );
  }
  if (chosen.intervalBytes > anchor.intervalBytes) {
    return (
      `As fast as ${anchorName} with a smaller index: its whole interval is within ` +
      `${LOOKUP_SLACK * 100}% of the lookup of ${anchorName}: ${evidence(chosen)} against ` +
      `${evidence(anchor)}`
    );
  }
  const faster = intervals.filter((figure) => figure.lookupNs < anchor.lookupNs);
  const head =
    `${isDefault ? 'The default, ' : 'Nearest the default 4 KiB, '}` + `${evidence(anchor)}`;
  if (faster.length === 0) return `${head}; no measured interval is faster`;
  const others = faster
    .map((figure) => `${evidence(figure)}: ${withinNoiseBecause(figure, anchor)}`)
    .join('; ');
  return (
    `${head}. The faster medians are within the noise, so no denser index is shown to ` +
    `be worth its size — ${others}. To decide, measure more rounds: \`${INDEX_DENSITY_RUN}\``
  );
}

function recommendInterval(
  intervals: readonly IntervalFigure[],
  basis: string | null,
): Choice | null {
  if (intervals.length === 0) return null;
  const anchor = anchorOf(intervals);
  const chosen = chooseInterval(intervals, anchor);
  return {
    bytes: chosen.intervalBytes,
    reason:
      `Lookups measured with ${basis ?? 'no cache label'}. ` +
      intervalReason(intervals, anchor, chosen),
  };
}

interface SegmentCheck {
  readonly segmentBytes: number;
  readonly lifeSeconds: number;
  readonly recoveryNs: number;
  readonly retentionShare: number | null;
  readonly segments: number | null;
  readonly fits: boolean;
}

function checkSegment(input: PlanInput, costs: PlanCosts, segmentBytes: number): SegmentCheck {
  const bytesPerSec = input.ratePerSec * input.recordBytes;
  const life = segmentLife(segmentBytes, input.recordBytes, bytesPerSec);
  const recoveryNs = streamNs(segmentBytes, costs.recoveryBytesPerSec.value);
  const retention = input.retentionSeconds;
  const retentionShare = retention === null ? null : life.seconds / retention;
  const fits =
    segmentBytes >= input.recordBytes &&
    segmentBytes >= input.indexIntervalBytes &&
    recoveryNs <= RECOVERY_BUDGET_NS &&
    (retentionShare === null || retentionShare <= RETENTION_SHARE);
  return {
    segmentBytes,
    lifeSeconds: life.seconds,
    recoveryNs,
    retentionShare,
    segments: retention === null ? null : segmentsKept(retention * bytesPerSec, segmentBytes),
    fits,
  };
}

/**
 * A share as a percentage at three significant digits: never "0%" for a small share, and never
 * "10%" for 10.1% that breaks a 10% bound.
 */
const percent = (share: number) => `${formatNumber(roundSignificant(share * 100, 3), 8)}%`;

function describeCheck(check: SegmentCheck): string {
  const share =
    check.retentionShare === null ? '' : ` (${percent(check.retentionShare)} of the retention)`;
  return (
    `lasts ${formatAboutDuration(check.lifeSeconds, 'hour')}${share}, a crash re-walks it ` +
    `in ${formatDurationNs(check.recoveryNs)}`
  );
}

function measuredAt(row: SegmentSizeFigure): string {
  const parts = [
    row.openNs === null ? null : `open ${formatDurationNs(row.openNs)}`,
    row.rollNs === null ? null : `roll ${formatDurationNs(row.rollNs)}`,
    row.lookupLatencyNs === null ? null : `lookup ${formatDurationNs(row.lookupLatencyNs)}`,
    row.retentionLagBytes === null ? null : `retention lag ${formatBytes(row.retentionLagBytes)}`,
  ].filter((part) => part !== null);
  return parts.length === 0 ? 'no figures' : parts.join(', ');
}

/** Whether the chosen size was measured, and if not, what it was extrapolated from. */
function segmentBasis(segmentBytes: number, measured: MeasuredFigures): string {
  const rows = measured.segmentSizes;
  const quick = measured.segmentSizesQuick ? ', a --quick run with sizes divided by 64' : '';
  const priced =
    'the recovery walk is priced per byte at the walk rate and the open per ' +
    "segment at the recovery experiment's clean open";
  const row = rows.find((candidate) => candidate.segmentBytes === segmentBytes);
  if (row !== undefined) return `measured at this size${quick}: ${measuredAt(row)}`;
  const largest = rows.at(-1);
  if (largest === undefined) {
    return (
      `no segment-size results, so nothing was measured at this size: ${priced}; ` +
      `measure segment sizes to confirm: \`${SEGMENT_SIZE_RUN}\``
    );
  }
  if (segmentBytes > largest.segmentBytes) {
    return (
      `extrapolated from the ${formatBytes(largest.segmentBytes)} measurement ` +
      `(${measuredAt(largest)}), the largest the segment-size run measured${quick}: ${priced}; ` +
      `measure larger segments to confirm: \`${SEGMENT_SIZE_RUN}\` (4 MiB … 1 GiB)`
    );
  }
  const sizes = rows.map((candidate) => formatBytes(candidate.segmentBytes)).join(', ');
  return `not measured at this size (measured: ${sizes}${quick}): ${priced}`;
}

/** The warning's first sentence, shared with the retention lines of the plan itself. */
export function tooManySegments(segments: number, files: number): string {
  return (
    `WARNING: ${formatNumber(segments)} segments (${formatNumber(files)} files) is more ` +
    `than ${formatNumber(MAX_SEGMENTS)}: too many files to open, check at start-up and keep ` +
    `open; choose larger segments`
  );
}

/** The smallest candidate keeping at most MAX_SEGMENTS for `retainedBytes`, or null. */
export function segmentForCount(retainedBytes: number): number | null {
  return (
    CANDIDATE_SEGMENTS.find((size) => segmentsKept(retainedBytes, size) <= MAX_SEGMENTS) ?? null
  );
}

function segmentWarning(chosen: SegmentCheck, checks: readonly SegmentCheck[]): string | null {
  if (chosen.segments === null || chosen.segments <= MAX_SEGMENTS) return null;
  const files = chosen.segments * FILES_PER_SEGMENT;
  const head = tooManySegments(chosen.segments, files);
  const fewer = checks.find((check) => check.segments !== null && check.segments <= MAX_SEGMENTS);
  if (fewer === undefined) {
    const largest = checks.at(-1)!;
    return (
      `${head}; even ${formatBytes(largest.segmentBytes)} keeps ` +
      `${formatNumber(largest.segments ?? 0)}: shorten the retention or split the log`
    );
  }
  return (
    `${head}: ${formatBytes(fewer.segmentBytes)} keeps ` +
    `${formatNumber(fewer.segments ?? 0)}, at the cost of a ` +
    `${formatDurationNs(fewer.recoveryNs)} ` +
    `recovery walk after a crash`
  );
}

function segmentReason(input: PlanInput, costs: PlanCosts, checks: readonly SegmentCheck[]) {
  const passing = checks.filter((check) => check.fits);
  const chosen = passing.at(-1) ?? checks[0]!;
  const range = `${formatBytes(checks[0]!.segmentBytes)} … ${formatBytes(checks.at(-1)!.segmentBytes)}`;
  const bounds =
    `at most ${RETENTION_SHARE * 100}% of the retention kept beyond it` +
    `${input.retentionSeconds === null ? ' (no --retention given: not checked)' : ''}, ` +
    `recovery walk at most ${formatDurationNs(RECOVERY_BUDGET_NS)} at ` +
    `${formatNumber(costs.recoveryBytesPerSec.value / 1e6)} MB/s`;
  const why =
    passing.length === 0
      ? `no candidate of ${range} meets the bounds (${bounds}); the smallest is the least bad`
      : `the largest candidate of ${range} within the bounds (${bounds})`;
  const larger = checks.find((check) => check.segmentBytes > chosen.segmentBytes);
  const next =
    larger === undefined ? '' : `; ${formatBytes(larger.segmentBytes)} ${describeCheck(larger)}`;
  return { chosen, reason: `${why}: it ${describeCheck(chosen)}${next}` };
}

function recommendSegment(
  input: PlanInput,
  costs: PlanCosts,
  measured: MeasuredFigures,
): SegmentChoice {
  assert(CANDIDATE_SEGMENTS.length > 0, 'segment candidates');
  const checks = CANDIDATE_SEGMENTS.map((size) => checkSegment(input, costs, size));
  const { chosen, reason } = segmentReason(input, costs, checks);
  const perSegment = costs.openNsPerSegment?.value ?? null;
  const segments = chosen.segments;
  return {
    bytes: chosen.segmentBytes,
    reason,
    basis: segmentBasis(chosen.segmentBytes, measured),
    segments,
    files: segments === null ? null : segments * FILES_PER_SEGMENT,
    openNs: segments === null || perSegment === null ? null : segments * perSegment,
    openNsPerSegment: perSegment,
    recoveryNs: chosen.recoveryNs,
    recoveryBytesPerSec: costs.recoveryBytesPerSec.value,
    warning: segmentWarning(chosen, checks),
  };
}

export function recommend(
  input: PlanInput,
  costs: PlanCosts,
  measured: MeasuredFigures,
): Recommendation {
  return {
    indexIntervalBytes: recommendInterval(measured.intervals, measured.intervalBasis),
    segmentBytes: recommendSegment(input, costs, measured),
  };
}
