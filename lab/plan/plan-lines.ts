/**
 * The printout of `loglab plan`: every figure as `label = formula = result`, the formula built
 * from the same numbers the result was computed from, so a reader can redo each line by hand.
 */
import {
  type DurationUnit,
  formatAboutDuration,
  formatBytes,
  formatDurationNs,
  formatFigure,
  formatNumber,
  roundSignificant,
} from '../format.js';
import type { PlanCosts } from './plan-costs.js';
import { streamNs } from './plan-costs.js';
import type { MeasuredFigures } from './plan-measured.js';
import type { Recommendation, SegmentChoice } from './plan-recommend.js';
import { segmentForCount, tooManySegments } from './plan-recommend.js';
import type { PlanFigures, SegmentLife } from './plan.js';
import { FILES_PER_SEGMENT, MAX_SEGMENTS, segmentsKept } from './plan.js';

/** `label = formula = result`; a bound reads `label <= formula`, its reason in the formula. */
type Step =
  | readonly [label: string, formula: string, result: string]
  | readonly [label: string, bound: string];

const LABEL_COLUMNS = 20;
const FORMULA_COLUMNS = 34;
const WRAP_COLUMNS = 100;
const count = (value: number) => formatNumber(value);
const exact = (value: number) => formatNumber(value, 2);
const bytes = (value: number) => `${count(value)} B`;
/** `131,072 B (128 KiB)`: exact for hand checks, binary for reading. */
const sized = (value: number) =>
  value < 1024 ? bytes(value) : `${bytes(value)} (${formatBytes(value)})`;
/** The course's "about 5,850" for 5,849.49: a fraction rounds to tens (below 1,000: 3 digits). */
const approx = (value: number) => {
  if (Number.isInteger(value)) return count(value);
  const digits = Math.floor(Math.log10(Math.abs(value))) + 1;
  return count(roundSignificant(value, Math.max(3, digits - 1)));
};
const about = (value: number) =>
  Number.isInteger(value) ? count(value) : `about ${approx(value)}`;
/** Three significant digits below 100 MB/s, so a slow rate never prints as `0 MB/s`. */
const megabytesPerSec = (value: number) => `${formatFigure(value / 1e6)} MB/s`;
/** A quotient in seconds: whole from 100 s up, else three significant digits (1.64 s). */
const seconds = (value: number) =>
  value >= 100 || Number.isInteger(value)
    ? `${count(value)} s`
    : `${formatNumber(roundSignificant(value, 3), 6)} s`;
/**
 * `1.64 s`, or `13,107 s = about 3.6 hours` from a minute up: a time under a minute is not
 * restated in seconds at another rounding (`2 s = about 1.6 seconds` contradicted itself).
 */
const duration = (value: number, largestUnit?: DurationUnit) =>
  value < 60 ? seconds(value) : `${seconds(value)} = ${formatAboutDuration(value, largestUnit)}`;

function render(steps: readonly Step[]): string[] {
  return steps.map((step) =>
    step.length === 2
      ? `  ${step[0].padEnd(LABEL_COLUMNS)} <= ${step[1]}`
      : `  ${step[0].padEnd(LABEL_COLUMNS)} = ${step[1].padEnd(FORMULA_COLUMNS)} = ${step[2]}`,
  );
}

function lifeStep(
  label: string,
  life: SegmentLife,
  bytesPerSec: number,
): readonly [string, string, string] {
  return [
    label,
    `${count(life.segmentBytes)} / ${exact(bytesPerSec)}`,
    duration(life.seconds, 'hour'),
  ];
}

function workloadLines(f: PlanFigures): string[] {
  const { ratePerSec, recordBytes } = f.input;
  return [
    `Workload: ${exact(ratePerSec)} messages a second of ${bytes(recordBytes)} records ` +
      `(record = ${f.headerBytes} B header + ${bytes(f.bodyBytes)} body)`,
    ...render([
      [
        'traffic',
        `${exact(ratePerSec)}/s x ${bytes(recordBytes)}`,
        `${exact(f.bytesPerSec)} B a second`,
      ],
    ]),
  ];
}

/** What the segment holds under `always`, where page alignment leaves gaps (plan.ts). */
function alignedLines(f: PlanFigures): (readonly [string, string, string])[] {
  const aligned = f.alignedSegment;
  if (aligned === null) return [];
  const perPage = Math.round(aligned.pageBytes / aligned.recordSegmentBytes);
  return [
    [
      'under always',
      `${count(Math.floor(aligned.segmentBytes / aligned.pageBytes))} pages x ${perPage} ` +
        `record${perPage === 1 ? '' : 's'}`,
      `${count(aligned.messages)} messages, ${duration(aligned.seconds, 'hour')} ` +
        `(page alignment: no record crosses a ${bytes(aligned.pageBytes)} page)`,
    ],
  ];
}

function segmentLines(f: PlanFigures): string[] {
  const { segment } = f;
  const name = (sizeBytes: number) => formatBytes(sizeBytes);
  const widest = Math.max(...f.references.map((reference) => name(reference.segmentBytes).length));
  return [
    `One segment of ${name(segment.segmentBytes)}`,
    ...render([
      lifeStep('lasts', segment, f.bytesPerSec),
      [
        'holds',
        `${count(segment.segmentBytes)} / ${bytes(f.input.recordBytes)}`,
        `${count(segment.messages)} messages`,
      ],
      ...alignedLines(f),
    ]),
    '  the sizes real brokers chose, at this traffic:',
    ...f.references.map((reference) => {
      const [, formula, result] = lifeStep('', reference, f.bytesPerSec);
      return (
        `    ${name(reference.segmentBytes).padEnd(widest)}  ` +
        `${formula.padEnd(FORMULA_COLUMNS)} = ${result}   (${reference.who})`
      );
    }),
  ];
}

function indexSizeSteps(f: PlanFigures): Step[] {
  const { index, input } = f;
  const dense = input.indexIntervalBytes === 0;
  const { entryBytes, timeEntryBytes } = index;
  const entriesFormula = (perEntry: number) => `${count(input.segmentBytes)} / ${count(perEntry)}`;
  const steps: Step[] = dense
    ? []
    : [
        [
          'sparse entries',
          entriesFormula(input.indexIntervalBytes),
          `at most ${count(index.sparseEntries)}`,
        ],
        [
          'sparse index',
          `${count(index.sparseEntries)} x ${entryBytes} B`,
          sized(index.sparseBytes),
        ],
      ];
  return [
    ...steps,
    ['dense entries', entriesFormula(input.recordBytes), count(index.denseEntries)],
    ['dense index', `${count(index.denseEntries)} x ${entryBytes} B`, sized(index.denseBytes)],
    ['time index', `${count(index.entries)} x ${timeEntryBytes} B`, sized(index.timeIndexBytes)],
  ];
}

function lookupSteps(f: PlanFigures, costs: PlanCosts): Step[] {
  const { index, input } = f;
  const dense = input.indexIntervalBytes === 0;
  const perEntry = dense ? input.recordBytes : input.indexIntervalBytes;
  const entries = index.lookupPositionBytes / perEntry;
  const k = index.comparisonsMax;
  const measured = costs.coldLookupNs.source.startsWith('measured');
  const scanRate = costs.scanBytesPerSec.value;
  return [
    [
      'entries so far',
      `${count(index.lookupPositionBytes)} / ${count(perEntry)} = ${about(entries)}`,
    ],
    ['comparisons', `${k}, because 2^${k} = ${count(2 ** k)} is more than ${approx(entries)}`],
    dense
      ? ['step forward', 'the record itself', sized(index.stepForwardMaxBytes)]
      : [
          'step forward',
          `${count(input.indexIntervalBytes)} + one ${bytes(input.recordBytes)} ` +
            `record = ${sized(index.stepForwardMaxBytes)}`,
        ],
    [
      'lookup, not cached',
      measured ? 'measured' : 'one random read, then the step',
      formatDurationNs(costs.coldLookupNs.value),
    ],
    [
      'scan instead',
      `${count(index.lookupPositionBytes)} B / ${megabytesPerSec(scanRate)}`,
      formatDurationNs(streamNs(index.lookupPositionBytes, scanRate)),
    ],
  ];
}

function indexLines(f: PlanFigures, costs: PlanCosts): string[] {
  const { index, input } = f;
  const rule =
    input.indexIntervalBytes === 0
      ? 'dense, an entry for every record'
      : `an entry every ${bytes(input.indexIntervalBytes)} written`;
  const where =
    input.lookupPositionBytes === null
      ? 'the end of a full segment, the worst case'
      : bytes(index.lookupPositionBytes);
  return [
    `Index: ${rule}, ${index.entryBytes} B an entry (relative offset u32 + position u32)`,
    ...render(indexSizeSteps(f)),
    `  a lookup at ${where}:`,
    ...render(lookupSteps(f, costs)),
    `  lookup: ${costs.coldLookupNs.source}`,
    `  scan: ${costs.scanBytesPerSec.source}`,
  ];
}

function limitLines(f: PlanFigures): string[] {
  const { limits, segment, input } = f;
  const positions = limits.maxPositionBytes + 1;
  return [
    'Limits',
    ...render([
      [
        'positions (u32)',
        `${formatBytes(input.segmentBytes)} segment < 4 GiB (${count(positions)} B)`,
        `ok, ${formatNumber(positions / input.segmentBytes, 1)}x headroom`,
      ],
      [
        'relative offsets',
        `${count(segment.messages)} messages < 2^32`,
        `ok: a record is >= ${f.headerBytes} B, so a segment below 4 GiB holds < 2^28`,
      ],
    ]),
  ];
}

function recoveryLines(f: PlanFigures, costs: PlanCosts): string[] {
  const rate = costs.recoveryBytesPerSec;
  const lines = [
    'Recovery after a crash (nothing to walk after a clean close)',
    ...render([
      [
        'walk, at most',
        `${count(f.input.segmentBytes)} B / ${megabytesPerSec(rate.value)}`,
        `${formatDurationNs(streamNs(f.input.segmentBytes, rate.value))} (one whole segment)`,
      ],
    ]),
    `  walk rate: ${rate.source}`,
  ];
  const open = costs.openNsPerSegment;
  if (open !== null && f.retention !== null) {
    lines.push(
      ...render([
        [
          'open, clean',
          `${count(f.retention.segments)} segments x ${formatDurationNs(open.value)}`,
          formatDurationNs(f.retention.segments * open.value),
        ],
      ]),
      `  open: ${open.source}`,
    );
  }
  return lines;
}

function pageCacheLines(f: PlanFigures): string[] {
  const { pageCache } = f;
  const memory = formatBytes(pageCache.memoryBytes);
  const steps: Step[] = [
    [
      'holds',
      `${count(pageCache.memoryBytes)} B / ${exact(f.bytesPerSec)} B/s`,
      `${duration(pageCache.seconds)} of traffic`,
    ],
  ];
  const { lag } = pageCache;
  if (lag !== null) {
    const verdict = lag.fromMemory
      ? `<= ${memory}: served from memory`
      : `> ${memory}: read from the disk`;
    steps.push([
      'consumer lag',
      `${exact(lag.seconds)} s x ${exact(f.bytesPerSec)} B/s`,
      `${sized(lag.bytes)} ${verdict}`,
    ]);
  }
  return [`Page cache of ${memory} (free memory the OS can cache this log in)`, ...render(steps)];
}

function retentionLines(f: PlanFigures): string[] {
  const { retention, input, index } = f;
  if (retention === null) return [];
  const kept = count(retention.segments);
  return [
    `Retention of ${
      retention.seconds < 60
        ? seconds(retention.seconds)
        : `${seconds(retention.seconds)} (${formatAboutDuration(retention.seconds)})`
    }`,
    ...render([
      [
        'log bytes',
        `${count(retention.seconds)} s x ${exact(f.bytesPerSec)} B/s`,
        sized(retention.bytes),
      ],
      [
        'segments kept',
        `ceil(${count(retention.bytes)} / ${count(input.segmentBytes)}) + 1`,
        `${kept} (the oldest is deleted only when all of it has expired)`,
      ],
      ['files', `${kept} x ${FILES_PER_SEGMENT} (.log .index .timeindex)`, count(retention.files)],
      ['disk, at most', `${kept} x ${formatBytes(input.segmentBytes)}`, sized(retention.diskBytes)],
      [
        'indexes, at most',
        `${kept} x (${count(index.bytes)} + ${count(index.timeIndexBytes)}) B`,
        sized(retention.indexBytes),
      ],
    ]),
    ...retentionWarning(f),
  ];
}

/** Above MAX_SEGMENTS for the retention: say so, and which size would keep fewer. */
function retentionWarning(f: PlanFigures): string[] {
  const { retention } = f;
  if (retention === null || retention.segments <= MAX_SEGMENTS) return [];
  const larger = segmentForCount(retention.bytes);
  const fix =
    larger === null
      ? '; even 2 GiB segments keep too many: shorten the retention or split the log'
      : `: --segment ${formatBytes(larger).replace(' ', '')} keeps ` +
        count(segmentsKept(retention.bytes, larger));
  return wrap(`${tooManySegments(retention.segments, retention.files)}${fix}`, '  ');
}

/** Breaks a long reason into lines of at most WRAP_COLUMNS, each indented. */
function wrap(text: string, indent: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line.length > 0 && indent.length + line.length + 1 + word.length > WRAP_COLUMNS) {
      lines.push(`${indent}${line}`);
      line = word;
    } else {
      line = line.length === 0 ? word : `${line} ${word}`;
    }
  }
  return [...lines, `${indent}${line}`];
}

/** The recommended segment's consequences, each figure redone from the one before. */
function recommendedSegmentLines(f: PlanFigures, choice: SegmentChoice): string[] {
  const size = count(choice.bytes);
  const steps: Step[] = [];
  const { retention } = f;
  if (retention !== null && choice.segments !== null && choice.files !== null) {
    const kept = count(choice.segments);
    steps.push(
      ['segments kept', `ceil(${count(retention.bytes)} / ${size}) + 1`, kept],
      ['files', `${kept} x ${FILES_PER_SEGMENT} (.log .index .timeindex)`, count(choice.files)],
    );
    if (choice.openNs !== null && choice.openNsPerSegment !== null) {
      steps.push([
        'open, clean',
        `${kept} segments x ${formatDurationNs(choice.openNsPerSegment)} checked`,
        formatDurationNs(choice.openNs),
      ]);
    }
  }
  steps.push([
    'recovery walk',
    `${size} B / ${megabytesPerSec(choice.recoveryBytesPerSec)}`,
    `${formatDurationNs(choice.recoveryNs)} (one whole segment)`,
  ]);
  const heading =
    retention === null
      ? `  at ${formatBytes(choice.bytes)} (no --retention: segment and file counts not computed):`
      : `  at ${formatBytes(choice.bytes)}, for the retention of ` +
        `${formatAboutDuration(retention.seconds)}:`;
  const open =
    choice.openNs === null && retention !== null
      ? ['  open time not measured: add recovery results (`loglab run recovery`)']
      : [];
  return [
    heading,
    ...render(steps).map((line) => `  ${line}`),
    ...open,
    ...(choice.warning === null ? [] : wrap(choice.warning, '    ')),
  ];
}

function measuredLines(
  f: PlanFigures,
  measured: MeasuredFigures,
  recommendation: Recommendation,
): string[] {
  const interval = recommendation.indexIntervalBytes;
  const segment = recommendation.segmentBytes;
  return [
    'Measured on this machine:',
    ...measured.files.map((file) => `  ${file}`),
    ...measured.ignored.map((entry) => `  not used (not a sizing experiment): ${entry}`),
    'Recommendation',
    `  segment ${formatBytes(segment.bytes)}:`,
    ...wrap(segment.reason, '    '),
    ...wrap(segment.basis, '    '),
    ...recommendedSegmentLines(f, segment),
    interval === null
      ? '  index interval: no index-density results, so no recommendation'
      : `  index interval ${interval.bytes === 0 ? 'dense' : formatBytes(interval.bytes)}:`,
    ...(interval === null ? [] : wrap(interval.reason, '    ')),
  ];
}

export function planLines(
  f: PlanFigures,
  costs: PlanCosts,
  measured: { readonly figures: MeasuredFigures; readonly recommendation: Recommendation } | null,
): string[] {
  const blocks = [
    workloadLines(f),
    segmentLines(f),
    indexLines(f, costs),
    limitLines(f),
    recoveryLines(f, costs),
    pageCacheLines(f),
    retentionLines(f),
    measured === null ? [] : measuredLines(f, measured.figures, measured.recommendation),
  ];
  return blocks
    .filter((block) => block.length > 0)
    .flatMap((block, i) => (i === 0 ? block : ['', ...block]));
}
