/**
 * File surgery on a log directory, done on purpose: the states recovery must handle, made by
 * editing files instead of hoping a crash makes them. Experiments and tests call these so that
 * none of them builds a segment's or the recovery point's path itself, and a change of layout
 * is made here once.
 *
 * Plain node:fs, synchronous, on a log that is closed (or, for `saveTail` and the size
 * helpers, not being written): the edits bypass the log's FileIO, its lock and its fsyncs, which
 * is the point. Nothing here is part of the stable API (storage/testing/index.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assert } from '../errors.js';
import {
  RECOVERY_POINT_FILE,
  parseSegmentFileName,
  INDEX_SUFFIX,
  LOG_SUFFIX,
  type SegmentPaths,
  segmentPaths,
} from '../segments/segment-files.js';

/** A segment's three files, in the order they are linked: log, offset index, time index. */
const SEGMENT_FILES = ['log', 'index', 'timeIndex'] as const;

/** The path of the recovery point file in log directory `dir`. */
export function recoveryPointPath(dir: string): string {
  return path.join(dir, RECOVERY_POINT_FILE);
}

/** The recovery point file's bytes, to put back later with `restoreRecoveryPoint`. */
export function saveRecoveryPoint(dir: string): Buffer {
  return fs.readFileSync(recoveryPointPath(dir));
}

/**
 * Puts back a recovery point `saveRecoveryPoint` returned, replacing whatever is there; null
 * leaves the directory without one (removing it when present).
 */
export function restoreRecoveryPoint(dir: string, saved: Buffer | null): void {
  const pointPath = recoveryPointPath(dir);
  if (saved === null) fs.rmSync(pointPath, { force: true });
  else fs.writeFileSync(pointPath, saved);
}

/**
 * Removes the recovery point, so the next open checks the whole active segment record by
 * record (as after a crash whose last recovery point is the roll's). Throws when there is none:
 * a log that saved no point would make the figure measure something else.
 */
export function dropRecoveryPoint(dir: string): void {
  fs.rmSync(recoveryPointPath(dir));
}

/** The paths of the `.log`, `.index` and `.timeindex` files of segment `baseOffset` in `dir`. */
export function segmentFilePaths(dir: string, baseOffset: number): SegmentPaths {
  return segmentPaths(dir, baseOffset);
}

/**
 * The names of the segment files (`.log`, `.index`, `.timeindex`) in `dir`, in directory order;
 * a name that looks like a segment's but is not 20 digits throws INVALID_SEGMENT_FILE.
 */
export function segmentFileNamesIn(dir: string): string[] {
  return fs.readdirSync(dir).filter((name) => parseSegmentFileName(dir, name) !== null);
}

/** Bytes on disk of a log directory's segment files, summed per kind of file. */
export interface SegmentFilesBytes {
  readonly logBytes: number;
  readonly indexBytes: number;
  readonly timeIndexBytes: number;
}

/**
 * The sizes of every segment's `.log`, `.index` and `.timeindex` in `dir`, summed per kind: what
 * the log and its indexes take on disk (a preallocated `.log` counts its zeros).
 */
export function segmentFilesBytes(dir: string): SegmentFilesBytes {
  let logBytes = 0;
  let indexBytes = 0;
  let timeIndexBytes = 0;
  for (const name of fs.readdirSync(dir)) {
    const suffix = parseSegmentFileName(dir, name)?.suffix;
    if (suffix === undefined) continue;
    const sizeBytes = fs.statSync(path.join(dir, name)).size;
    if (suffix === LOG_SUFFIX) logBytes += sizeBytes;
    else if (suffix === INDEX_SUFFIX) indexBytes += sizeBytes;
    else timeIndexBytes += sizeBytes;
  }
  return { logBytes, indexBytes, timeIndexBytes };
}

/**
 * Hard-links the three files of segment `baseOffset` of log directory `fromDir` into `toDir`
 * (same names): a log of many sealed segments without writing them again.
 */
export function linkSegmentFiles(fromDir: string, toDir: string, baseOffset: number): void {
  const from = segmentFilePaths(fromDir, baseOffset);
  const to = segmentFilePaths(toDir, baseOffset);
  for (const file of SEGMENT_FILES) fs.linkSync(from[file], to[file]);
}

/** Bytes of segment `baseOffset`'s offset index file (`.index`) as it is on disk. */
export function offsetIndexFileBytes(dir: string, baseOffset: number): number {
  return fs.statSync(segmentFilePaths(dir, baseOffset).index).size;
}

/**
 * Removes segment `baseOffset`'s offset index file, so the log rebuilds it from the `.log` on
 * the segment's first lookup. Throws when it is missing.
 */
export function dropOffsetIndex(dir: string, baseOffset: number): void {
  fs.rmSync(segmentFilePaths(dir, baseOffset).index);
}

/** Copies segment `baseOffset`'s offset index file to `toPath`, to search a copy on disk. */
export function copyOffsetIndex(dir: string, baseOffset: number, toPath: string): void {
  fs.copyFileSync(segmentFilePaths(dir, baseOffset).index, toPath);
}

/** The last bytes of a segment's `.log`, saved to be put back whole or torn. */
export interface SavedTail {
  readonly logPath: string;
  /** Where the saved bytes start in the file. */
  readonly positionBytes: number;
  readonly bytes: Buffer;
}

/**
 * Saves `lengthBytes` of the `.log` at `logPath` from `positionBytes` (usually the last record):
 * `tearTail` and `restoreTail` put them back. A file shorter than that throws.
 */
export function saveTail(logPath: string, positionBytes: number, lengthBytes: number): SavedTail {
  assert(Number.isSafeInteger(positionBytes) && positionBytes >= 0, 'position is a byte index');
  assert(Number.isSafeInteger(lengthBytes) && lengthBytes > 0, 'a tail holds bytes');
  const bytes = Buffer.alloc(lengthBytes);
  const fd = fs.openSync(logPath, 'r');
  try {
    const got = fs.readSync(fd, bytes, 0, lengthBytes, positionBytes);
    assert(got === lengthBytes, `${logPath} holds ${lengthBytes} bytes at ${positionBytes}`);
  } finally {
    fs.closeSync(fd);
  }
  return { logPath, positionBytes, bytes };
}

/**
 * Writes the saved tail back whole, then cuts the file `tornBytes` before the tail's end: a
 * record torn by a crash in the middle of its write. `tornBytes` 0 leaves it whole (see
 * `restoreTail`). Whatever followed the tail in the file is cut too.
 */
export function tearTail(tail: SavedTail, tornBytes: number): void {
  assert(Number.isSafeInteger(tornBytes) && tornBytes >= 0, 'torn bytes are a count');
  assert(tornBytes <= tail.bytes.length, 'a tear cuts into the saved tail only');
  const fd = fs.openSync(tail.logPath, 'r+');
  try {
    fs.writeSync(fd, tail.bytes, 0, tail.bytes.length, tail.positionBytes);
    fs.ftruncateSync(fd, tail.positionBytes + tail.bytes.length - tornBytes);
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes the saved tail back whole and ends the file with it, undoing `tearTail`. */
export function restoreTail(tail: SavedTail): void {
  tearTail(tail, 0);
}

/** A log directory's file names and recovery point, to undo what one operation added. */
export interface LogDirSnapshot {
  readonly dir: string;
  readonly names: ReadonlySet<string>;
  readonly recoveryPoint: Buffer;
}

/**
 * Records the recovery point and the file names of a closed log's directory, so that
 * `rewindLogDir` can undo an operation that adds files (a roll). Throws when there is no
 * recovery point.
 */
export function snapshotLogDir(dir: string): LogDirSnapshot {
  const recoveryPoint = saveRecoveryPoint(dir);
  return { dir, names: new Set(fs.readdirSync(dir)), recoveryPoint };
}

/**
 * Removes every file that appeared in the directory since `snapshot` and puts its recovery point
 * back. Files that were there are left as they are now: a roll's edits to the segment it sealed
 * stay.
 */
export function rewindLogDir(snapshot: LogDirSnapshot): void {
  for (const name of fs.readdirSync(snapshot.dir)) {
    if (!snapshot.names.has(name)) fs.rmSync(path.join(snapshot.dir, name));
  }
  fs.writeFileSync(recoveryPointPath(snapshot.dir), snapshot.recoveryPoint);
}
