/**
 * `loglab plan`: segment size, index interval, limits and page-cache coverage for a workload,
 * with the arithmetic shown (lab/plan.ts); `--measured` prices reads with this machine's results
 * instead of the datasheet and recommends a segment size and an index interval.
 */
import type { Command } from 'commander';
import { MAX_POSITION_BYTES } from '../../storage/units.js';
import {
  parseByteSize,
  parseDurationSeconds,
  parseRatePerSec,
} from '../arguments.js';
import { EXOS_X20 } from '../models.js';
import { type PlanCosts, modelCosts } from '../plan-costs.js';
import { planLines } from '../plan-lines.js';
import { measuredFigures, readMeasuredDocuments } from '../plan-measured.js';
import { recommend } from '../plan-recommend.js';
import { PLAN_DEFAULTS, type PlanInput, planFigures } from '../plan.js';

interface PlanOptions {
  readonly rate: string;
  readonly size: string;
  readonly segment?: string;
  readonly indexInterval?: string;
  readonly memory?: string;
  readonly retention?: string;
  readonly consumerLag?: string;
  readonly lookupPosition?: string;
  readonly measured: string[];
  readonly json?: boolean;
}

/** A century: longer retentions and lags are typing mistakes. */
const MAX_DURATION_SECONDS = 100 * 365 * 86_400;

export function planInput(options: PlanOptions): PlanInput {
  const optionalSize = (name: string, raw: string | undefined, fallback: number, min: number) =>
    raw === undefined ? fallback : parseByteSize(name, raw, min);
  const optionalDuration = (name: string, raw: string | undefined, min: number) =>
    raw === undefined ? null : parseDurationSeconds(name, raw, min, MAX_DURATION_SECONDS);
  return {
    ratePerSec: parseRatePerSec('--rate', options.rate),
    recordBytes: parseByteSize('--size', options.size, 1, MAX_POSITION_BYTES),
    segmentBytes: optionalSize('--segment', options.segment, PLAN_DEFAULTS.segmentBytes, 1),
    indexIntervalBytes: optionalSize(
      '--index-interval',
      options.indexInterval,
      PLAN_DEFAULTS.indexIntervalBytes,
      0,
    ),
    memoryBytes: optionalSize('--memory', options.memory, PLAN_DEFAULTS.memoryBytes, 1),
    retentionSeconds: optionalDuration('--retention', options.retention, 1),
    consumerLagSeconds: optionalDuration('--consumer-lag', options.consumerLag, 0),
    lookupPositionBytes: options.lookupPosition === undefined
      ? null
      : parseByteSize('--lookup-position', options.lookupPosition, 0),
  };
}

function planCommand(options: PlanOptions): void {
  const input = planInput(options);
  const figures = planFigures(input);
  const model = modelCosts(EXOS_X20, figures.index.stepForwardMaxBytes);
  let costs: PlanCosts = model;
  let measured = null;
  if (options.measured.length > 0) {
    const docs = readMeasuredDocuments(options.measured);
    const found = measuredFigures(docs, input.recordBytes, input.indexIntervalBytes);
    costs = { ...model, ...found.costs };
    measured = { figures: found, recommendation: recommend(input, costs, found) };
  }
  if (options.json === true) {
    process.stdout.write(`${JSON.stringify({ figures, costs, measured }, null, 2)}\n`);
    return;
  }
  process.stdout.write(`${planLines(figures, costs, measured).join('\n')}\n`);
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerPlanCommand(program: Command): void {
  program
    .command('plan')
    .description('size segments and index intervals for a workload, with the arithmetic shown')
    .requiredOption('--rate <rate>', 'messages a second: 5/s, 300/min, 18000/h')
    .requiredOption('--size <size>', 'one record on disk, 16-byte header included: 1KiB, 53B')
    .option('--segment <size>', 'segment size (default 64MiB; below 4GiB)')
    .option('--index-interval <size>', 'bytes between index entries, 0 = dense (default 4KiB)')
    .option('--memory <size>', 'page cache free for this log (default 1GiB)')
    .option('--retention <duration>', 'how long messages are kept: 3d, 12h')
    .option('--consumer-lag <duration>', 'how far behind a consumer reads: 30s, 2h')
    .option('--lookup-position <size>', 'price a lookup at this position (default: a segment end)')
    .option('--measured <results>', "this machine's results file or dir (repeatable)", collect, [])
    .option('--json', 'print the figures as JSON')
    .action((options: PlanOptions) => planCommand(options));
}
