/**
 * The names of the files in a log directory. A segment's three are named by its base offset
 * (Kafka's names): the log, its offset index and its time index. Both segment kinds (segment.ts,
 * batched-log-segment.ts) and the log's retention name and remove them through here. Beside the
 * segments stand single files, each replaced whole (atomic-file.ts): the recovery point, the
 * record limit and design B's saved head.
 *
 * Beside them a log under `always` or `group` may hold one spare: the `.log` of a segment
 * retention removed, kept under SPARE_SEGMENT_FILE for the next roll to rename into place
 * instead of zero-filling a new file (log.ts, segment reuse). Its name is not a segment's, so
 * listings, the chain check and `loglab dump` pass it by.
 */
import * as path from 'node:path';
import { StorageError } from '../errors.js';
import type { FileIO } from '../io/file-io.js';

export const LOG_SUFFIX = '.log';
export const INDEX_SUFFIX = '.index';
export const TIME_INDEX_SUFFIX = '.timeindex';
export const BASE_OFFSET_DIGITS = 20;
/** The spare segment file's name in the log directory: no digits, no segment suffix. */
export const SPARE_SEGMENT_FILE = 'spare-segment';
/**
 * Where a spare is laid out (zero-filled on the thread pool, spare-segment.ts) before it is
 * renamed to SPARE_SEGMENT_FILE: a file under this name is never a whole spare.
 */
export const SPARE_LAYOUT_FILE = 'spare-segment.layout';

/** Where the last sync left the log whole (recovery-point.ts). */
export const RECOVERY_POINT_FILE = 'recovery-point';
/** The largest record the log was opened for (log/record-limit.ts). */
export const RECORD_LIMIT_FILE = 'record-limit';
/** Design B's saved head, beside its log's segments (queue/head-checkpoint.ts). */
export const HEAD_CHECKPOINT_FILE = 'head';

export function segmentFileName(baseOffset: number, suffix: string): string {
  return `${String(baseOffset).padStart(BASE_OFFSET_DIGITS, '0')}${suffix}`;
}

export interface SegmentPaths {
  readonly log: string;
  readonly index: string;
  readonly timeIndex: string;
}

export function segmentPaths(dir: string, baseOffset: number): SegmentPaths {
  return {
    log: path.join(dir, segmentFileName(baseOffset, LOG_SUFFIX)),
    index: path.join(dir, segmentFileName(baseOffset, INDEX_SUFFIX)),
    timeIndex: path.join(dir, segmentFileName(baseOffset, TIME_INDEX_SUFFIX)),
  };
}

/** Unlinks whichever of the three files exist; the caller fsyncs the directory. */
export function removeSegmentFiles(io: FileIO, paths: SegmentPaths): void {
  for (const file of [paths.log, paths.index, paths.timeIndex]) {
    if (io.exists(file)) io.unlink(file);
  }
}

export function sparePath(dir: string): string {
  return path.join(dir, SPARE_SEGMENT_FILE);
}

export function spareLayoutPath(dir: string): string {
  return path.join(dir, SPARE_LAYOUT_FILE);
}

/**
 * The names that may share a segment's file: a power cut in the middle of a rename between a
 * segment's name and the spare's can leave both (log.ts; a writable open unlinks the spare's).
 */
export function spareNames(dir: string): string[] {
  return [sparePath(dir), spareLayoutPath(dir)];
}

const SEGMENT_FILE = /^(\d+)\.(log|index|timeindex)$/;

/**
 * The base offset a file name claims, null for files that are not the log's. A name that looks
 * like a segment (digits, a segment suffix) but is not 20 digits is an error naming the file.
 */
export function parseSegmentFileName(
  dir: string,
  name: string,
): { baseOffset: number; suffix: string } | null {
  const match = SEGMENT_FILE.exec(name);
  if (match === null) return null;
  const digits = match[1]!;
  const baseOffset = Number(digits);
  if (digits.length !== BASE_OFFSET_DIGITS || !Number.isSafeInteger(baseOffset)) {
    throw new StorageError(
      'INVALID_SEGMENT_FILE',
      `${path.join(dir, name)} looks like a segment but its base offset is not 20 digits; ` +
        'rename or move it out of the log directory',
      { file: path.join(dir, name) },
    );
  }
  return { baseOffset, suffix: `.${match[2]!}` };
}

/** The base offsets of the segments in `dir`, named by their `.log` files, in ascending order. */
export function listSegmentBaseOffsets(io: FileIO, dir: string): number[] {
  const baseOffsets: number[] = [];
  for (const name of io.list(dir)) {
    const parsed = parseSegmentFileName(dir, name);
    if (parsed !== null && parsed.suffix === LOG_SUFFIX) baseOffsets.push(parsed.baseOffset);
  }
  return baseOffsets.sort((a, b) => a - b);
}
