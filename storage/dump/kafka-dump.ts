/**
 * `loglab dump` of a Kafka partition directory or segment file: what Kafka's
 * `kafka-dump-log.sh --files F --print-data-log` prints (its DumpLogSegments), entry by entry,
 * with the same field names in the same order:
 *
 *   baseOffset: 0 lastOffset: 2 count: 3 baseSequence: -1 lastSequence: -1 producerId: -1
 *   producerEpoch: -1 partitionLeaderEpoch: -1 isTransactional: false isControl: false
 *   deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1700000000014 size: 152
 *   magic: 2 compresscodec: none crc: 2863832745 isvalid: true            (one line a batch)
 *   | offset: 0 CreateTime: 1700000000000 keySize: -1 valueSize: 40 sequence: -1
 *   headerKeys: [h] payload: {"event":0,...}                              (one line a record)
 *   offset: 77 position: 16377                                            (.index)
 *   timestamp: 1700000000546 offset: 77                                   (.timeindex)
 *
 * Entries are data (formatted by the CLI); they and their text formatting live in
 * kafka-dump-entries.ts, the one place that knows Kafka's field order; the index entries and
 * their checks in kafka-dump-indexes.ts. `verify` adds the checks Kafka's tool makes
 * (an index entry's position is a batch whose last offset is the entry's; a time entry names a
 * batch's last offset and its max timestamp, timestamps increasing) and the ones its recovery
 * makes (every batch's CRC and records, offsets increasing through the directory, no damaged
 * bytes after the last batch). A problem is a `problem` field on the entry it concerns.
 * Zeros after the last batch (a preallocated segment, or index entries a broker had not yet
 * trimmed) are reported and are not damage; Kafka's dump stops at the first zero index entry.
 */
import * as path from 'node:path';
import type { FileIO } from '../io/file-io.js';
import {
  INDEX_SUFFIX,
  LOG_SUFFIX,
  TIME_INDEX_SUFFIX,
  segmentFileName,
} from '../segments/segment-files.js';
import {
  type KafkaCheckedKind,
  type KafkaDumpEntry,
  batchEntry,
  recordEntries,
} from './kafka-dump-entries.js';
import { type BatchMap, dumpOffsetIndex, dumpTimeIndex } from './kafka-dump-indexes.js';
import { type WalkedBatch, walkKafkaSegment } from '../kafka/kafka-segment-walk.js';

export interface KafkaDumpOptions {
  /** Batch lines of `.log` files. */
  readonly batches: boolean;
  /** A line per record (Kafka's --deep-iteration). */
  readonly records: boolean;
  /** Keys and payloads on record lines (Kafka's --print-data-log). */
  readonly payloads: boolean;
  readonly index: boolean;
  readonly timeIndex: boolean;
  /** Decode every batch and check both indexes against the batches. */
  readonly verify: boolean;
  /** Told about every batch, record and index entry read, printed or not. */
  readonly onChecked?: (type: KafkaCheckedKind, count: number) => void;
}

/** Which segments, and which of their files, to read. */
export interface KafkaDumpTarget {
  readonly dir: string;
  readonly baseOffsets: readonly number[];
}

/** The state carried from segment to segment: offsets must keep increasing. */
interface Chain {
  lastOffset: number;
  lastFile: string | null;
}

/** Every entry of the target's segments, in the order of their base offsets. */
export function* dumpKafkaSegments(
  io: FileIO,
  target: KafkaDumpTarget,
  options: KafkaDumpOptions,
): Generator<KafkaDumpEntry> {
  const chain: Chain = { lastOffset: -1, lastFile: null };
  for (const baseOffset of target.baseOffsets) {
    yield* dumpSegment(io, target.dir, baseOffset, options, chain);
  }
}

function* dumpSegment(
  io: FileIO,
  dir: string,
  baseOffset: number,
  options: KafkaDumpOptions,
  chain: Chain,
): Generator<KafkaDumpEntry> {
  const logName = segmentFileName(baseOffset, LOG_SUFFIX);
  const logPath = path.join(dir, logName);
  const hasLog = io.exists(logPath);
  const map: BatchMap = { atPosition: new Map(), maxTimestampAt: new Map() };
  if (hasLog && (options.batches || options.verify)) {
    if (options.batches) yield { type: 'file', file: logName, startOffset: baseOffset };
    yield* dumpLogFile(io, logPath, baseOffset, options, chain, map);
  }
  const checkAgainst = options.verify && hasLog ? map : null;
  const indexes = [
    { print: options.index, suffix: INDEX_SUFFIX, read: dumpOffsetIndex, kind: 'index' as const },
    {
      print: options.timeIndex,
      suffix: TIME_INDEX_SUFFIX,
      read: dumpTimeIndex,
      kind: 'timeindex' as const,
    },
  ];
  for (const index of indexes) {
    if (!index.print && !options.verify) continue;
    const name = segmentFileName(baseOffset, index.suffix);
    if (index.print) yield { type: 'file', file: name, startOffset: baseOffset };
    for (const entry of index.read(io, path.join(dir, name), baseOffset, checkAgainst)) {
      options.onChecked?.(index.kind, 1);
      if (index.print || entry.problem !== undefined) yield entry;
    }
  }
}

function* dumpLogFile(
  io: FileIO,
  logPath: string,
  baseOffset: number,
  options: KafkaDumpOptions,
  chain: Chain,
  map: BatchMap,
): Generator<KafkaDumpEntry> {
  const file = path.basename(logPath);
  const decodeRecords = options.records || options.verify;
  const walk = walkKafkaSegment(io, logPath, { decodeRecords });
  let step = walk.next();
  for (; step.done !== true; step = walk.next()) {
    const walked = step.value;
    const problem = walked.problem ?? chainProblem(walked, baseOffset, chain, file);
    map.atPosition.set(walked.positionBytes, { lastOffset: walked.frame.lastOffset });
    map.maxTimestampAt.set(walked.frame.lastOffset, walked.frame.maxTimestampMs);
    chain.lastOffset = Math.max(chain.lastOffset, walked.frame.lastOffset);
    chain.lastFile = file;
    options.onChecked?.('batch', 1);
    options.onChecked?.('record', walked.batch?.records.length ?? 0);
    if (options.batches || problem !== null) yield batchEntry(file, walked, problem);
    if (options.records && walked.batch !== null) {
      yield* recordEntries(file, walked.batch, walked.frame.baseOffset, options.payloads);
    }
  }
  const { tail } = step.value;
  if (tail !== null && (options.batches || !tail.zeros)) {
    const { positionBytes: position, sizeBytes, zeros, problem } = tail;
    yield { type: 'tail', file, position, sizeBytes, zeros, problem };
  }
}

/** Offsets must rise through the directory, and a segment holds none below its name's. */
function chainProblem(
  walked: WalkedBatch,
  baseOffset: number,
  chain: Chain,
  file: string,
): string | null {
  const first = walked.frame.baseOffset;
  if (first < baseOffset) {
    return `base offset ${first} is below the ${baseOffset} the file name says`;
  }
  if (first > chain.lastOffset) return null;
  const where =
    chain.lastFile === null || chain.lastFile === file ? 'a batch before it' : chain.lastFile;
  return `base offset ${first} is not above offset ${chain.lastOffset} of ${where}`;
}
