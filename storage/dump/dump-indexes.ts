/**
 * A dump's index and time-index entries (dump.ts), read from the files as they are, with absolute
 * offsets.
 */
import * as path from 'node:path';
import type { FileIO } from '../io/file-io.js';
import type { DumpedIndexEntry, DumpedTimeIndexEntry } from './dump-entries.js';
import { OFFSET_INDEX_ENTRY_BYTES } from '../segments/offset-index.js';
import { readU64 } from '../big-endian.js';
import { INDEX_SUFFIX, TIME_INDEX_SUFFIX, segmentFileName } from '../segments/segment-files.js';
import { TIME_INDEX_ENTRY_BYTES } from '../segments/time-index.js';

/** `startOffset`: what the entries' relative offsets count from (a renamed file's first offset). */
export function* dumpIndex(
  io: FileIO,
  dir: string,
  baseOffset: number,
  startOffset: number,
): Generator<DumpedIndexEntry> {
  const name = segmentFileName(baseOffset, INDEX_SUFFIX);
  const bytes = io.readWholeFile(path.join(dir, name));
  if (bytes === null) return;
  for (let at = 0; at + OFFSET_INDEX_ENTRY_BYTES <= bytes.length; at += OFFSET_INDEX_ENTRY_BYTES) {
    const offset = startOffset + bytes.readUInt32BE(at);
    yield { type: 'index', segment: name, offset, position: bytes.readUInt32BE(at + 4) };
  }
}

export function* dumpTimeIndex(
  io: FileIO,
  dir: string,
  baseOffset: number,
  startOffset: number,
): Generator<DumpedTimeIndexEntry> {
  const name = segmentFileName(baseOffset, TIME_INDEX_SUFFIX);
  const bytes = io.readWholeFile(path.join(dir, name));
  if (bytes === null) return;
  for (let at = 0; at + TIME_INDEX_ENTRY_BYTES <= bytes.length; at += TIME_INDEX_ENTRY_BYTES) {
    const offset = startOffset + bytes.readUInt32BE(at + 8);
    yield { type: 'timeindex', segment: name, timestampMs: readU64(bytes, at), offset };
  }
}
