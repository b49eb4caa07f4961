/**
 * The index-density experiment's second question: what Kafka's "warm section first" saves when an
 * index's pages have left the page cache (the course, lesson 2, "Kafka: A Sparse Index Every 4
 * KB").
 *
 * A copy of a log's .index file per search kind is searched on disk, a pread per probe
 * (storage/segments/offset-index.ts searchIndexFile): plainly, and Kafka's way, the last 8 KiB first.
 * Counted for recent offsets (the newest `recentBytes` of the log) and for any offset: probes and
 * distinct 4 KiB pages touched. Timed for recent offsets on a cold file whose last 8 KiB are warm,
 * as appends and recent lookups keep them: the page-cache state Kafka's comment describes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ColdReadFileIO,
  type LabContext,
  type Labels,
  Measurement,
  type Metric,
  type SeededRandom,
  formatBytes,
  measureSync,
} from '../../lab/index.js';
import type { FileHandle, Log } from '../../storage/index.js';
import {
  INDEX_SUFFIX,
  assert,
  copyOffsetIndex,
  searchIndexFile,
} from '../../storage/testing/index.js';
import { formatNs, mean } from './figures.js';
import { INDEX_DENSITY_METRICS } from '../metrics/index-density.js';

/** Kafka's warm section: the last 8 KiB of the index (AbstractIndex, `warmEntries`). */
const WARM_SECTION_BYTES = 8 * 1024;
const SEARCHES = ['plain', 'warm-first'] as const;
type SearchKind = (typeof SEARCHES)[number];
const TARGETS = ['recent', 'any'] as const;
type TargetKind = (typeof TARGETS)[number];

/** The part of an index-density setting a file search needs. */
export interface SearchedLog {
  readonly key: string;
  readonly intervalBytes: number;
  readonly labels: Labels;
  readonly log: Log;
}

export interface FileSearch {
  readonly source: SearchedLog;
  readonly io: ColdReadFileIO;
  readonly handles: Readonly<Record<SearchKind, FileHandle>>;
  /** Cold-file timings of recent targets, one per search kind. */
  readonly timed: Readonly<Record<SearchKind, Measurement>>;
  /** How many of the newest offsets count as recent. */
  readonly recentRecords: number;
  close(): void;
}

interface SearchCounts {
  readonly probes: number;
  readonly pages: number;
}

type Counts = Record<SearchKind, Record<TargetKind, SearchCounts>>;

function searchOptions(kind: SearchKind): { warmSectionBytes: number } {
  return { warmSectionBytes: kind === 'warm-first' ? WARM_SECTION_BYTES : 0 };
}

/** Copies each log's index once per search kind, so one kind's reads never warm the other's. */
export function openFileSearches(ctx: LabContext, logs: readonly SearchedLog[]): FileSearch[] {
  const copies = path.join(ctx.dir, 'index-copies');
  fs.mkdirSync(copies, { recursive: true });
  const recentBytes = ctx.numberParam('recentBytes');
  return logs.map((source) => {
    const segment = source.log.segments()[0];
    assert(segment !== undefined, `log ${source.key} has a segment`);
    const io = new ColdReadFileIO();
    const open = (kind: SearchKind) => {
      const copy = path.join(copies, `${source.key}.${kind}${INDEX_SUFFIX}`);
      copyOffsetIndex(source.log.dir, segment.baseOffset, copy);
      return io.openReadOnly(copy);
    };
    const handles = { plain: open('plain'), 'warm-first': open('warm-first') };
    const timed = (kind: SearchKind) =>
      new Measurement(`index-density.${source.key}.${kind}`, 'sync', {
        ...source.labels,
        search: kind,
        targets: 'recent',
        cache: 'cold',
      });
    const recordBytes = source.log.sizeBytes / source.log.endOffset;
    return {
      source,
      io,
      handles,
      timed: { plain: timed('plain'), 'warm-first': timed('warm-first') },
      recentRecords: Math.max(1, Math.floor(recentBytes / recordBytes)),
      close: () => SEARCHES.forEach((kind) => io.close(handles[kind])),
    };
  });
}

function targets(search: FileSearch, kind: TargetKind, random: SeededRandom, count: number) {
  const end = search.source.log.endOffset;
  const window = Math.min(search.recentRecords, end);
  return Array.from({ length: count }, () =>
    kind === 'recent' ? end - 1 - random.nextInt(window) : random.nextInt(end),
  );
}

/** Reads the last 8 KiB of the file, as appends and recent lookups would have kept them warm. */
function warmTheTail(io: ColdReadFileIO, handle: FileHandle): void {
  const sizeBytes = io.sizeBytes(handle);
  const tailBytes = Math.min(sizeBytes, WARM_SECTION_BYTES);
  if (tailBytes > 0) io.read(handle, Buffer.alloc(tailBytes), 0, tailBytes, sizeBytes - tailBytes);
}

/** One cold round of file searches (the caller started cold reads through their FileIOs). */
export function measureColdFileSearches(
  ctx: LabContext,
  searches: readonly FileSearch[],
  count: number,
): void {
  for (const search of searches) {
    const recent = targets(search, 'recent', ctx.random.fork(), count);
    for (const kind of SEARCHES) {
      warmTheTail(search.io, search.handles[kind]);
      const handle = search.handles[kind];
      const options = searchOptions(kind);
      measureSync(
        search.timed[kind],
        (i) => searchIndexFile(search.io, handle, recent[i % count]!, options).probes,
        { ops: count },
      );
    }
  }
}

/** Probes and pages per search, checked against the log's own lookup of the same offsets. */
function countSearches(ctx: LabContext, search: FileSearch): Counts {
  const samples = ctx.numberParam('walkSamples');
  const counts = {} as Counts;
  for (const kind of SEARCHES) {
    counts[kind] = {} as Record<TargetKind, SearchCounts>;
    for (const targetKind of TARGETS) {
      const found = targets(search, targetKind, ctx.random.fork(), samples).map((offset) => {
        const handle = search.handles[kind];
        const result = searchIndexFile(search.io, handle, offset, searchOptions(kind));
        const expected = search.source.log.explainLookup(offset).indexEntry?.relativeOffset ?? null;
        assert(result.relativeOffset === expected, `file search of ${offset} agrees with the log`);
        return result;
      });
      counts[kind][targetKind] = {
        probes: mean(found.map((result) => result.probes)),
        pages: mean(found.map((result) => result.pagesTouched)),
      };
    }
  }
  return counts;
}

function countMetrics(search: FileSearch, counts: Counts): Metric[] {
  const metrics: Metric[] = [];
  for (const kind of SEARCHES) {
    for (const targetKind of TARGETS) {
      const prefix = `index-density.${search.source.key}.${kind}.${targetKind}`;
      const labels = { ...search.source.labels, search: kind, targets: targetKind };
      const { probes, pages } = counts[kind][targetKind];
      metrics.push(
        INDEX_DENSITY_METRICS.indexPagesPerSearch.counter(
          `${prefix}.indexPagesPerSearch`,
          pages,
          labels,
          'distinct 4 KiB pages of the .index file one search touched, mean (searchIndexFile)',
        ),
        INDEX_DENSITY_METRICS.probesPerSearch.counter(
          `${prefix}.probesPerSearch`,
          probes,
          labels,
          'index entries read from the file per search, one pread each, mean',
        ),
      );
    }
  }
  return metrics;
}

export interface FileSearchResults {
  readonly metrics: Metric[];
  readonly notes: string[];
}

export function fileSearchResults(
  ctx: LabContext,
  searches: readonly FileSearch[],
  coldMeasured: boolean,
): FileSearchResults {
  const counted = searches.map((search) => ({ search, counts: countSearches(ctx, search) }));
  const metrics = counted.flatMap(({ search, counts }) => countMetrics(search, counts));
  if (coldMeasured) {
    for (const search of searches) {
      for (const kind of SEARCHES) {
        const name = `index-density.${search.source.key}.${kind}.recent.indexSearchNs`;
        metrics.push(
          INDEX_DENSITY_METRICS.indexSearchNs.adopt(
            name,
            search.timed[kind].summarize(ctx.random).latencyNs,
          ),
        );
      }
    }
  }
  return { metrics, notes: warmSectionNotes(ctx, counted, metrics) };
}

function intervalList(intervals: readonly number[]): string {
  if (intervals.length === 0) return 'none';
  return intervals.map((bytes) => (bytes === 0 ? 'dense' : formatBytes(bytes))).join(', ');
}

function warmSectionNotes(
  ctx: LabContext,
  counted: ReadonlyArray<{ search: FileSearch; counts: Counts }>,
  metrics: readonly Metric[],
): string[] {
  if (counted.length === 0) return [];
  const helped = counted.filter(
    ({ counts }) => counts['warm-first'].recent.pages < counts.plain.recent.pages,
  );
  const extraProbes = Math.max(
    ...counted.map(({ counts }) => counts['warm-first'].any.probes - counts.plain.any.probes),
  );
  const recent = formatBytes(ctx.numberParam('recentBytes'));
  const notes = [
    `The .index files of the ${counted[0]!.search.source.labels.recordSizeBytes}-byte logs were ` +
      'also searched on disk, a pread per probe, as when their pages have left the page cache. ' +
      `Kafka's warm section first (the last 8 KiB, 1,024 entries) touched fewer pages for recent ` +
      `offsets (the newest ${recent}) at intervals ${intervalList(
        helped.map(({ search }) => search.source.intervalBytes),
      )}: there the index is larger than 8 KiB and its last 1,024 ` +
      'entries cover the recent offsets. Elsewhere the index fits in the warm section or the ' +
      'recent offsets lie before it; for random offsets it cost at most ' +
      `${extraProbes.toFixed(1)} extra probes per search.`,
  ];
  const timedNotes = helped.flatMap(({ search }) => {
    const at = (kind: SearchKind) =>
      metrics.find(
        (metric) =>
          metric.name === `index-density.${search.source.key}.${kind}.recent.indexSearchNs`,
      );
    const plain = at('plain');
    const warm = at('warm-first');
    if (plain === undefined || warm === undefined) return [];
    const figure = (metric: Metric) =>
      `${formatNs(metric.median)} (p99 ${formatNs(metric.p99 ?? metric.median)})`;
    const interval = search.source.intervalBytes;
    return [
      `${interval === 0 ? 'dense' : formatBytes(interval)}: ${figure(plain)} plain vs ` +
        `${figure(warm)} warm first`,
    ];
  });
  if (timedNotes.length > 0) {
    notes.push(
      'Recent-offset searches of a cold index file whose last 8 KiB were warm, median ' +
        '(p99): ' +
        `${timedNotes.join('; ')}.`,
    );
  }
  return notes;
}
