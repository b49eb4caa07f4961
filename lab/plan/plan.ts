/**
 * Capacity-planning arithmetic for the log (the course's "Choosing the Segment Size", "Finding a
 * Record by Its Offset" and "The Page Cache"): how long a segment lasts, how big its indexes are,
 * how far a lookup searches and steps, which limits a choice is near, and how much of the
 * traffic the page cache holds. Everything is computed from the workload and the log's own
 * constants (record header, index entry sizes, u32 positions); `loglab plan` prints it.
 *
 * The record size is what one message takes in a segment: the 16-byte header (length, CRC, id) plus
 * the body. The course's arithmetic uses 1,024 bytes a message, so `--size 1KiB` reproduces it.
 * Counts of records and entries are rounded to the nearest whole one, as the course rounds them
 * (67,108,864 / 53 = 1,266,204.98 → 1,266,205 entries), so the printout matches it figure for
 * figure; the difference from the floor is at most one record.
 */
import { assert } from '../../storage/errors.js';
import {
  DEFAULT_INDEX_INTERVAL_BYTES,
  DEFAULT_SEGMENT_BYTES,
} from '../../storage/log/log-config.js';
import { DEFAULT_PAGE_BYTES } from '../../storage/record/page-fill.js';
import { alignedSegmentBytesPerRecord } from '../models/page-floor.js';
import { OFFSET_INDEX_ENTRY_BYTES } from '../../storage/segments/offset-index.js';
import { RECORD_HEADER_BYTES } from '../../storage/record/record.js';
import { TIME_INDEX_ENTRY_BYTES } from '../../storage/segments/time-index.js';
import { GiB, MAX_POSITION_BYTES, MiB } from '../../storage/units.js';
import { LabError } from '../errors.js';
import { formatBytes, formatNumber } from '../format.js';

/** What the page cache is sized in when `--memory` is not given: the course's "each GiB". */
export const DEFAULT_MEMORY_BYTES = GiB;
/** Relative offsets are u32 in both indexes. */
export const RELATIVE_OFFSET_LIMIT = 2 ** 32;
/** Files per segment: `.log`, `.index`, `.timeindex`. */
export const FILES_PER_SEGMENT = 3;
/** More segments than this for the retention is too many files to open, check and keep open. */
export const MAX_SEGMENTS = 100_000;

export interface PlanInput {
  readonly ratePerSec: number;
  /** One message on disk: RECORD_HEADER_BYTES of header plus the body. */
  readonly recordBytes: number;
  readonly segmentBytes: number;
  /** 0 = dense: an index entry for every record. */
  readonly indexIntervalBytes: number;
  readonly memoryBytes: number;
  readonly retentionSeconds: number | null;
  readonly consumerLagSeconds: number | null;
  /** Where in a segment the lookup walk is priced; null = a full segment's end, the worst case. */
  readonly lookupPositionBytes: number | null;
}

export const PLAN_DEFAULTS = {
  segmentBytes: DEFAULT_SEGMENT_BYTES,
  indexIntervalBytes: DEFAULT_INDEX_INTERVAL_BYTES,
  memoryBytes: DEFAULT_MEMORY_BYTES,
} as const;

/** The sizes the course compares, with who chose them ("Choosing the Segment Size"). */
export interface ReferenceSegment {
  readonly segmentBytes: number;
  readonly who: string;
}

export const REFERENCE_SEGMENTS: readonly ReferenceSegment[] = [
  { segmentBytes: 4 * MiB, who: 'NATS JetStream work-queue blocks' },
  { segmentBytes: 64 * MiB, who: "the course's broker, loglab's default" },
  { segmentBytes: 100 * MiB, who: 'NSQ disk queue' },
  { segmentBytes: GiB, who: "Kafka's default" },
];

export interface SegmentLife {
  readonly segmentBytes: number;
  readonly seconds: number;
  readonly messages: number;
}

/**
 * One segment under `always`, where page alignment (storage/record/page-alignment.ts) starts a record
 * that would cross a page at the next one: each record then takes `recordSegmentBytes` of the
 * segment, gaps included. Under `group` only a sync's first record moves.
 */
export interface AlignedSegmentLife extends SegmentLife {
  readonly pageBytes: number;
  readonly recordSegmentBytes: number;
}

export interface IndexFigures {
  readonly entryBytes: number;
  /** At most one entry per interval written (the rule adds one only past the interval). */
  readonly sparseEntries: number;
  readonly sparseBytes: number;
  readonly denseEntries: number;
  readonly denseBytes: number;
  /** Entries in the index this plan uses (sparse, or dense with interval 0). */
  readonly entries: number;
  readonly bytes: number;
  readonly timeEntryBytes: number;
  readonly timeIndexBytes: number;
  readonly lookupPositionBytes: number;
  readonly entriesBeforeLookup: number;
  /** Binary search over n entries: the smallest k with 2^k > n. */
  readonly comparisonsMax: number;
  /** From the entry at or before the target to the end of the target: an interval and a record. */
  readonly stepForwardMaxBytes: number;
}

export interface ConsumerLag {
  readonly seconds: number;
  readonly bytes: number;
  readonly fromMemory: boolean;
}

export interface PageCacheFigures {
  readonly memoryBytes: number;
  readonly seconds: number;
  readonly lag: ConsumerLag | null;
}

export interface RetentionFigures {
  readonly seconds: number;
  readonly bytes: number;
  /** Whole segments holding the retained bytes, one partly expired (deleted only when whole). */
  readonly segments: number;
  readonly files: number;
  readonly diskBytes: number;
  readonly indexBytes: number;
}

export interface PlanFigures {
  readonly input: PlanInput;
  readonly headerBytes: number;
  readonly bodyBytes: number;
  readonly bytesPerSec: number;
  readonly segment: SegmentLife;
  /** The segment under `always` when alignment changes what it holds; else null. */
  readonly alignedSegment: AlignedSegmentLife | null;
  readonly references: readonly (SegmentLife & { readonly who: string })[];
  readonly index: IndexFigures;
  readonly limits: {
    readonly maxPositionBytes: number;
    readonly relativeOffsetLimit: number;
  };
  readonly pageCache: PageCacheFigures;
  readonly retention: RetentionFigures | null;
}

function limitError(argument: string, message: string): LabError {
  return new LabError('BAD_ARGUMENT', `${argument}: ${message}`);
}

/**
 * Refuses a choice the log cannot hold, saying which limit it breaks. The relative-offset limit
 * (u32) needs no check of its own: a record takes at least RECORD_HEADER_BYTES, so a segment
 * below 4 GiB holds at most 2^28 of them.
 */
export function checkPlanLimits(input: PlanInput): void {
  const segment = formatBytes(input.segmentBytes);
  if (input.segmentBytes > MAX_POSITION_BYTES) {
    throw limitError(
      '--segment',
      `${segment} breaks the 4 GiB position limit: index entries ` +
        `store a position inside the segment in 4 bytes (u32), so a segment must stay below 4 GiB ` +
        `(at most ${formatNumber(MAX_POSITION_BYTES)} B); choose a smaller one, e.g. 2GiB`,
    );
  }
  if (input.recordBytes < RECORD_HEADER_BYTES) {
    throw limitError(
      '--size',
      `a record is at least its ${RECORD_HEADER_BYTES}-byte header ` +
        `(length, CRC, id), got ${input.recordBytes} B; give the record size, header included`,
    );
  }
  if (input.recordBytes > input.segmentBytes) {
    throw limitError(
      '--size',
      `a ${formatBytes(input.recordBytes)} record does not fit in a ` +
        `${segment} segment; choose a larger --segment or a smaller record`,
    );
  }
  if (input.indexIntervalBytes > input.segmentBytes) {
    throw limitError(
      '--index-interval',
      `${formatBytes(input.indexIntervalBytes)} is larger ` +
        `than the ${segment} segment, so the index would stay empty; choose at most ${segment}`,
    );
  }
  const position = input.lookupPositionBytes;
  if (position !== null && position > input.segmentBytes) {
    throw limitError(
      '--lookup-position',
      `${formatNumber(position)} B is past the end of a ` +
        `${segment} segment; choose a position inside it`,
    );
  }
}

export function segmentLife(
  segmentBytes: number,
  recordBytes: number,
  bytesPerSec: number,
): SegmentLife {
  return {
    segmentBytes,
    seconds: segmentBytes / bytesPerSec,
    messages: Math.round(segmentBytes / recordBytes),
  };
}

function alignedSegmentLife(input: PlanInput): AlignedSegmentLife | null {
  const pageBytes = DEFAULT_PAGE_BYTES;
  const recordSegmentBytes = alignedSegmentBytesPerRecord(input.recordBytes, pageBytes);
  if (recordSegmentBytes === input.recordBytes) return null;
  const { segmentBytes, recordBytes } = input;
  const perPage = Math.round(pageBytes / recordSegmentBytes);
  // Whole pages, then the records that fit in what is left after them.
  const messages =
    Math.floor(segmentBytes / pageBytes) * perPage +
    Math.floor((segmentBytes % pageBytes) / recordBytes);
  return {
    segmentBytes: input.segmentBytes,
    seconds: messages / input.ratePerSec,
    messages,
    pageBytes,
    recordSegmentBytes,
  };
}

/** The smallest k with 2^k > n: comparisons a binary search over n entries needs at most. */
export function binarySearchComparisonsMax(entries: number): number {
  assert(Number.isInteger(entries) && entries >= 0, `entries must be a whole number: ${entries}`);
  return entries === 0 ? 0 : Math.floor(Math.log2(entries)) + 1;
}

function indexFigures(input: PlanInput): IndexFigures {
  const { segmentBytes, recordBytes, indexIntervalBytes } = input;
  const dense = indexIntervalBytes === 0;
  const denseEntries = Math.round(segmentBytes / recordBytes);
  const sparseEntries = dense ? denseEntries : Math.round(segmentBytes / indexIntervalBytes);
  const lookupPositionBytes = input.lookupPositionBytes ?? segmentBytes;
  const perEntryBytes = dense ? recordBytes : indexIntervalBytes;
  const entriesBeforeLookup = Math.round(lookupPositionBytes / perEntryBytes);
  // The rule adds an entry once more than an interval was written since the last one, so the
  // target starts at most an interval past its entry, and the walk reads the target too.
  const stepForwardMaxBytes = dense ? recordBytes : indexIntervalBytes + recordBytes;
  return {
    entryBytes: OFFSET_INDEX_ENTRY_BYTES,
    sparseEntries,
    sparseBytes: sparseEntries * OFFSET_INDEX_ENTRY_BYTES,
    denseEntries,
    denseBytes: denseEntries * OFFSET_INDEX_ENTRY_BYTES,
    entries: sparseEntries,
    bytes: sparseEntries * OFFSET_INDEX_ENTRY_BYTES,
    timeEntryBytes: TIME_INDEX_ENTRY_BYTES,
    timeIndexBytes: sparseEntries * TIME_INDEX_ENTRY_BYTES,
    lookupPositionBytes,
    entriesBeforeLookup,
    comparisonsMax: binarySearchComparisonsMax(entriesBeforeLookup),
    stepForwardMaxBytes,
  };
}

function pageCacheFigures(input: PlanInput, bytesPerSec: number): PageCacheFigures {
  const lagSeconds = input.consumerLagSeconds;
  const lagBytes = lagSeconds === null ? 0 : lagSeconds * bytesPerSec;
  return {
    memoryBytes: input.memoryBytes,
    seconds: input.memoryBytes / bytesPerSec,
    lag:
      lagSeconds === null
        ? null
        : { seconds: lagSeconds, bytes: lagBytes, fromMemory: lagBytes <= input.memoryBytes },
  };
}

/**
 * Segments on disk holding `retainedBytes`: deletion drops whole segments, so the oldest one
 * waits until all of it has expired — one more than the bytes need.
 */
export function segmentsKept(retainedBytes: number, segmentBytes: number): number {
  assert(segmentBytes > 0, `segment must be positive: ${segmentBytes}`);
  return Math.ceil(retainedBytes / segmentBytes) + 1;
}

function retentionFigures(
  input: PlanInput,
  bytesPerSec: number,
  index: IndexFigures,
): RetentionFigures | null {
  if (input.retentionSeconds === null) return null;
  const bytes = input.retentionSeconds * bytesPerSec;
  const segments = segmentsKept(bytes, input.segmentBytes);
  return {
    seconds: input.retentionSeconds,
    bytes,
    segments,
    files: segments * FILES_PER_SEGMENT,
    diskBytes: segments * input.segmentBytes,
    indexBytes: segments * (index.bytes + index.timeIndexBytes),
  };
}

export function planFigures(input: PlanInput): PlanFigures {
  assert(input.ratePerSec > 0, `rate must be positive: ${input.ratePerSec}`);
  assert(input.memoryBytes > 0, `memory must be positive: ${input.memoryBytes}`);
  checkPlanLimits(input);
  const bytesPerSec = input.ratePerSec * input.recordBytes;
  const index = indexFigures(input);
  return {
    input,
    headerBytes: RECORD_HEADER_BYTES,
    bodyBytes: input.recordBytes - RECORD_HEADER_BYTES,
    bytesPerSec,
    segment: segmentLife(input.segmentBytes, input.recordBytes, bytesPerSec),
    alignedSegment: alignedSegmentLife(input),
    references: REFERENCE_SEGMENTS.map((reference) => ({
      ...segmentLife(reference.segmentBytes, input.recordBytes, bytesPerSec),
      who: reference.who,
    })),
    index,
    limits: { maxPositionBytes: MAX_POSITION_BYTES, relativeOffsetLimit: RELATIVE_OFFSET_LIMIT },
    pageCache: pageCacheFigures(input, bytesPerSec),
    retention: retentionFigures(input, bytesPerSec, index),
  };
}
