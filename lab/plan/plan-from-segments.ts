/**
 * `loglab plan --from-segments DIR`: the workload read from a Kafka partition directory or a
 * loglab log (storage/dump/segment-stats.ts) instead of typed in. Each plan input says where it came
 * from: the data, a flag (a flag always wins), or the plan's default.
 *
 *   rate            flag --rate, else records over the span of their timestamps
 *   record size     flag --size, else bytes on disk per record (batch headers and compression
 *                   included: what a segment fills with), raised to the 16-byte minimum the
 *                   plan's record arithmetic takes
 *   index interval  flag, else the interval the index entries imply (the default when it fits
 *                   them, else the roundest size that does), else the default
 *   segment, memory, retention, consumer lag, lookup position   flags or defaults, as without
 */
import type { SegmentStats, SizeSummary } from '../../storage/dump/segment-stats.js';
import { RECORD_HEADER_BYTES } from '../../storage/record/record.js';
import { LabError } from '../errors.js';
import { formatBytes, formatFigure, formatNumber } from '../format.js';
import { PLAN_DEFAULTS, type PlanInput } from './plan.js';

export type FigureSource = 'data' | 'flag' | 'default';

export type SourcedFigure = 'rate' | 'size' | 'indexInterval' | 'segment' | 'memory';

export interface SourcedInput {
  readonly input: PlanInput;
  readonly sources: Readonly<Record<SourcedFigure, FigureSource>>;
  /** Why a figure from the data was adjusted (the 16-byte floor), or null. */
  readonly note: string | null;
}

/** The flags as planInput parsed them; null where the flag was not given. */
export interface GivenFigures {
  readonly ratePerSec: number | null;
  readonly recordBytes: number | null;
  readonly segmentBytes: number | null;
  readonly indexIntervalBytes: number | null;
  readonly memoryBytes: number | null;
  readonly retentionSeconds: number | null;
  readonly consumerLagSeconds: number | null;
  readonly lookupPositionBytes: number | null;
}

export function inputFromSegments(stats: SegmentStats, given: GivenFigures): SourcedInput {
  const rate = given.ratePerSec ?? stats.time?.ratePerSec ?? null;
  if (rate === null) {
    throw new LabError(
      'BAD_ARGUMENT',
      `--rate: the records in ${stats.dir} carry no timestamps ` +
        'that span any time, so they give no rate; pass --rate (e.g. --rate 5000/s)',
    );
  }
  const storedBytes = Math.ceil(stats.storedBytesPerRecord);
  const dataBytes = Math.max(RECORD_HEADER_BYTES, storedBytes);
  const inferred = intervalFromData(stats);
  const source = (flag: number | null, fromData: boolean): FigureSource =>
    flag !== null ? 'flag' : fromData ? 'data' : 'default';
  const input: PlanInput = {
    ratePerSec: rate,
    recordBytes: given.recordBytes ?? dataBytes,
    segmentBytes: given.segmentBytes ?? PLAN_DEFAULTS.segmentBytes,
    indexIntervalBytes: given.indexIntervalBytes ?? inferred ?? PLAN_DEFAULTS.indexIntervalBytes,
    memoryBytes: given.memoryBytes ?? PLAN_DEFAULTS.memoryBytes,
    retentionSeconds: given.retentionSeconds,
    consumerLagSeconds: given.consumerLagSeconds,
    lookupPositionBytes: given.lookupPositionBytes,
  };
  const note =
    given.recordBytes === null && storedBytes < RECORD_HEADER_BYTES
      ? `a record takes ${storedBytes} B on disk here, below the ${RECORD_HEADER_BYTES}-byte ` +
        "minimum of the plan's record arithmetic; planned at that minimum"
      : null;
  return {
    input,
    sources: {
      rate: source(given.ratePerSec, true),
      size: source(given.recordBytes, true),
      indexInterval: source(given.indexIntervalBytes, inferred !== null),
      segment: source(given.segmentBytes, false),
      memory: source(given.memoryBytes, false),
    },
    note,
  };
}

/** The default when the entries allow it, else the roundest size that fits them. */
export function intervalFromData(stats: SegmentStats): number | null {
  const bounds = stats.indexInterval;
  if (bounds === null) return null;
  const { minBytes, maxBytes } = bounds;
  const fits = (value: number) => value >= minBytes && value <= maxBytes;
  if (fits(PLAN_DEFAULTS.indexIntervalBytes)) return PLAN_DEFAULTS.indexIntervalBytes;
  for (let power = 2 ** 30; power >= 1; power /= 2) if (fits(power)) return power;
  for (const step of [1024, 1000, 100]) {
    const candidate = Math.ceil(minBytes / step) * step;
    if (fits(candidate)) return candidate;
  }
  return minBytes;
}

const bytes = (value: number) => `${formatNumber(value)} B`;
const distribution = (s: SizeSummary, unit: (v: number) => string) =>
  `median ${unit(s.median)}, p90 ${unit(s.p90)}, min ${unit(s.min)}, max ${unit(s.max)} ` +
  `of ${formatNumber(s.count)}`;

/** What the directory showed, then which plan inputs came from it. */
export function segmentStatsLines(stats: SegmentStats, sourced: SourcedInput): string[] {
  const kind = stats.format === 'kafka' ? 'Kafka partition directory' : 'loglab log';
  const lines = [
    `Workload from ${stats.dir} (${kind}, ${stats.segments} segment(s), ` +
      `${formatNumber(stats.logBytes)} B in ${formatNumber(stats.batches)} batch(es) of ` +
      `${formatNumber(stats.records)} record(s)):`,
    `  record size       ${distribution(stats.recordBytes, bytes)}` +
      (stats.format === 'kafka' ? ', key + value + headers' : ', on disk, header included'),
    `  value size        ${distribution(stats.valueBytes, bytes)}`,
    `  batch size        ${distribution(stats.batchBytes, bytes)}, as stored`,
    `  records a batch   ${distribution(stats.recordsPerBatch, (v) => formatNumber(v))}`,
    `  on disk a record  ${formatFigure(stats.storedBytesPerRecord)} B (stored bytes / records)`,
    ...stats.codecs.map(
      (c) =>
        `  compression       ${c.codec}: ${formatFigure(c.ratio)}x ` +
        `(${formatNumber(c.uncompressedBytes)} B uncompressed / ${formatNumber(c.storedBytes)} B ` +
        `stored, ${formatNumber(c.batches)} batch(es))`,
    ),
    `  index entries     ${formatNumber(stats.indexEntries)}, ` +
      `${formatFigure(stats.indexEntriesPerMiB)} a MiB; interval ${intervalText(stats)}`,
    `  time              ${timeText(stats)}`,
  ];
  if (stats.ignoredTail !== null) {
    const t = stats.ignoredTail;
    lines.push(
      `  left out          ${formatNumber(t.sizeBytes)} B at byte ` +
        `${formatNumber(t.positionBytes)} ` +
        `of ${t.file} (${t.zeros ? 'zeros' : `a torn tail: ${t.reason}`})`,
    );
  }
  lines.push(...sourceLines(sourced));
  return lines;
}

function intervalText(stats: SegmentStats): string {
  const b = stats.indexInterval;
  if (b === null) {
    return stats.indexEntries === 0
      ? 'none implied (no entries)'
      : 'none fits every entry (appends of several batches, or counts restarted)';
  }
  const max = Number.isFinite(b.maxBytes) ? bytes(b.maxBytes) : 'any';
  return `between ${bytes(b.minBytes)} and ${max} fits every entry`;
}

function timeText(stats: SegmentStats): string {
  const t = stats.time;
  if (t === null) return 'no timestamps';
  const span =
    `${new Date(t.firstMs).toISOString()} to ${new Date(t.lastMs).toISOString()} ` +
    `(${formatFigure(t.spanSeconds)} s)`;
  if (t.ratePerSec === null) return `${span}, no rate`;
  return `${span}, ${formatFigure(t.ratePerSec)} records/s`;
}

function sourceLines(sourced: SourcedInput): string[] {
  const { input, sources } = sourced;
  const from = (source: FigureSource) =>
    source === 'data' ? 'from the data' : source === 'flag' ? 'from the flag' : 'the default';
  const lines = [
    'Plan inputs:',
    `  --rate            ${formatFigure(input.ratePerSec)}/s, ${from(sources.rate)}`,
    `  --size            ${bytes(input.recordBytes)}, ${from(sources.size)}`,
    `  --index-interval  ${bytes(input.indexIntervalBytes)}, ${from(sources.indexInterval)}`,
    `  --segment         ${formatBytes(input.segmentBytes)}, ${from(sources.segment)}`,
    `  --memory          ${formatBytes(input.memoryBytes)}, ${from(sources.memory)}`,
  ];
  if (sourced.note !== null) lines.push(`  note: ${sourced.note}`);
  return [...lines, ''];
}
