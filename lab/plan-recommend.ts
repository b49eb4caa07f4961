/**
 * A segment size and an index interval for `loglab plan --measured`, each with its reason.
 *
 * Index interval: the sparsest interval whose measured lookup is within LOOKUP_SLACK of the
 * fastest one — a denser index costs memory and disk and buys nothing once lookups read the same
 * pages (the seed's argument for one entry per 4 KiB page).
 *
 * Segment size: the largest candidate that keeps both costs of a big segment bounded — retention
 * deletes whole segments, so one segment's lifetime is how much longer than the retention data
 * may stay (at most RETENTION_SHARE of it), and a crash before a recovery point re-walks up to a
 * whole segment (at most RECOVERY_BUDGET_NS at the measured walk rate). Larger segments mean
 * fewer files to open and fewer rolls, which is why the largest that passes wins.
 */
import { assert } from '../storage/errors.js';
import { formatAboutDuration, formatBytes, formatDurationNs, formatNumber } from './format.js';
import type { PlanCosts } from './plan-costs.js';
import { streamNs } from './plan-costs.js';
import type { IntervalFigure, MeasuredFigures, SegmentSizeFigure } from './plan-measured.js';
import type { PlanInput } from './plan.js';
import { segmentLife } from './plan.js';

/** A lookup this much slower than the fastest measured counts as just as fast. */
export const LOOKUP_SLACK = 0.1;
/** One segment may outlive the retention by at most this share of it. */
export const RETENTION_SHARE = 0.1;
/** A crash may cost at most this much re-walking of one segment when the log opens. */
export const RECOVERY_BUDGET_NS = 1e9;
/** Sizes tried when the segment-size experiment is not among the results: 1 MiB to 2 GiB. */
const CANDIDATE_SEGMENTS = Array.from({ length: 12 }, (_, i) => 1024 ** 2 * 2 ** i);

export interface Choice {
  readonly bytes: number;
  readonly reason: string;
}

export interface Recommendation {
  readonly indexIntervalBytes: Choice | null;
  readonly segmentBytes: Choice;
}

const intervalName = (bytes: number) => (bytes === 0 ? 'dense' : formatBytes(bytes));

function recommendInterval(
  intervals: readonly IntervalFigure[],
  basis: string | null,
): Choice | null {
  if (intervals.length === 0) return null;
  const fastest = intervals.reduce((best, figure) =>
    (figure.lookupNs < best.lookupNs ? figure : best));
  const limitNs = fastest.lookupNs * (1 + LOOKUP_SLACK);
  const chosen = intervals
    .filter((figure) => figure.lookupNs <= limitNs)
    .reduce((best, figure) => (figure.intervalBytes > best.intervalBytes ? figure : best));
  const size = (figure: IntervalFigure) => figure.indexBytesPerGiB === null
    ? ''
    : `, index ${formatBytes(figure.indexBytesPerGiB)} per GiB of log`;
  const sparser = intervals.find((figure) => figure.intervalBytes > chosen.intervalBytes);
  const next = sparser === undefined
    ? 'it is the sparsest measured'
    : `${intervalName(sparser.intervalBytes)} is slower: ${formatDurationNs(sparser.lookupNs)}`;
  return {
    bytes: chosen.intervalBytes,
    reason: `lookup ${formatDurationNs(chosen.lookupNs)}${size(chosen)}, within ` +
      `${LOOKUP_SLACK * 100}% of the fastest (${intervalName(fastest.intervalBytes)}: ` +
      `${formatDurationNs(fastest.lookupNs)}${size(fastest)}); ${next} (${basis ?? 'measured'})`,
  };
}

interface SegmentCheck {
  readonly segmentBytes: number;
  readonly lifeSeconds: number;
  readonly recoveryNs: number;
  readonly retentionShare: number | null;
  readonly fits: boolean;
}

function checkSegment(input: PlanInput, costs: PlanCosts, segmentBytes: number): SegmentCheck {
  const life = segmentLife(segmentBytes, input.recordBytes, input.ratePerSec * input.recordBytes);
  const recoveryNs = streamNs(segmentBytes, costs.recoveryBytesPerSec.value);
  const retentionShare = input.retentionSeconds === null
    ? null
    : life.seconds / input.retentionSeconds;
  const fits = segmentBytes >= input.recordBytes &&
    segmentBytes >= input.indexIntervalBytes &&
    recoveryNs <= RECOVERY_BUDGET_NS &&
    (retentionShare === null || retentionShare <= RETENTION_SHARE);
  return { segmentBytes, lifeSeconds: life.seconds, recoveryNs, retentionShare, fits };
}

function describeCheck(check: SegmentCheck): string {
  const share = check.retentionShare === null
    ? ''
    : ` (${formatNumber(check.retentionShare * 100, 1)}% of the retention)`;
  return `lasts ${formatAboutDuration(check.lifeSeconds, 'hour')}${share}, a crash re-walks it ` +
    `in ${formatDurationNs(check.recoveryNs)}`;
}

function measuredAt(row: SegmentSizeFigure | undefined): string {
  if (row === undefined) return '';
  const parts = [
    row.openNs === null ? null : `open ${formatDurationNs(row.openNs)}`,
    row.rollNs === null ? null : `roll ${formatDurationNs(row.rollNs)}`,
    row.lookupLatencyNs === null ? null : `lookup ${formatDurationNs(row.lookupLatencyNs)}`,
    row.retentionLagBytes === null ? null : `retention lag ${formatBytes(row.retentionLagBytes)}`,
  ].filter((part) => part !== null);
  return parts.length === 0 ? '' : `; measured at this size: ${parts.join(', ')}`;
}

function recommendSegment(input: PlanInput, costs: PlanCosts, measured: MeasuredFigures): Choice {
  const sizes = measured.segmentSizes.length > 0
    ? measured.segmentSizes.map((row) => row.segmentBytes)
    : CANDIDATE_SEGMENTS;
  assert(sizes.length > 0, 'segment candidates');
  const checks = sizes.map((size) => checkSegment(input, costs, size));
  const passing = checks.filter((check) => check.fits);
  const chosen = passing.at(-1) ?? checks[0]!;
  const bounds = `at most ${RETENTION_SHARE * 100}% of the retention kept beyond it` +
    `${input.retentionSeconds === null ? ' (no --retention given: not checked)' : ''}, ` +
    `recovery walk at most ${formatDurationNs(RECOVERY_BUDGET_NS)} at ` +
    `${formatNumber(costs.recoveryBytesPerSec.value / 1e6)} MB/s`;
  const larger = checks.find((check) => check.segmentBytes > chosen.segmentBytes);
  const why = passing.length === 0
    ? `no candidate meets the bounds (${bounds}); the smallest is the least bad`
    : `the largest candidate within the bounds (${bounds})`;
  const next = larger === undefined
    ? ''
    : `; ${formatBytes(larger.segmentBytes)} ${describeCheck(larger)}`;
  const row = measured.segmentSizes.find((size) => size.segmentBytes === chosen.segmentBytes);
  return {
    bytes: chosen.segmentBytes,
    reason: `${why}: it ${describeCheck(chosen)}${next}${measuredAt(row)}`,
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
