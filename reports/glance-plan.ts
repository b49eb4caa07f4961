/**
 * What `loglab plan --measured` would recommend from the report's own results, for one stated
 * workload, in a sentence: the same functions the plan command calls (lab/plan/*.ts) on the
 * documents already loaded. Nothing is measured here.
 */
import { formatAboutDuration, formatBytes, formatDurationNs } from '../lab/format.js';
import { EXOS_X20 } from '../lab/models/models.js';
import { modelCosts } from '../lab/plan/plan-costs.js';
import { MEASURED_EXPERIMENTS, measuredFigures } from '../lab/plan/plan-measured.js';
import { recommend, type Recommendation } from '../lab/plan/plan-recommend.js';
import { PLAN_DEFAULTS, type PlanInput, planFigures } from '../lab/plan/plan.js';
import type { Run } from './runs.js';

const SECONDS_PER_DAY = 86_400;

/**
 * The course's workload: 1 KiB messages at 5 a second (the segment-size experiment's table), kept
 * Kafka's default 7 days.
 */
export const GLANCE_WORKLOAD: PlanInput = {
  ratePerSec: 5,
  recordBytes: 1024,
  segmentBytes: PLAN_DEFAULTS.segmentBytes,
  indexIntervalBytes: PLAN_DEFAULTS.indexIntervalBytes,
  memoryBytes: PLAN_DEFAULTS.memoryBytes,
  retentionSeconds: 7 * SECONDS_PER_DAY,
  consumerLagSeconds: null,
  lookupPositionBytes: null,
};

const WORKLOAD_TEXT = '1 KiB messages at 5 a second, kept 7 days';

/** The plan's recommendation from the sizing experiments of the first machine's runs. */
export function glanceRecommendation(runs: readonly Run[]): Recommendation | null {
  const machine = runs[0]?.machineKey;
  const docs = runs
    .filter(
      (run) =>
        run.machineKey === machine && MEASURED_EXPERIMENTS.includes(run.results.experiment.id),
    )
    .map((run) => ({ file: run.source, results: run.results }));
  if (docs.length === 0) return null;
  const input = GLANCE_WORKLOAD;
  const found = measuredFigures(docs, input.recordBytes, input.indexIntervalBytes);
  const model = modelCosts(EXOS_X20, planFigures(input).index.stepForwardMaxBytes);
  return recommend(input, { ...model, ...found.costs }, found);
}

function intervalText(recommendation: Recommendation): string {
  const interval = recommendation.indexIntervalBytes;
  if (interval === null) return 'no index interval (no index-density results)';
  const name =
    interval.bytes === 0 ? 'a dense index' : `a ${formatBytes(interval.bytes)} index interval`;
  if (interval.bytes === PLAN_DEFAULTS.indexIntervalBytes) {
    return `${name} (the default: no denser one was faster beyond the noise)`;
  }
  return interval.bytes < PLAN_DEFAULTS.indexIntervalBytes
    ? `${name} (faster than 4 KiB beyond the noise)`
    : `${name} (as fast as 4 KiB, with a smaller index)`;
}

export function planSentence(recommendation: Recommendation | null): string {
  if (recommendation === null) {
    return (
      `No sizing results here (${MEASURED_EXPERIMENTS.join(', ')}), so there is nothing ` +
      'to recommend from; run them and `loglab plan --measured` sizes a log from them.'
    );
  }
  const segment = recommendation.segmentBytes;
  const lifeSeconds = segment.bytes / (GLANCE_WORKLOAD.ratePerSec * GLANCE_WORKLOAD.recordBytes);
  const extrapolated = segment.basis.startsWith('extrapolated')
    ? ', extrapolated beyond the ' + 'sizes measured'
    : '';
  return (
    `For ${WORKLOAD_TEXT}, \`loglab plan --measured\` on these results recommends ` +
    `${formatBytes(segment.bytes)} segments (each lasts ${formatAboutDuration(lifeSeconds)}; ` +
    `a crash re-walks one in ${formatDurationNs(segment.recoveryNs)}${extrapolated}) and ` +
    `${intervalText(recommendation)}.`
  );
}
