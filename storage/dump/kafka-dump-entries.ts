/**
 * The entries of a Kafka dump (kafka-dump.ts) and how `kafka-dump-log.sh` prints them: the one
 * place that knows Kafka's field names and their order, from a batch or record to its line.
 */
import * as path from 'node:path';
import { type KafkaBatch, type KafkaRecord, recordTimestampMs } from '../kafka/kafka-batch.js';
import { LOG_SUFFIX } from '../segments/segment-files.js';
import type { WalkedBatch } from '../kafka/kafka-segment-walk.js';

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

export function batchEntry(
  file: string,
  walked: WalkedBatch,
  problem: string | null,
): KafkaDumpedBatch {
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

export function* recordEntries(
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
