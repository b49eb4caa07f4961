/**
 * What a log directory says about the workload that wrote it: record, value and batch sizes
 * (median, p90), records per batch, the compression each codec achieved, index entries per MiB,
 * the index interval the entries imply, and the time span and rate the timestamps show. Reads a
 * Kafka partition directory (kafka-segment-walk.ts) or a loglab log (dump.ts's walk), never
 * opening either for writing, for `loglab plan --from-segments`.
 *
 * Sizes are kept as exact counts per value (a Map), so quantiles are exact (nearest rank) and
 * memory grows with the distinct sizes, not with the records.
 *
 * The index interval is bounded from the entries, by the rule both logs apply before each
 * batch (record, for loglab) is appended at position p: an entry when p minus the last entry's
 * position (0 before the first) is above the interval. So every entry at p after one at q says
 * interval < p - q, and every batch at p' with no entry since q says interval >= p' - q. When the
 * bounds cross (a Kafka follower appends many batches at once; a restarted broker counts from
 * 0 again), no single interval wrote the index, and none is inferred.
 *
 * Damage is refused with a typed error naming the file and position, except at the end of the
 * last segment: a torn tail there (a crash, a copy of a live segment) is left out and reported.
 */
import * as path from 'node:path';
import type { FileIO } from '../io/file-io.js';
import { StorageError } from '../errors.js';
import { LOG_SUFFIX, INDEX_SUFFIX, segmentFileName } from '../segments/segment-files.js';
import { segmentsToDump, dumpLog, type DumpTarget } from './dump.js';
import { detectSegmentFormat, type SegmentFormat } from './segment-format.js';
import {
  type WalkedBatch,
  damagedSegmentBatch,
  walkKafkaSegment,
} from '../kafka/kafka-segment-walk.js';
import {
  BATCH_HEADER_BYTES,
  encodeRecords,
  type KafkaBatch,
  recordTimestampMs,
} from '../kafka/kafka-batch.js';
import { OFFSET_INDEX_ENTRY_BYTES } from '../segments/offset-index.js';
import { RECORD_HEADER_BYTES } from '../record/record.js';
import { MiB } from '../units.js';
import { SizeHistogram, type SizeSummary } from './size-histogram.js';

/** A size distribution, as `SegmentStats` reports several. */
export type { SizeSummary } from './size-histogram.js';

export interface CodecStats {
  readonly codec: string;
  readonly batches: number;
  readonly storedBytes: number;
  /** The same batches with their records uncompressed: 61-byte header + plain records. */
  readonly uncompressedBytes: number;
  /** uncompressedBytes / storedBytes: 1 for `none`. */
  readonly ratio: number;
}

export interface TimeSpan {
  readonly firstMs: number;
  readonly lastMs: number;
  readonly spanSeconds: number;
  /** Records a second over the span; null when the span is 0. */
  readonly ratePerSec: number | null;
}

export interface IgnoredTail {
  readonly file: string;
  readonly positionBytes: number;
  readonly sizeBytes: number;
  readonly zeros: boolean;
  readonly reason: string;
}

export interface SegmentStats {
  readonly format: SegmentFormat;
  readonly dir: string;
  readonly segments: number;
  /**
   * Bytes of whole batches across the segments; for loglab, its records and the gaps page
   * alignment left before them (page-alignment.ts): the segment bytes they take.
   */
  readonly logBytes: number;
  readonly batches: number;
  readonly records: number;
  /** Kafka: key + value + header bytes; loglab: the record on disk, 16-byte header included. */
  readonly recordBytes: SizeSummary;
  readonly valueBytes: SizeSummary;
  readonly batchBytes: SizeSummary;
  readonly recordsPerBatch: SizeSummary;
  /** logBytes / records: what one record costs on disk, batch header and compression included. */
  readonly storedBytesPerRecord: number;
  readonly codecs: readonly CodecStats[];
  readonly indexEntries: number;
  readonly indexEntriesPerMiB: number;
  /** Bounds on the interval the index entries imply; null when none fits them all. */
  readonly indexInterval: { readonly minBytes: number; readonly maxBytes: number } | null;
  readonly time: TimeSpan | null;
  readonly ignoredTail: IgnoredTail | null;
}

/** Bounds on the index interval, narrowed segment by segment. */
class IntervalBounds {
  minBytes = 0;
  maxBytes = Number.POSITIVE_INFINITY;

  /** `starts`: every batch position of a segment; `entries`: its index entries' positions. */
  addSegment(starts: readonly number[], entries: readonly number[]): void {
    const entrySet = new Set(entries);
    let last = 0;
    for (const start of starts) {
      if (entrySet.has(start)) {
        // An entry at the segment's first byte: only a dense index (interval 0) makes one.
        this.maxBytes = Math.min(this.maxBytes, Math.max(0, start - last - 1));
        last = start;
      } else {
        this.minBytes = Math.max(this.minBytes, start - last);
      }
    }
  }

  result(): SegmentStats['indexInterval'] {
    if (this.minBytes > this.maxBytes) return null;
    return { minBytes: this.minBytes, maxBytes: this.maxBytes };
  }
}

interface CodecTally {
  batches: number;
  storedBytes: number;
  uncompressedBytes: number;
}

/** Running totals while segments are read. */
interface Tally {
  readonly recordBytes: SizeHistogram;
  readonly valueBytes: SizeHistogram;
  readonly batchBytes: SizeHistogram;
  readonly recordsPerBatch: SizeHistogram;
  readonly codecs: Map<string, CodecTally>;
  readonly bounds: IntervalBounds;
  logBytes: number;
  indexEntries: number;
  firstMs: number;
  lastMs: number;
  timedRecords: number;
  ignoredTail: IgnoredTail | null;
}

function newTally(): Tally {
  return {
    recordBytes: new SizeHistogram(),
    valueBytes: new SizeHistogram(),
    batchBytes: new SizeHistogram(),
    recordsPerBatch: new SizeHistogram(),
    codecs: new Map(),
    bounds: new IntervalBounds(),
    logBytes: 0,
    indexEntries: 0,
    firstMs: Number.POSITIVE_INFINITY,
    lastMs: Number.NEGATIVE_INFINITY,
    timedRecords: 0,
    ignoredTail: null,
  };
}

/** The statistics of the log in `dir`; a typed error when it is not one or is damaged. */
export function readSegmentStats(io: FileIO, dir: string): SegmentStats {
  const target = logTarget(io, dir);
  const format = detectSegmentFormat(io, dir);
  const tally = newTally();
  if (format === 'kafka') readKafka(io, target, tally);
  else readLoglab(io, target, tally);
  const records = tally.recordBytes.count;
  if (records === 0) {
    throw new StorageError(
      'LOG_NOT_FOUND',
      `segment stats: the segments in ${dir} hold no ` +
        'records; point at a directory whose log has data',
      { file: dir },
    );
  }
  return summarize(format, target, tally);
}

function logTarget(io: FileIO, dir: string): DumpTarget {
  if (!io.exists(dir)) {
    throw new StorageError(
      'INVALID_SEGMENT_FILE',
      `segment stats: ${dir} does not exist; ` +
        'give a Kafka partition directory or a loglab log directory',
      { file: dir },
    );
  }
  const target = segmentsToDumpOrRefuse(io, dir);
  const logs = target.baseOffsets.filter((base) =>
    io.exists(path.join(dir, segmentFileName(base, LOG_SUFFIX))),
  );
  if (logs.length === 0) {
    throw new StorageError(
      'LOG_NOT_FOUND',
      `segment stats: ${dir} holds no segments ` +
        '(<20 digits>.log); give a Kafka partition directory (topic-N) or a loglab log directory',
      { file: dir },
    );
  }
  return { ...target, baseOffsets: logs };
}

function segmentsToDumpOrRefuse(io: FileIO, dir: string): DumpTarget {
  let target: DumpTarget;
  try {
    target = segmentsToDump(io, dir);
  } catch (error) {
    const isFile = error instanceof StorageError && error.context.reason === 'ENOTDIR';
    if (!isFile) throw error;
    notADirectory(dir);
  }
  if (!target.wholeLog) notADirectory(dir);
  return target;
}

function notADirectory(dir: string): never {
  throw new StorageError(
    'INVALID_SEGMENT_FILE',
    `segment stats: ${dir} is a file, not a ` +
      'directory; give the directory that holds the segments',
    { file: dir },
  );
}

function readKafka(io: FileIO, target: DumpTarget, tally: Tally): void {
  target.baseOffsets.forEach((baseOffset, slot) => {
    const logPath = path.join(target.dir, segmentFileName(baseOffset, LOG_SUFFIX));
    const isLast = slot === target.baseOffsets.length - 1;
    const starts: number[] = [];
    const walk = walkKafkaSegment(io, logPath, { decodeRecords: true });
    let step = walk.next();
    for (; step.done !== true; step = walk.next()) {
      const walked = step.value;
      if (walked.batch === null || walked.problem !== null) throw damaged(logPath, walked);
      starts.push(walked.positionBytes);
      addBatch(tally, walked.batch, walked.frame.sizeBytes);
    }
    const { tail } = step.value;
    if (tail !== null) {
      if (!isLast && !tail.zeros) {
        throw damagedSegmentBatch(logPath, tail.positionBytes, tail.problem, ADVICE);
      }
      tally.ignoredTail = { file: logPath, ...tail, reason: tail.problem };
    }
    const entries = indexPositions(io, target.dir, baseOffset);
    tally.indexEntries += entries.length;
    tally.bounds.addSegment(starts, entries);
  });
}

const ADVICE =
  'the statistics would leave it out unseen: check the directory with ' +
  '`loglab dump DIR --verify`, and read a copy without the damaged segment, or a replica';

function damaged(logPath: string, walked: WalkedBatch): StorageError {
  return damagedSegmentBatch(logPath, walked.positionBytes, walked.problem ?? 'unreadable', ADVICE);
}

function addBatch(tally: Tally, batch: KafkaBatch, storedBytes: number): void {
  tally.logBytes += storedBytes;
  tally.batchBytes.add(storedBytes);
  tally.recordsPerBatch.add(batch.records.length);
  const uncompressedBytes =
    batch.compression === 'none'
      ? storedBytes
      : BATCH_HEADER_BYTES + encodeRecords(batch.records).length;
  const codec = codecTally(tally, batch.compression);
  codec.batches++;
  codec.storedBytes += storedBytes;
  codec.uncompressedBytes += uncompressedBytes;
  for (const record of batch.records) {
    const valueBytes = record.value?.length ?? 0;
    let headerBytes = 0;
    for (const header of record.headers ?? []) {
      headerBytes += header.key.length + (header.value?.length ?? 0);
    }
    tally.valueBytes.add(valueBytes);
    tally.recordBytes.add((record.key?.length ?? 0) + valueBytes + headerBytes);
    const timestampMs = recordTimestampMs(batch, record);
    if (timestampMs >= 0) {
      tally.firstMs = Math.min(tally.firstMs, timestampMs);
      tally.lastMs = Math.max(tally.lastMs, timestampMs);
      tally.timedRecords++;
    }
  }
}

/** Positions of a segment's offset index entries, up to the first zero entry after the first. */
function indexPositions(io: FileIO, dir: string, baseOffset: number): number[] {
  const bytes = io.readWholeFile(path.join(dir, segmentFileName(baseOffset, INDEX_SUFFIX)));
  const positions: number[] = [];
  if (bytes === null) return positions;
  for (let at = 0; at + OFFSET_INDEX_ENTRY_BYTES <= bytes.length; at += OFFSET_INDEX_ENTRY_BYTES) {
    if (bytes.readInt32BE(at) === 0 && at > 0) break;
    positions.push(bytes.readInt32BE(at + 4));
  }
  return positions;
}

/** A loglab log: each record is its own "batch" of one, stored uncompressed. */
function readLoglab(io: FileIO, target: DumpTarget, tally: Tally): void {
  const options = { records: true, index: true, timeIndex: true, verify: false };
  const starts = new Map<string, number[]>();
  const entries = new Map<string, number[]>();
  const timed: { timestampMs: number; offset: number }[] = [];
  /** Where each segment's last record ended: a record starting further on follows a gap. */
  const ends = new Map<string, number>();
  let damage: { file: string; position: number; sizeBytes: number; problem: string } | null = null;
  for (const entry of dumpLog(io, target, options)) {
    if (entry.type === 'record' && !entry.valid) {
      damage ??= {
        file: path.join(target.dir, entry.segment),
        position: entry.position,
        sizeBytes: entry.sizeBytes,
        problem: entry.problem ?? 'invalid',
      };
    } else if (entry.type === 'record') {
      if (damage !== null) throw corruptRecord(damage);
      const list = starts.get(entry.segment) ?? [];
      list.push(entry.position);
      starts.set(entry.segment, list);
      const gapBytes = entry.position - (ends.get(entry.segment) ?? 0);
      ends.set(entry.segment, entry.position + entry.sizeBytes);
      addLoglabRecord(tally, entry.sizeBytes, gapBytes);
    } else if (entry.type === 'index') {
      const list = entries.get(entry.segment.replace(INDEX_SUFFIX, LOG_SUFFIX)) ?? [];
      list.push(entry.position);
      entries.set(entry.segment.replace(INDEX_SUFFIX, LOG_SUFFIX), list);
    } else if (entry.type === 'timeindex') {
      timed.push({ timestampMs: entry.timestampMs, offset: entry.offset });
    }
  }
  if (damage !== null) {
    const { file, position: positionBytes, sizeBytes, problem: reason } = damage;
    tally.ignoredTail = { file, positionBytes, sizeBytes, zeros: false, reason };
  }
  for (const [segment, positions] of starts) {
    const indexed = entries.get(segment) ?? [];
    tally.indexEntries += indexed.length;
    tally.bounds.addSegment(positions, indexed);
  }
  timeFromIndex(tally, timed);
}

function codecTally(tally: Tally, codec: string): CodecTally {
  let found = tally.codecs.get(codec);
  if (found === undefined) {
    found = { batches: 0, storedBytes: 0, uncompressedBytes: 0 };
    tally.codecs.set(codec, found);
  }
  return found;
}

function addLoglabRecord(tally: Tally, sizeBytes: number, gapBytes: number): void {
  tally.logBytes += gapBytes + sizeBytes;
  tally.recordBytes.add(sizeBytes);
  tally.valueBytes.add(sizeBytes - RECORD_HEADER_BYTES);
  tally.batchBytes.add(sizeBytes);
  tally.recordsPerBatch.add(1);
  const codec = codecTally(tally, 'none');
  codec.batches++;
  codec.storedBytes += sizeBytes;
  codec.uncompressedBytes += sizeBytes;
}

/** loglab records hold no time: the time index's append times span the log instead. */
function timeFromIndex(
  tally: Tally,
  timed: readonly { timestampMs: number; offset: number }[],
): void {
  const first = timed[0];
  const last = timed[timed.length - 1];
  if (first === undefined || last === undefined || last.offset <= first.offset) return;
  tally.firstMs = first.timestampMs;
  tally.lastMs = last.timestampMs;
  tally.timedRecords = last.offset - first.offset + 1;
}

function corruptRecord(damage: { file: string; position: number; problem: string }): StorageError {
  return new StorageError(
    'CORRUPT_RECORD',
    `segment stats: the record at byte ${damage.position} of ${damage.file} is damaged ` +
      `(${damage.problem}); ${ADVICE}`,
    { file: damage.file, positionBytes: damage.position, reason: damage.problem },
  );
}

function summarize(format: SegmentFormat, target: DumpTarget, tally: Tally): SegmentStats {
  const records = tally.recordBytes.count;
  const codecs = [...tally.codecs].map(([codec, c]) => ({
    codec,
    ...c,
    ratio: c.uncompressedBytes / c.storedBytes,
  }));
  return {
    format,
    dir: target.dir,
    segments: target.baseOffsets.length,
    logBytes: tally.logBytes,
    batches: tally.batchBytes.count,
    records,
    recordBytes: tally.recordBytes.summary(),
    valueBytes: tally.valueBytes.summary(),
    batchBytes: tally.batchBytes.summary(),
    recordsPerBatch: tally.recordsPerBatch.summary(),
    storedBytesPerRecord: tally.logBytes / records,
    codecs,
    indexEntries: tally.indexEntries,
    indexEntriesPerMiB: tally.indexEntries / (tally.logBytes / MiB),
    indexInterval: tally.indexEntries === 0 ? null : tally.bounds.result(),
    time: timeSpan(tally),
    ignoredTail: tally.ignoredTail,
  };
}

function timeSpan(tally: Tally): TimeSpan | null {
  if (tally.timedRecords === 0) return null;
  const spanSeconds = (tally.lastMs - tally.firstMs) / 1000;
  const ratePerSec = spanSeconds > 0 ? (tally.timedRecords - 1) / spanSeconds : null;
  return { firstMs: tally.firstMs, lastMs: tally.lastMs, spanSeconds, ratePerSec };
}
