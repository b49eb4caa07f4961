/**
 * The index and time-index entries of a Kafka dump (kafka-dump.ts), as Kafka's dump reads them
 * (a zero entry after the first ends the file), each checked under `verify` against the batches
 * the walk of the `.log` found.
 */
import * as path from 'node:path';
import type { FileIO } from '../io/file-io.js';
import type { KafkaDumpedIndexEntry, KafkaDumpedTimeIndexEntry } from './kafka-dump-entries.js';
import { OFFSET_INDEX_ENTRY_BYTES } from '../segments/offset-index.js';
import { TIME_INDEX_ENTRY_BYTES } from '../segments/time-index.js';

/** Offsets and timestamps the walk of a `.log` found: what index entries are checked against. */
export interface BatchMap {
  /** position → the batch there. */
  readonly atPosition: Map<number, { lastOffset: number }>;
  /** last offset → the batch's max timestamp. */
  readonly maxTimestampAt: Map<number, number>;
}

/**
 * Offset index entries (relative offset i32, position i32). As Kafka's dump, a zero entry after
 * the first ends the index (the preallocated rest of an active segment's index).
 */
export function* dumpOffsetIndex(
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
export function* dumpTimeIndex(
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
