/**
 * Outside events in the crash loop (issue 14): what a second process or an operator does to a
 * log while it runs or between a power cut and the reopen. Each is drawn with a small probability
 * from the iteration's own stream of events, seeded from its seed: an iteration replays exactly
 * from its seed, and one that draws no event runs the operations and crashes it ran before events
 * existed (the events never draw from the operations' stream).
 *
 * - A second writer, while the target is open (all three targets): opening it again on the same
 *   disk must throw LOG_LOCKED (QUEUE_LOCKED for a queue), leave no handle or lock behind and change nothing the open target
 *   or the model could see. An injected fault or power cut that fires inside the attempt may end
 *   it first with an I/O error instead.
 * - A removed segment or a renamed one, after a crash (log and log-queue): the reopen must refuse
 *   with the chain's error; put back, the log must open and the model's checks pass. A removed
 *   segment is a middle one (the first is retention's to remove), or the last one when the
 *   recovery point vouches for records in it: then LOG_GAP is what chooseScanStart promises. The
 *   last segment under a roll's empty point, or a lone segment, is not removed: the open cannot
 *   tell it from a segment a crash lost before anything was written to it. A renamed segment is
 *   one whose first record is sound (SEGMENT_NAME_MISMATCH); its .index and .timeindex go with it.
 * - 64 bytes, zeros or random, appended to a sealed segment: the log opens, reports them in
 *   `recovery.findings` and serves nothing from them (the model's checks).
 * - The recovery point moved to a record boundary that a clean walk of a segment's records from
 *   its start reaches, in the last segment or any other: the point agrees with the data, so it is
 *   trusted; the log opens and the model's checks pass.
 * Every change is synced (file data, then the directory) so a power cut keeps it.
 *
 * Why this file is over 450 lines: each outside event is a short recipe (do it, expect the
 * refusal, put it back, check) over the same drawn state and counts; the events are the list
 * above, and one file per event would repeat that state's plumbing five times.
 */
import * as path from 'node:path';
import type { StorageErrorCode } from '../errors.js';
import { isStorageError } from '../errors.js';
import type { Log } from '../log/log.js';
import {
  checkRecord,
  DEFAULT_MAX_RECORD_BYTES,
  frameSizeAt,
  RECORD_HEADER_BYTES,
} from '../record/record.js';
import {
  readRecoveryPoint,
  writeRecoveryPoint,
  type RecoveryPoint,
} from '../segments/recovery-point.js';
import {
  INDEX_SUFFIX,
  LOG_SUFFIX,
  parseSegmentFileName,
  segmentFileName,
  TIME_INDEX_SUFFIX,
} from '../segments/segment-files.js';
import type { SimDisk } from '../sim/sim-disk.js';
import { SeededRandom } from '../sim/prng.js';
import { describeError, isPowerCut, type OpenTarget } from './crash-target.js';

/** Probabilities: per round for the second writer, per reopen after a crash for the others. */
export const OUTSIDE_EVENT_RATES = {
  secondWriterPerRound: 0.1,
  appendedBytesPerReopen: 0.05,
  movedPointPerReopen: 0.05,
  removedSegmentPerReopen: 0.04,
  renamedSegmentPerReopen: 0.03,
} as const;

const APPENDED_BYTES = 64;
/** How far from its own base a renamed segment's new base offset lies, at most. */
const RENAME_DISTANCE_MAX = 64;
const SEGMENT_SUFFIXES = [LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX] as const;
/** Mixed into the seed for the events' stream: it must differ from the operations' stream. */
const EVENT_STREAM_SALT = 0x6f75_7473; // "outs"
const FNV_OFFSET_BASIS = 0x811c_9dc5;
const FNV_PRIME = 0x0100_0193;

export interface OutsideCounts {
  secondWriter: number;
  removedMiddle: number;
  removedLast: number;
  renamed: number;
  appendedBytes: number;
  movedPoint: number;
  /** Events whose outcome was not the expected one; each is a violation too. */
  unexpected: number;
}

export function emptyOutsideCounts(): OutsideCounts {
  return {
    secondWriter: 0,
    removedMiddle: 0,
    removedLast: 0,
    renamed: 0,
    appendedBytes: 0,
    movedPoint: 0,
    unexpected: 0,
  };
}

export function addOutsideCounts(total: OutsideCounts, more: OutsideCounts): void {
  total.secondWriter += more.secondWriter;
  total.removedMiddle += more.removedMiddle;
  total.removedLast += more.removedLast;
  total.renamed += more.renamed;
  total.appendedBytes += more.appendedBytes;
  total.movedPoint += more.movedPoint;
  total.unexpected += more.unexpected;
}

export function formatOutsideCounts(counts: OutsideCounts): string {
  const outcome =
    counts.unexpected === 0
      ? 'all refused or handled as expected'
      : `${counts.unexpected} NOT as expected`;
  return (
    `outside events: ${counts.secondWriter} second-writer, ` +
    `${counts.removedMiddle + counts.removedLast} removed segments ` +
    `(${counts.removedLast} of them the last), ${counts.renamed} renamed, ` +
    `${counts.appendedBytes} appended-to, ${counts.movedPoint} moved recovery points, ${outcome}`
  );
}

/** Opens the target on the disk the loop holds now (a driver's open, bound). */
export type OpenAgain = () => OpenTarget;

/** The files of one segment as they were, to put back after a removal. */
export type SavedFiles = ReadonlyArray<readonly [string, Buffer]>;

export class OutsideEvents {
  readonly counts = emptyOutsideCounts();
  /** What was done, in order: printed with a failing iteration's violations. */
  readonly done: string[] = [];
  readonly #rng: SeededRandom;
  readonly #violate: (text: string) => void;
  /** Sealed segments bytes were appended to, until a reopen succeeds and reports them. */
  readonly #appended = new Set<string>();
  /** The point was moved since the last reopen: the next one must trust it. */
  #pointMoved = false;

  /**
   * `seed` and `caseName` (target and policy) choose the events: one seed gives each case its own
   * events, as it gives each its own operations.
   */
  constructor(seed: number, caseName: string, violate: (text: string) => void) {
    const mixed = new SeededRandom(seed).nextU32() ^ EVENT_STREAM_SALT ^ fnv1a32(caseName);
    this.#rng = new SeededRandom(mixed >>> 0);
    this.#violate = violate;
  }

  /** An event went otherwise than expected: what follows would only repeat it. */
  get failed(): boolean {
    return this.counts.unexpected > 0;
  }

  /** Drawn once per round of `steps` steps: before which step a second writer tries, or null. */
  secondWriterStep(steps: number): number | null {
    if (!this.#rng.chance(OUTSIDE_EVENT_RATES.secondWriterPerRound)) return null;
    return this.#rng.nextInt(steps);
  }

  /** A second open of the target while it is open: `lockedCode`, and nothing left behind. */
  async secondWriter(
    disk: SimDisk,
    openAgain: OpenAgain,
    lockedCode: 'LOG_LOCKED' | 'QUEUE_LOCKED',
    where: string,
  ): Promise<void> {
    this.counts.secondWriter++;
    this.done.push(`${where}: a second writer`);
    const handlesBefore = disk.openHandles;
    const locksBefore = disk.heldLocks;
    const faultsBefore = disk.faultsInjected;
    let second: OpenTarget;
    try {
      second = openAgain();
    } catch (error) {
      if (isPowerCut(error)) return;
      const faulted = disk.faultsInjected > faultsBefore && isStorageError(error, 'IO_ERROR');
      if (!isStorageError(error, lockedCode) && !faulted) {
        this.#unexpected(
          `${where}: a second writer's open threw ${describeError(error)}, ` +
            `expected ${lockedCode}`,
        );
      }
      if (disk.openHandles !== handlesBefore || disk.heldLocks !== locksBefore) {
        const handles = disk.openHandles - handlesBefore;
        this.#unexpected(
          `${where}: a refused second writer left ${handles} handles and ` +
            `${disk.heldLocks - locksBefore} locks behind`,
        );
      }
      return;
    }
    this.#unexpected(`${where}: a second writer opened the target while it was open`);
    await closeQuietly(second);
  }

  /** After a crash, before the reopen: the events on the log in `dir`, each drawn alone. */
  async betweenRounds(
    disk: SimDisk,
    dir: string,
    openAgain: OpenAgain,
    where: string,
  ): Promise<void> {
    const rng = this.#rng;
    const rates = OUTSIDE_EVENT_RATES;
    const appendBytes = rng.chance(rates.appendedBytesPerReopen);
    const movePoint = rng.chance(rates.movedPointPerReopen);
    const remove = rng.chance(rates.removedSegmentPerReopen);
    const rename = !remove && rng.chance(rates.renamedSegmentPerReopen);
    if (!(appendBytes || movePoint || remove || rename) || !disk.exists(dir)) return;
    const bases = segmentBases(disk, dir);
    if (appendBytes) this.#appendBytes(disk, dir, bases, where);
    if (movePoint) this.#movePoint(disk, dir, bases, where);
    if (remove) await this.#removeSegment(disk, dir, bases, openAgain, where);
    if (rename) await this.#renameSegment(disk, dir, bases, openAgain, where);
  }

  /**
   * The reopen after the events lost power: what it may have saved meanwhile (a new recovery
   * point) is not the point moved here. Appended bytes stay, and the next reopen reports them.
   */
  reopenCut(): void {
    this.#pointMoved = false;
  }

  /** After a reopen that succeeded: what the events since the last one require of it. */
  checkReopen(log: Log | null, where: string): void {
    const moved = this.#pointMoved;
    this.#pointMoved = false;
    const appended = [...this.#appended];
    this.#appended.clear();
    if (log === null) return;
    const { recovery } = log;
    if (moved && recovery.recoveryPointProblem !== null) {
      this.#unexpected(
        `${where}: a recovery point moved to a record boundary was not trusted ` +
          `(${recovery.recoveryPointProblem})`,
      );
    }
    const segments = log.segments().map((segment) => segment.logPath);
    for (const logPath of appended) {
      const sealed = segments.includes(logPath) && logPath !== segments[segments.length - 1];
      const reported = recovery.findings.some(
        (finding) =>
          finding.segment === logPath &&
          (finding.kind === 'trailing-zeros' || finding.kind === 'trailing-bytes'),
      );
      if (sealed && !reported) {
        this.#unexpected(
          `${where}: the bytes appended to ${logPath} were not reported ` +
            `(warnings: ${JSON.stringify(recovery.warnings)})`,
        );
      }
    }
  }

  /** 64 zeros or random bytes at the end of a sealed segment, synced. */
  #appendBytes(disk: SimDisk, dir: string, bases: readonly number[], where: string): void {
    if (bases.length < 2) return;
    const base = bases[this.#rng.nextInt(bases.length - 1)]!;
    const logPath = path.posix.join(dir, segmentFileName(base, LOG_SUFFIX));
    const bytes = Buffer.alloc(APPENDED_BYTES);
    const random = this.#rng.chance(0.5);
    if (random) this.#rng.fillBytes(bytes);
    const handle = disk.open(logPath, { create: false });
    try {
      const endBytes = disk.sizeBytes(handle);
      this.done.push(
        `${where}: ${bytes.length} ${random ? 'random' : 'zero'} bytes appended to ` +
          `segment ${base} at position ${endBytes}`,
      );
      disk.write(handle, bytes, 0, bytes.length, endBytes);
      disk.fdatasync(handle);
    } finally {
      disk.close(handle);
    }
    this.counts.appendedBytes++;
    this.#appended.add(logPath);
  }

  /**
   * The recovery point at a record boundary of the last segment (half the time) or of any. A
   * point must be one the data agrees with: it vouches for every segment before its own, and
   * only the segment it names may end short of the next one (under `none` a roll may seal a
   * segment before its sync, and a crash can cut it short). So while a sealed segment ends
   * short, the point moves within that segment only, keeping what the saved point said of it.
   */
  #movePoint(disk: SimDisk, dir: string, bases: readonly number[], where: string): void {
    if (bases.length === 0) return;
    let furthest = 0;
    while (furthest + 1 < bases.length && isWhole(disk, dir, bases, furthest)) furthest++;
    const short = furthest + 1 < bases.length;
    const anySlot = short ? furthest : this.#rng.nextInt(bases.length);
    const base = bases[this.#rng.chance(0.5) ? furthest : anySlot]!;
    const boundary = this.#rng.pick(recordBoundaries(disk, dir, base));
    const saved = readRecoveryPoint(disk, dir);
    const kept =
      saved !== null && !('unreadable' in saved) && saved.segmentBaseOffset === base ? saved : {};
    const point: RecoveryPoint = { ...kept, ...boundary };
    this.done.push(
      `${where}: recovery point moved from ${describePoint(saved)} to ${describePoint(point)}`,
    );
    writeRecoveryPoint(disk, dir, point);
    this.counts.movedPoint++;
    this.#pointMoved = true;
  }

  /** A middle segment, or the last when the point vouches for records in it; then put back. */
  async #removeSegment(
    disk: SimDisk,
    dir: string,
    bases: readonly number[],
    openAgain: OpenAgain,
    where: string,
  ): Promise<void> {
    const lastBase = bases.length >= 2 ? bases[bases.length - 1]! : null;
    const point = readRecoveryPoint(disk, dir);
    const lastVouched = lastBase !== null && vouchesForRecordsIn(point, lastBase);
    const middles = bases.slice(1, -1);
    const removeLast = lastVouched && (middles.length === 0 || this.#rng.chance(0.5));
    if (!removeLast && middles.length === 0) return;
    const base = removeLast ? lastBase! : this.#rng.pick(middles);
    const what = `with ${removeLast ? 'the last' : 'a middle'} segment ${base} removed`;
    this.done.push(`${where}: reopened ${what}, then put back`);
    const saved = removeFiles(disk, dir, base);
    await this.#expectRefusal(disk, openAgain, 'LOG_GAP', `${where}: the reopen ${what}`);
    restoreFiles(disk, dir, saved);
    if (removeLast) this.counts.removedLast++;
    else this.counts.removedMiddle++;
  }

  /** A segment with a sound first record, renamed to an unused base offset; then back. */
  async #renameSegment(
    disk: SimDisk,
    dir: string,
    bases: readonly number[],
    openAgain: OpenAgain,
    where: string,
  ): Promise<void> {
    const named = bases.filter((base) => firstRecordIsSound(disk, dir, base));
    if (named.length === 0) return;
    const base = this.#rng.pick(named);
    const distance = 1 + this.#rng.nextInt(RENAME_DISTANCE_MAX);
    const down = base - distance >= 0 && this.#rng.chance(0.5);
    const renamed = down ? base - distance : base + distance;
    if (bases.includes(renamed)) return;
    this.done.push(`${where}: reopened with segment ${base} renamed to ${renamed}, then back`);
    renameSegment(disk, dir, base, renamed);
    const what = `${where}: the reopen with segment ${base} renamed to ${renamed}`;
    await this.#expectRefusal(disk, openAgain, 'SEGMENT_NAME_MISMATCH', what);
    renameSegment(disk, dir, renamed, base);
    this.counts.renamed++;
  }

  /** The open must throw `code` and leave no handle or lock behind; a success is closed again. */
  async #expectRefusal(
    disk: SimDisk,
    openAgain: OpenAgain,
    code: StorageErrorCode,
    what: string,
  ): Promise<void> {
    let target: OpenTarget;
    try {
      target = openAgain();
    } catch (error) {
      if (!isStorageError(error, code)) {
        this.#unexpected(`${what} threw ${describeError(error)}, expected ${code}`);
      }
      if (disk.openHandles !== 0 || disk.heldLocks !== 0) {
        this.#unexpected(`${what} left ${disk.openHandles} handles and ${disk.heldLocks} locks`);
      }
      return;
    }
    this.#unexpected(
      `${what} succeeded (offsets ${target.log?.startOffset} to ` +
        `${target.endKey - 1}), expected ${code}`,
    );
    await closeQuietly(target);
  }

  #unexpected(text: string): void {
    this.counts.unexpected++;
    this.#violate(text);
  }
}

/** The point names segment `base` and is not a roll's empty point (log-loader's rule). */
function vouchesForRecordsIn(
  point: RecoveryPoint | { unreadable: string } | null,
  base: number,
): boolean {
  if (point === null || 'unreadable' in point || point.segmentBaseOffset !== base) return false;
  return !(point.positionBytes === 0 && point.nextOffset === base);
}

function fnv1a32(text: string): number {
  let hash = FNV_OFFSET_BASIS;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME);
  return hash >>> 0;
}

function describePoint(point: RecoveryPoint | { unreadable: string } | null): string {
  if (point === null) return 'none';
  if ('unreadable' in point) return `an unreadable point (${point.unreadable})`;
  const { segmentBaseOffset, positionBytes, nextOffset, ...more } = point;
  const flags = Object.keys(more).length === 0 ? '' : `, ${JSON.stringify(more)}`;
  return (
    `(segment ${segmentBaseOffset}, position ${positionBytes}, next offset ${nextOffset}` +
    `${flags})`
  );
}

export function segmentBases(disk: SimDisk, dir: string): number[] {
  const bases: number[] = [];
  for (const name of disk.list(dir)) {
    const parsed = parseSegmentFileName(dir, name);
    if (parsed !== null && parsed.suffix === LOG_SUFFIX) bases.push(parsed.baseOffset);
  }
  return bases.sort((a, b) => a - b);
}

function logBytes(disk: SimDisk, dir: string, base: number): Buffer {
  return (
    disk.readWholeFile(path.posix.join(dir, segmentFileName(base, LOG_SUFFIX))) ?? Buffer.alloc(0)
  );
}

/** Every record boundary a clean walk from the segment's start reaches, its start included. */
export function recordBoundaries(disk: SimDisk, dir: string, base: number): RecoveryPoint[] {
  const bytes = logBytes(disk, dir, base);
  const boundaries: RecoveryPoint[] = [];
  let positionBytes = 0;
  let nextOffset = base;
  for (;;) {
    boundaries.push({ segmentBaseOffset: base, positionBytes, nextOffset });
    const size = soundRecordSize(bytes, positionBytes, nextOffset);
    if (size === null) return boundaries;
    positionBytes += size;
    nextOffset++;
  }
}

/** The size of record `offset` at `at` when it is whole and sound; else null. */
function soundRecordSize(bytes: Buffer, at: number, offset: number | undefined): number | null {
  if (at + RECORD_HEADER_BYTES > bytes.length) return null;
  const size = frameSizeAt(bytes, at, DEFAULT_MAX_RECORD_BYTES);
  if (typeof size === 'string' || at + size > bytes.length) return null;
  return checkRecord(bytes, at, size, offset) === null ? size : null;
}

/** Segment `slot`'s records, walked clean from its start, reach the next segment's base. */
function isWhole(disk: SimDisk, dir: string, bases: readonly number[], slot: number): boolean {
  const boundaries = recordBoundaries(disk, dir, bases[slot]!);
  return boundaries[boundaries.length - 1]!.nextOffset === bases[slot + 1];
}

function firstRecordIsSound(disk: SimDisk, dir: string, base: number): boolean {
  return soundRecordSize(logBytes(disk, dir, base), 0, undefined) !== null;
}

function segmentPaths(dir: string, base: number): string[] {
  return SEGMENT_SUFFIXES.map((suffix) => path.posix.join(dir, segmentFileName(base, suffix)));
}

/** Removes the segment's files durably; returns their contents to put back. */
export function removeFiles(disk: SimDisk, dir: string, base: number): SavedFiles {
  const saved: Array<readonly [string, Buffer]> = [];
  for (const filePath of segmentPaths(dir, base)) {
    const bytes = disk.readWholeFile(filePath);
    if (bytes === null) continue;
    saved.push([filePath, bytes]);
    disk.unlink(filePath);
  }
  disk.fsyncDir(dir);
  return saved;
}

/** Writes the saved files again, each synced, then their names. */
export function restoreFiles(disk: SimDisk, dir: string, saved: SavedFiles): void {
  for (const [filePath, bytes] of saved) {
    const handle = disk.open(filePath, { create: true });
    try {
      disk.write(handle, bytes, 0, bytes.length, 0);
      disk.fdatasync(handle);
    } finally {
      disk.close(handle);
    }
  }
  disk.fsyncDir(dir);
}

/** Renames the segment's files (those that exist) from base `from` to base `to`, durably. */
export function renameSegment(disk: SimDisk, dir: string, from: number, to: number): void {
  const targets = segmentPaths(dir, to);
  segmentPaths(dir, from).forEach((source, i) => {
    if (disk.exists(source)) disk.rename(source, targets[i]!);
  });
  disk.fsyncDir(dir);
}

async function closeQuietly(target: OpenTarget): Promise<void> {
  try {
    await target.close();
  } catch {
    // Already reported: the open should not have succeeded.
  }
}
