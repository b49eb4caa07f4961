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
 * Entries are data (formatted by the CLI); text formatting lives here too so the one place
 * that knows Kafka's field order is this file. `verify` adds the checks Kafka's tool makes
 * (an index entry's position is a batch whose last offset is the entry's; a time entry names a
 * batch's last offset and its max timestamp, timestamps increasing) and the ones its recovery
 * makes (every batch's CRC and records, offsets increasing through the directory, no damaged
 * bytes after the last batch). A problem is a `problem` field on the entry it concerns.
 * Zeros after the last batch (a preallocated segment, or index entries a broker had not yet
 * trimmed) are reported and are not damage; Kafka's dump stops at the first zero index entry.
 */
import * as path from 'node:path';
import type { FileIO } from './file-io.js';
import { INDEX_SUFFIX, LOG_SUFFIX, TIME_INDEX_SUFFIX, segmentFileName } from './segment.js';
import { OFFSET_INDEX_ENTRY_BYTES } from './offset-index.js';
import { TIME_INDEX_ENTRY_BYTES } from './time-index.js';
import type { KafkaBatch, KafkaRecord } from './kafka-batch.js';
import { recordTimestampMs } from './batched-segment-lookup.js';
import { type WalkedBatch, walkKafkaSegment } from './kafka-segment-walk.js';

export type KafkaCheckedKind = 'batch' | 'record' | 'index' | 'timeindex';

export type KafkaTimestampName = 'CreateTime' | 'LogAppendTime';

export interface KafkaDumpedFile {
  readonly type: 'file';
  readonly file: string;
  /** The base offset its name says (Kafka's "Log starting offset"). */
  readonly startOffset: number;
}

export interface KafkaDumpedBatch {
  readonly type: 'batch';
  readonly file: string;
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly count: number;
  readonly baseSequence: number;
  readonly lastSequence: number;
  /** An i64: a string when beyond 2^53 - 1. */
  readonly producerId: number | string;
  readonly producerEpoch: number;
  readonly partitionLeaderEpoch: number;
  readonly isTransactional: boolean;
  readonly isControl: boolean;
  /** Null: the batch has no delete horizon (Kafka prints OptionalLong.empty). */
  readonly deleteHorizonMs: number | null;
  readonly position: number;
  readonly timestampType: KafkaTimestampName;
  /** The batch's max timestamp, as Kafka prints it after the timestamp type. */
  readonly timestampMs: number;
  readonly sizeBytes: number;
  readonly magic: number;
  readonly compresscodec: string;
  readonly crc: number;
  /** Kafka's isvalid: the CRC holds. */
  readonly isvalid: boolean;
  readonly problem?: string;
}

export interface KafkaDumpedRecord {
  readonly type: 'record';
  readonly file: string;
  readonly offset: number;
  readonly timestampType: KafkaTimestampName;
  readonly timestampMs: number;
  readonly keySizeBytes: number;
  readonly valueSizeBytes: number;
  readonly sequence: number;
  readonly headerKeys: readonly string[];
  /** Present with `payloads`, when the record has one (UTF-8, as Kafka's StringDecoder). */
  readonly key?: string;
  readonly payload?: string;
  /** A control batch's record: what it marks (Kafka's endTxnMarker / controlType). */
  readonly control?: string;
}

export interface KafkaDumpedIndexEntry {
  readonly type: 'index';
  readonly file: string;
  readonly offset: number;
  readonly position: number;
  readonly problem?: string;
}

export interface KafkaDumpedTimeIndexEntry {
  readonly type: 'timeindex';
  readonly file: string;
  readonly timestampMs: number;
  readonly offset: number;
  readonly problem?: string;
}

/** Bytes after the last batch (Kafka: "Found N invalid bytes at the end of F"). */
export interface KafkaDumpedTail {
  readonly type: 'tail';
  readonly file: string;
  readonly position: number;
  readonly sizeBytes: number;
  readonly zeros: boolean;
  readonly problem: string;
}

export type KafkaDumpEntry =
  | KafkaDumpedFile
  | KafkaDumpedBatch
  | KafkaDumpedRecord
  | KafkaDumpedIndexEntry
  | KafkaDumpedTimeIndexEntry
  | KafkaDumpedTail;

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

/** Offsets and timestamps the walk of a `.log` found: what index entries are checked against. */
interface BatchMap {
  /** position → the batch there. */
  readonly atPosition: Map<number, { lastOffset: number }>;
  /** last offset → the batch's max timestamp. */
  readonly maxTimestampAt: Map<number, number>;
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

function batchEntry(file: string, walked: WalkedBatch, problem: string | null): KafkaDumpedBatch {
  const { frame, header } = walked;
  const baseSequence = header?.baseSequence ?? -1;
  const lastSequence =
    baseSequence < 0 ? -1 : incrementSequence(baseSequence, frame.lastOffset - frame.baseOffset);
  const producerId = header?.producerId ?? -1n;
  const entry: KafkaDumpedBatch = {
    type: 'batch',
    file,
    baseOffset: frame.baseOffset,
    lastOffset: frame.lastOffset,
    count: frame.recordCount,
    baseSequence,
    lastSequence,
    producerId: producerId <= MAX_SAFE ? Number(producerId) : String(producerId),
    producerEpoch: header?.producerEpoch ?? -1,
    partitionLeaderEpoch: header?.partitionLeaderEpoch ?? -1,
    isTransactional: header?.isTransactional ?? false,
    isControl: header?.isControl ?? false,
    deleteHorizonMs: header?.hasDeleteHorizon === true ? header.baseTimestampMs : null,
    position: walked.positionBytes,
    timestampType: header?.timestampType === 'log-append' ? 'LogAppendTime' : 'CreateTime',
    timestampMs: frame.maxTimestampMs,
    sizeBytes: frame.sizeBytes,
    magic: header?.magic ?? 2,
    compresscodec: walked.codec,
    crc: header?.crc ?? 0,
    isvalid: walked.crcValid,
  };
  return problem === null ? entry : { ...entry, problem };
}

/** Kafka's DefaultRecordBatch.incrementSequence: sequences wrap at 2^31 - 1 to 0. */
function incrementSequence(sequence: number, increment: number): number {
  const max = 0x7fff_ffff;
  return sequence > max - increment ? increment - (max - sequence) - 1 : sequence + increment;
}

function* recordEntries(
  file: string,
  batch: KafkaBatch,
  baseOffset: number,
  payloads: boolean,
): Generator<KafkaDumpedRecord> {
  const timestampType = batch.timestampType === 'log-append' ? 'LogAppendTime' : 'CreateTime';
  for (const record of batch.records) {
    const sequence =
      batch.baseSequence < 0 ? -1 : incrementSequence(batch.baseSequence, record.offsetDelta);
    const entry: KafkaDumpedRecord = {
      type: 'record',
      file,
      offset: baseOffset + record.offsetDelta,
      timestampType,
      timestampMs: recordTimestampMs(batch, record),
      keySizeBytes: record.key?.length ?? -1,
      valueSizeBytes: record.value?.length ?? -1,
      sequence,
      headerKeys: (record.headers ?? []).map((h) => utf8(h.key)),
    };
    yield { ...entry, ...recordContents(batch, record, payloads) };
  }
}

/** A control record's marker, else (with payloads) its key and value as UTF-8. */
function recordContents(
  batch: KafkaBatch,
  record: KafkaRecord,
  payloads: boolean,
): { key?: string; payload?: string; control?: string } {
  if (batch.isControl) return { control: controlMarker(record) };
  if (!payloads) return {};
  return {
    ...(record.key === null ? {} : { key: utf8(record.key) }),
    ...(record.value === null ? {} : { payload: utf8(record.value) }),
  };
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

const CONTROL_TYPES = [
  'ABORT',
  'COMMIT',
  'LEADER_CHANGE',
  'SNAPSHOT_HEADER',
  'SNAPSHOT_FOOTER',
  'KRAFT_VERSION',
  'KRAFT_VOTERS',
];

/**
 * Kafka's control records: key = version i16, type i16; a transaction marker's value =
 * version i16, coordinator epoch i32. Markers of other types are named, not decoded.
 */
function controlMarker(record: KafkaRecord): string {
  const key = record.key;
  const typeId = key !== null && key.length >= 4 ? Buffer.from(key).readInt16BE(2) : -1;
  const name = CONTROL_TYPES[typeId] ?? 'UNKNOWN';
  const value = record.value;
  if ((name === 'ABORT' || name === 'COMMIT') && value !== null && value.length >= 6) {
    return `endTxnMarker: ${name} coordinatorEpoch: ${Buffer.from(value).readInt32BE(2)}`;
  }
  return `controlType: ${name}(${typeId})`;
}

function utf8(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/**
 * Offset index entries (relative offset i32, position i32). As Kafka's dump, a zero entry after
 * the first ends the index (the preallocated rest of an active segment's index).
 */
function* dumpOffsetIndex(
  io: FileIO,
  indexPath: string,
  baseOffset: number,
  map: BatchMap | null,
): Generator<KafkaDumpedIndexEntry> {
  const file = path.basename(indexPath);
  const bytes = io.readWholeFile(indexPath);
  if (bytes === null) return;
  let previous = { offset: -1, position: -1 };
  for (let at = 0; at + OFFSET_INDEX_ENTRY_BYTES <= bytes.length; at += OFFSET_INDEX_ENTRY_BYTES) {
    const relative = bytes.readInt32BE(at);
    if (relative === 0 && at > 0) return;
    const position = bytes.readInt32BE(at + 4);
    const entry = { type: 'index' as const, file, offset: baseOffset + relative, position };
    const problem = map === null ? null : indexProblem(entry, previous, map);
    previous = entry;
    yield problem === null ? entry : { ...entry, problem };
  }
  if (map !== null && bytes.length % OFFSET_INDEX_ENTRY_BYTES !== 0) {
    const position = bytes.length - (bytes.length % OFFSET_INDEX_ENTRY_BYTES);
    const problem = `a partial entry of ${bytes.length - position} bytes at the end`;
    yield { type: 'index', file, offset: -1, position, problem };
  }
}

function indexProblem(
  entry: { offset: number; position: number },
  previous: { offset: number; position: number },
  map: BatchMap,
): string | null {
  if (entry.offset <= previous.offset || entry.position <= previous.position) {
    return (
      `not above the entry before it (offset ${previous.offset}, ` +
      `position ${previous.position})`
    );
  }
  const batch = map.atPosition.get(entry.position);
  if (batch === undefined) return `position ${entry.position} is not the start of a batch`;
  if (batch.lastOffset !== entry.offset) {
    return (
      `the batch at position ${entry.position} ends at offset ${batch.lastOffset}, ` +
      `not ${entry.offset}`
    );
  }
  return null;
}

/** Time index entries (timestamp i64, relative offset i32); the same zero-entry rule. */
function* dumpTimeIndex(
  io: FileIO,
  timeIndexPath: string,
  baseOffset: number,
  map: BatchMap | null,
): Generator<KafkaDumpedTimeIndexEntry> {
  const file = path.basename(timeIndexPath);
  const bytes = io.readWholeFile(timeIndexPath);
  if (bytes === null) return;
  let previousMs = -1;
  for (let at = 0; at + TIME_INDEX_ENTRY_BYTES <= bytes.length; at += TIME_INDEX_ENTRY_BYTES) {
    const relative = bytes.readInt32BE(at + 8);
    if (relative === 0 && at > 0) return;
    const entry = {
      type: 'timeindex' as const,
      file,
      timestampMs: Number(bytes.readBigInt64BE(at)),
      offset: baseOffset + relative,
    };
    const problem = map === null ? null : timeIndexProblem(entry, previousMs, map);
    previousMs = entry.timestampMs;
    yield problem === null ? entry : { ...entry, problem };
  }
}

function timeIndexProblem(
  entry: { timestampMs: number; offset: number },
  previousMs: number,
  map: BatchMap,
): string | null {
  if (entry.timestampMs <= previousMs) {
    return `timestamp ${entry.timestampMs} is not above the ${previousMs} of the entry before it`;
  }
  const maxMs = map.maxTimestampAt.get(entry.offset);
  if (maxMs === undefined) return `offset ${entry.offset} is not the last offset of a batch`;
  if (maxMs !== entry.timestampMs) {
    return (
      `the batch ending at offset ${entry.offset} has max timestamp ${maxMs}, ` +
      `not ${entry.timestampMs}`
    );
  }
  return null;
}

/** One entry as `kafka-dump-log.sh` prints it; `dir` names the files as it does. */
export function formatKafkaEntry(entry: KafkaDumpEntry, dir: string): string {
  const problem =
    'problem' in entry && entry.problem !== undefined && entry.type !== 'tail'
      ? ` problem: ${entry.problem}`
      : '';
  switch (entry.type) {
    case 'file': {
      const dumping = `Dumping ${path.join(dir, entry.file)}`;
      if (!entry.file.endsWith(LOG_SUFFIX)) return dumping;
      return `${dumping}\nLog starting offset: ${entry.startOffset}`;
    }
    case 'batch':
      return formatBatch(entry) + problem;
    case 'record':
      return formatRecord(entry);
    case 'index':
      return `offset: ${entry.offset} position: ${entry.position}${problem}`;
    case 'timeindex':
      return `timestamp: ${entry.timestampMs} offset: ${entry.offset}${problem}`;
    case 'tail':
      return entry.zeros
        ? `Found ${entry.sizeBytes} zero bytes at the end of ${entry.file} (preallocated, no batch)`
        : `Found ${entry.sizeBytes} invalid bytes at the end of ${entry.file} (position ` +
            `${entry.position}: ${entry.problem})`;
  }
}

function formatBatch(b: KafkaDumpedBatch): string {
  const horizon =
    b.deleteHorizonMs === null ? 'OptionalLong.empty' : `OptionalLong[${b.deleteHorizonMs}]`;
  return (
    `baseOffset: ${b.baseOffset} lastOffset: ${b.lastOffset} count: ${b.count} ` +
    `baseSequence: ${b.baseSequence} lastSequence: ${b.lastSequence} producerId: ${b.producerId} ` +
    `producerEpoch: ${b.producerEpoch} partitionLeaderEpoch: ${b.partitionLeaderEpoch} ` +
    `isTransactional: ${b.isTransactional} isControl: ${b.isControl} deleteHorizonMs: ${horizon} ` +
    `position: ${b.position} ${b.timestampType}: ${b.timestampMs} size: ${b.sizeBytes} ` +
    `magic: ${b.magic} compresscodec: ${b.compresscodec} crc: ${b.crc} isvalid: ${b.isvalid}`
  );
}

function formatRecord(r: KafkaDumpedRecord): string {
  let line =
    `| offset: ${r.offset} ${r.timestampType}: ${r.timestampMs} ` +
    `keySize: ${r.keySizeBytes} valueSize: ${r.valueSizeBytes} sequence: ${r.sequence} ` +
    `headerKeys: [${r.headerKeys.join(',')}]`;
  if (r.control !== undefined) line += ` ${r.control}`;
  if (r.key !== undefined) line += ` key: ${r.key}`;
  if (r.payload !== undefined) line += ` payload: ${r.payload}`;
  return line;
}

/** An entry `verify` fails on: a problem, or damaged bytes after the last batch. */
export function isKafkaProblem(entry: KafkaDumpEntry): boolean {
  if (entry.type === 'tail') return !entry.zeros;
  return 'problem' in entry && entry.problem !== undefined;
}
