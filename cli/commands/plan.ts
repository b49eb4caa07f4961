/**
 * `loglab plan`: segment size, index interval, limits and page-cache coverage for a workload,
 * with the arithmetic shown (lab/plan/plan.ts); `--measured` prices reads with this machine's
 * results instead of the datasheet and recommends a segment size and an index interval;
 * `--from-segments DIR` takes the workload from a Kafka partition directory or a loglab log
 * (lab/plan/plan-from-segments.ts), each figure saying whether the data, a flag or a default
 * gave it.
 */
import type { Command } from 'commander';
import { MAX_POSITION_BYTES } from '../../storage/units.js';
import { parseByteSize, parseDurationSeconds, parseRatePerSec } from '../arguments.js';
import { EXOS_X20 } from '../../lab/models/models.js';
import { type PlanCosts, modelCosts } from '../../lab/plan/plan-costs.js';
import { planLines } from '../../lab/plan/plan-lines.js';
import { measuredFigures, readMeasuredDocuments } from '../../lab/plan/plan-measured.js';
import { recommend } from '../../lab/plan/plan-recommend.js';
import { PLAN_DEFAULTS, type PlanInput, planFigures } from '../../lab/plan/plan.js';
import {
  type GivenFigures,
  inputFromSegments,
  segmentStatsLines,
} from '../../lab/plan/plan-from-segments.js';
import { LabError } from '../../lab/errors.js';
import { NodeFileIO } from '../../storage/io/node-file-io.js';
import { type SegmentStats, readSegmentStats } from '../../storage/dump/segment-stats.js';

interface PlanOptions {
  readonly rate?: string;
  readonly size?: string;
  readonly fromSegments?: string;
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

/** The figures given as flags, parsed; null where a flag was not given. */
function givenFigures(options: PlanOptions): GivenFigures {
  const size = (name: string, raw: string | undefined, min: number, max?: number) =>
    raw === undefined ? null : parseByteSize(name, raw, min, max);
  const duration = (name: string, raw: string | undefined, min: number) =>
    raw === undefined ? null : parseDurationSeconds(name, raw, min, MAX_DURATION_SECONDS);
  return {
    ratePerSec: options.rate === undefined ? null : parseRatePerSec('--rate', options.rate),
    recordBytes: size('--size', options.size, 1, MAX_POSITION_BYTES),
    segmentBytes: size('--segment', options.segment, 1),
    indexIntervalBytes: size('--index-interval', options.indexInterval, 0),
    memoryBytes: size('--memory', options.memory, 1),
    retentionSeconds: duration('--retention', options.retention, 1),
    consumerLagSeconds: duration('--consumer-lag', options.consumerLag, 0),
    lookupPositionBytes: size('--lookup-position', options.lookupPosition, 0),
  };
}

function required<T>(name: string, value: T | null): T {
  if (value !== null) return value;
  throw new LabError(
    'BAD_ARGUMENT',
    `required option '${name}' not specified; give it, or ` +
      'take the workload from a log with --from-segments DIR',
  );
}

export function planInput(options: PlanOptions): PlanInput {
  const given = givenFigures(options);
  return {
    ratePerSec: required('--rate <rate>', given.ratePerSec),
    recordBytes: required('--size <size>', given.recordBytes),
    segmentBytes: given.segmentBytes ?? PLAN_DEFAULTS.segmentBytes,
    indexIntervalBytes: given.indexIntervalBytes ?? PLAN_DEFAULTS.indexIntervalBytes,
    memoryBytes: given.memoryBytes ?? PLAN_DEFAULTS.memoryBytes,
    retentionSeconds: given.retentionSeconds,
    consumerLagSeconds: given.consumerLagSeconds,
    lookupPositionBytes: given.lookupPositionBytes,
  };
}

/** The workload of `--from-segments DIR`, and the lines saying where each figure came from. */
function fromSegments(
  dir: string,
  options: PlanOptions,
): { input: PlanInput; stats: SegmentStats; lines: string[] } {
  const given = givenFigures(options);
  const stats = readSegmentStats(new NodeFileIO(), dir);
  const sourced = inputFromSegments(stats, given);
  return { input: sourced.input, stats, lines: segmentStatsLines(stats, sourced) };
}

function planCommand(options: PlanOptions): void {
  const segments =
    options.fromSegments === undefined ? null : fromSegments(options.fromSegments, options);
  const input = segments?.input ?? planInput(options);
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
    const fromData = segments === null ? {} : { segments: segments.stats };
    process.stdout.write(`${JSON.stringify({ figures, costs, measured, ...fromData }, null, 2)}\n`);
    return;
  }
  const lines = [...(segments?.lines ?? []), ...planLines(figures, costs, measured)];
  process.stdout.write(`${lines.join('\n')}\n`);
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerPlanCommand(program: Command): void {
  program
    .command('plan')
    .description('size segments and index intervals for a workload, with the arithmetic shown')
    .option('--rate <rate>', 'messages a second: 5/s, 300/min, 18000/h')
    .option('--size <size>', 'one record on disk, 16-byte header included: 1KiB, 53B')
    .option(
      '--from-segments <dir>',
      'take rate, record size and index interval from a Kafka ' +
        'partition directory or a loglab log (flags given win)',
    )
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
