/**
 * One segment of the log: `<base offset>.log` with its `.index` and `.timeindex`, the base offset
 * padded to 20 digits so that `ls` sorts files numerically (00000000000001245036.log).
 *
 * A segment owns its files and the sparse-index rule (the course, lesson 2; Kafka's
 * LogSegment.append): before a record is appended, if more than `indexIntervalBytes` were written
 * since the last entry, an entry is added for this record and the count restarts; then the record's
 * size is added to the count. `indexIntervalBytes === 0` means dense: an entry for every record.
 * The count needs no saving: it is the bytes from the last entry's position (or 0) to the end.
 */
import * as path from 'node:path';
import { type FileHandle, type FileIO, closeAfterFailure } from './file-io.js';
import { StorageError, assert } from './errors.js';
import { checkedSegmentEnd } from './segment-invariants.js';
import { OffsetIndex, type IndexMode } from './offset-index.js';
import { TimeIndex } from './time-index.js';
import { largestLowerBoundSlot } from './index-file.js';
import { ReadWindow } from './read-window.js';
import {
  BASE_OFFSET_DIGITS,
  type SegmentPaths,
  removeSegmentFiles,
  segmentPaths,
} from './segment-files.js';
import { type RecordStart, findRecordAfterDamage } from './resync.js';
import {
  RECORD_HEADER_BYTES,
  checkRecord,
  corruptRecord,
  decodeCheckedRecord,
  frameSizeAt,
  recordIdAt,
  type DecodedRecord,
  type FrameProblem,
} from './record.js';

export { INDEX_SUFFIX, LOG_SUFFIX, TIME_INDEX_SUFFIX, segmentFileName } from './segment-files.js';
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

export interface SegmentConfig {
  readonly indexIntervalBytes: number;
  readonly maxRecordBytes: number;
  /** Wall-clock time for time-index entries that are (re)written. */
  readonly nowMs: () => number;
  /**
   * Zero-fill the active segment's file up to this size ahead of the appends (0: grow as
   * written), so an fdatasync after an append does not also have to commit a new file size.
   */
  readonly preallocateBytes: number;
  /**
   * Preallocation runs this far ahead, not a whole segment at once: the append that crosses into
   * unallocated space waits for the extent's zeros and their fdatasync.
   */
  readonly preallocateExtentBytes: number;
  /** Files are opened read-only and never changed; indexes rebuilt only in memory. */
  readonly readOnly: boolean;
}

const ZERO_CHUNK_BYTES = 1 << 20;

/** Scans read this much at a time: few system calls, still small next to a segment. */
export const SCAN_WINDOW_BYTES = 1 << 20;

/** What a scan of a segment found. */
export interface ScanOptions {
  /** Add index entries for the records walked (recovery, index rebuild), timed now. */
  readonly reindex: boolean;
  /** Go on after a bad record, from the record after it (resync.ts), instead of stopping. */
  readonly skipDamaged?: boolean;
  /** Stop before the first good record this says yes to. */
  readonly stopAt?: (offset: number, positionBytes: number) => boolean;
  /** Walk no further than this position (default: the end of the data). */
  readonly endBytes?: number;
}

export interface ScanResult {
  /** Position after the last good record. */
  readonly endPositionBytes: number;
  /** Offset the next record would have. */
  readonly nextOffset: number;
  readonly records: number;
  /** Why the scan stopped before the end of the file, or null when it reached the end. */
  readonly problem: FrameProblem | null;
}

export interface SegmentRecord extends DecodedRecord {
  readonly positionBytes: number;
  readonly sizeBytes: number;
}

export interface IndexEntry {
  readonly relativeOffset: number;
  readonly positionBytes: number;
}

/** One lookup, step by step: what the index said and how far the walk went. */
export interface LookupWalk {
  readonly segmentBaseOffset: number;
  readonly relativeOffset: number;
  readonly indexEntries: number;
  /** Index entries compared by the binary search. */
  readonly comparisons: number;
  /** The largest entry at or below the target; null: the walk starts at position 0. */
  readonly indexEntry: IndexEntry | null;
  readonly nextIndexEntry: IndexEntry | null;
  readonly recordPositionBytes: number;
  readonly recordSizeBytes: number;
  /** Bytes read from the walk's start to the end of the target record. */
  readonly stepForwardBytes: number;
  /** Records read, the target included. */
  readonly recordsStepped: number;
}

/** An index entry that does not land on its record: the index is rebuilt, never trusted. */
class IndexEntryMismatch extends Error {}

/** A lookup window: one index interval and a record, rounded up to whole pages. */
const LOOKUP_WINDOW_BYTES = 8 * 1024;

export class Segment {
  readonly baseOffset: number;
  readonly #paths: SegmentPaths;
  readonly dir: string;
  readonly #io: FileIO;
  readonly #config: SegmentConfig;
  #logHandle: FileHandle | null;
  #sizeBytes: number;
  /** The file's physical size: larger than #sizeBytes while preallocated zeros follow the data. */
  #fileBytes: number;
  #nextOffset: number | null;
  #offsetIndex: OffsetIndex | null;
  #timeIndex: TimeIndex | null;
  #removed = false;

  private constructor(
    io: FileIO,
    dir: string,
    baseOffset: number,
    config: SegmentConfig,
    sizeBytes: number,
  ) {
    this.#io = io;
    this.dir = dir;
    this.baseOffset = baseOffset;
    this.#paths = segmentPaths(dir, baseOffset);
    this.#config = config;
    this.#sizeBytes = sizeBytes;
    this.#fileBytes = sizeBytes;
    this.#logHandle = null;
    this.#nextOffset = null;
    this.#offsetIndex = null;
    this.#timeIndex = null;
  }

  /** A new, empty active segment: three new files. */
  static create(io: FileIO, dir: string, baseOffset: number, config: SegmentConfig): Segment {
    const segment = new Segment(io, dir, baseOffset, config, 0);
    return segment.#orAbandon(() => {
      segment.#logHandle = io.open(segment.logPath, { create: true });
      io.truncate(segment.#logHandle, 0);
      segment.#nextOffset = baseOffset;
      segment.#offsetIndex = OffsetIndex.create(io, segment.indexPath);
      segment.#timeIndex = TimeIndex.create(io, segment.timeIndexPath);
    });
  }

  /**
   * A new, empty active segment in the spare's file (segment reuse, log.ts), or null when there is
   * no spare or it does not fit this configuration (it is unlinked then, and the caller creates a
   * new file; the caller's directory fsync makes the unlink durable). The spare's first record
   * header is zeroed and synced before the rename can give the file a segment's name, since a
   * rename may reach the device before the directory fsync asks for it: no crash can leave a
   * segment whose first record is a sound record of the older segment, which the chain check
   * would take for a renamed file. The older records after it stay where they are; their ids are
   * all below `baseOffset`, so no walk takes one for a record of this segment, and readers stop at
   * the end of the data. Preallocation starts at the spare's end, if an append ever gets there.
   */
  static recycled(
    io: FileIO,
    dir: string,
    baseOffset: number,
    config: SegmentConfig,
    spare: string,
  ): Segment | null {
    if (!io.exists(spare)) return null;
    const spareBytes = prepareSpare(io, spare, config);
    if (spareBytes === null) {
      io.unlink(spare);
      return null;
    }
    const segment = new Segment(io, dir, baseOffset, config, 0);
    io.rename(spare, segment.logPath);
    return segment.#orAbandon(() => {
      // Opened by its segment name, so a write trace names the file its records go to.
      segment.#logHandle = io.open(segment.logPath, { create: false });
      segment.#fileBytes = spareBytes;
      segment.#nextOffset = baseOffset;
      segment.#offsetIndex = OffsetIndex.create(io, segment.indexPath);
      segment.#timeIndex = TimeIndex.create(io, segment.timeIndexPath);
    });
  }

  /** An existing segment, opened lazily: files are read when first needed. */
  static existing(io: FileIO, dir: string, baseOffset: number, config: SegmentConfig): Segment {
    const segment = new Segment(io, dir, baseOffset, config, 0);
    return segment.#orAbandon(() => {
      segment.#logHandle = config.readOnly
        ? io.openReadOnly(segment.logPath)
        : io.open(segment.logPath, { create: false });
      segment.#sizeBytes = io.sizeBytes(segment.#logHandle);
      segment.#fileBytes = segment.#sizeBytes;
    });
  }

  /**
   * Closes every file of this segment without writing anything more, dropping failures to close:
   * for giving it up after another failure, which is the one to report.
   */
  abandon(): void {
    this.#offsetIndex?.abandon();
    this.#timeIndex?.abandon();
    const handle = this.#logHandle;
    this.#logHandle = null;
    if (handle !== null) closeAfterFailure(this.#io, handle);
  }

  /** Runs `open`; when it fails, closes what it had opened before rethrowing. */
  #orAbandon(open: () => void): Segment {
    try {
      open();
    } catch (error) {
      this.abandon();
      throw error;
    }
    return this;
  }

  get logPath(): string {
    return this.#paths.log;
  }

  get indexPath(): string {
    return this.#paths.index;
  }

  get timeIndexPath(): string {
    return this.#paths.timeIndex;
  }

  get paths(): SegmentPaths {
    return this.#paths;
  }

  /** Where this segment's records end: the file's size, less bytes found after a sealed end. */
  get sizeBytes(): number {
    return this.#sizeBytes;
  }

  /** The file's size; above sizeBytes while preallocated zeros or stray bytes follow the data. */
  get fileBytes(): number {
    return this.#fileBytes;
  }

  /**
   * A sealed segment whose records end before its file does (bytes were added after its last
   * record): readers stop at `dataEndBytes` and go on to the next segment. The file is left as it
   * is; the bytes are reported, never served.
   */
  endDataAt(dataEndBytes: number): void {
    assert(dataEndBytes <= this.#fileBytes, 'the data ends inside the file');
    this.#sizeBytes = dataEndBytes;
  }

  get handle(): FileHandle {
    if (this.#logHandle === null)
      throw new Error(`assertion failed: segment ${this.logPath} is open`);
    return this.#logHandle;
  }

  offsetIndex(): OffsetIndex {
    this.#ensureIndexes();
    return this.#offsetIndex!;
  }

  timeIndex(): TimeIndex {
    this.#ensureIndexes();
    return this.#timeIndex!;
  }

  /**
   * Writes already-encoded records at the end of the file, then applies the index rule to each
   * (log first, index after: a crash in between only leaves the index behind).
   */
  appendEncoded(buffer: Buffer, start: number, length: number): void {
    assert(this.#nextOffset !== null, 'segment is active');
    this.#io.write(this.handle, buffer, start, length, this.#sizeBytes);
    // The end moves once every record is indexed: an index write that fails part-way leaves the
    // segment ending where it did, for the fence to cut back to (activate drops the entries).
    let position = this.#sizeBytes;
    let offset = this.#nextOffset;
    const end = start + length;
    for (let at = start; at < end; ) {
      const size = frameSizeAt(buffer, at, this.#config.maxRecordBytes) as number;
      this.#indexRecord(offset, position);
      offset++;
      position += size;
      at += size;
    }
    assert(position - this.#sizeBytes === length, 'whole records fill the written bytes');
    this.#nextOffset = offset;
    this.#sizeBytes = position;
    this.#fileBytes = Math.max(this.#fileBytes, position);
  }

  /**
   * Whether retention may keep this segment's file as the spare: a sealed file holding exactly
   * its records, of a size a full segment of this configuration has (spareFits).
   */
  get fitsAsSpare(): boolean {
    return this.#fileBytes === this.#sizeBytes && spareFits(this.#fileBytes, this.#config);
  }

  /** True when appending `lengthBytes` would write past the preallocated space. */
  needsPreallocation(lengthBytes: number): boolean {
    return this.#config.preallocateBytes > 0 && this.#sizeBytes + lengthBytes > this.#fileBytes;
  }

  /**
   * Writes zeros after the preallocated space, one extent or as far as an append of
   * `lengthBytes` needs, so later appends overwrite allocated blocks. What lies from the end of
   * the data to the end of the file is zeros this segment wrote, or in a recycled file first the
   * older segment's records (Segment.recycled): opening a log cuts whatever followed the last
   * good record. The zeros are not synced here: the durability engine's next
   * fdatasync commits them and the file's new size with the appends it covers (on the thread
   * pool by default), and every sync after it commits data only. Syncing them here held the
   * event loop 4-8 ms per 4 MiB extent (docs/storage.md).
   */
  preallocate(lengthBytes: number): void {
    const from = this.#fileBytes;
    const target = Math.min(
      this.#config.preallocateBytes,
      Math.max(this.#sizeBytes + lengthBytes, from + this.#config.preallocateExtentBytes),
    );
    // Rolls keep appends within the segment size, which preallocation fills.
    assert(target >= this.#sizeBytes + lengthBytes, 'the append fits the preallocated segment');
    const zeros = Buffer.alloc(Math.min(ZERO_CHUNK_BYTES, target - from));
    for (let at = from; at < target; at += zeros.length) {
      this.#io.write(this.handle, zeros, 0, Math.min(zeros.length, target - at), at);
    }
    this.#fileBytes = target;
  }

  /**
   * Cuts preallocated space off the end (a roll or a clean close); the caller syncs. In a recycled
   * file that is the older segment's records too: a sealed segment then ends at its last record
   * as any other does, and a log closed cleanly opens without a tail to look at.
   */
  trim(): void {
    if (this.#fileBytes <= this.#sizeBytes) return;
    this.#io.truncate(this.handle, this.#sizeBytes);
    this.#fileBytes = this.#sizeBytes;
  }

  #indexRecord(offset: number, positionBytes: number): void {
    const offsetIndex = this.#offsetIndex!;
    const last = offsetIndex.entries - 1;
    const bytesSinceLastEntry = positionBytes - (last < 0 ? 0 : offsetIndex.positionAt(last));
    const interval = this.#config.indexIntervalBytes;
    if (interval !== 0 && bytesSinceLastEntry <= interval) return;
    const relativeOffset = offset - this.baseOffset;
    offsetIndex.append(relativeOffset, positionBytes);
    // A rebuilt offset index meets time entries that survived it: those keep their real times.
    const timeIndex = this.#timeIndex!;
    const lastTimed =
      timeIndex.entries === 0 ? -1 : timeIndex.relativeOffsetAt(timeIndex.entries - 1);
    if (relativeOffset > lastTimed) timeIndex.append(this.#config.nowMs(), relativeOffset);
  }

  get nextOffset(): number {
    assert(this.#nextOffset !== null, 'segment end is known (active or scanned)');
    return this.#nextOffset;
  }

  /**
   * Asserts what must hold between calls (Log.checkInvariants): the data inside the file, an end
   * known for the active segment and, where known for a sealed one, at the next segment's base,
   * and each loaded index inside the data. `nextBaseOffset`: the next segment's; null for the
   * active segment.
   */
  checkInvariants(nextBaseOffset: number | null): void {
    assert(this.#sizeBytes <= this.#fileBytes, `${this.logPath}: the data ends inside the file`);
    const end = checkedSegmentEnd(this.logPath, this.baseOffset, this.#nextOffset, nextBaseOffset);
    this.#offsetIndex?.checkEntries(this.#sizeBytes, end - this.baseOffset);
    this.#timeIndex?.checkEntries(end - this.baseOffset);
  }

  /**
   * Walks records from `fromPosition` (expecting `expectedOffset` there), validating length, CRC
   * and id, until the end of the file or the first bad record. With `reindex`, index entries are
   * added for the records walked (recovery, index rebuild), timed now. With `skipDamaged` (an
   * index rebuild of a segment a bit flip hit) the walk goes on after a bad record instead, from
   * the record after it (resync.ts); recovery stops, since a bad record there is a torn tail.
   */
  scan(
    window: ReadWindow,
    fromPosition: number,
    expectedOffset: number,
    options: ScanOptions,
  ): ScanResult {
    const { reindex, skipDamaged = false, stopAt } = options;
    const endBytes = Math.min(options.endBytes ?? this.#sizeBytes, this.#sizeBytes);
    window.bind(this.handle);
    let position = fromPosition;
    let offset = expectedOffset;
    let problem: FrameProblem | null = null;
    while (position < endBytes) {
      if (problem !== null && skipDamaged) {
        const resume = this.recordAfterDamage(window, position, offset);
        if (resume === null) break;
        problem = null;
        position = resume.positionBytes;
        offset = resume.offset;
      }
      const at = window.ensure(position, RECORD_HEADER_BYTES, this.#sizeBytes);
      if (at < 0) {
        problem = 'truncated';
        break;
      }
      const size = frameSizeAt(window.buffer, at, this.#config.maxRecordBytes);
      if (typeof size === 'string') {
        problem = size;
        if (skipDamaged) continue;
        break;
      }
      const whole = window.ensure(position, size, this.#sizeBytes);
      problem = whole < 0 ? 'truncated' : checkRecord(window.buffer, whole, size, offset);
      if (problem !== null) {
        if (skipDamaged) continue;
        break;
      }
      if (stopAt?.(offset, position) === true) break;
      if (reindex) this.#indexRecord(offset, position);
      position += size;
      offset++;
    }
    return {
      endPositionBytes: position,
      nextOffset: offset,
      records: offset - expectedOffset,
      problem,
    };
  }

  /** Makes this the active segment again after recovery found its end. */
  activate(endPositionBytes: number, nextOffset: number): void {
    this.#nextOffset = nextOffset;
    if (endPositionBytes < this.#sizeBytes && !this.#config.readOnly) {
      this.truncate(endPositionBytes);
      return;
    }
    // Read-only: the bytes after the end stay in the file, unread.
    this.#sizeBytes = Math.min(this.#sizeBytes, endPositionBytes);
    this.#dropIndexEntriesFrom(endPositionBytes);
  }

  /** Cuts the log file at `positionBytes` and drops index entries at or past it. */
  truncate(positionBytes: number): void {
    this.#io.truncate(this.handle, positionBytes);
    this.#sizeBytes = positionBytes;
    this.#fileBytes = positionBytes;
    this.#dropIndexEntriesFrom(positionBytes);
  }

  #dropIndexEntriesFrom(positionBytes: number): void {
    if (this.#offsetIndex === null) return;
    this.#offsetIndex.truncateFromPosition(positionBytes);
    const entries = this.#offsetIndex.entries;
    const nextRelative = entries === 0 ? 0 : this.#offsetIndex.relativeOffsetAt(entries - 1) + 1;
    this.#timeIndex!.truncateFromRelativeOffset(nextRelative);
  }

  /**
   * Loads the indexes of an existing segment for appends (the active segment during recovery),
   * keeping only offset entries below `trustedPositionBytes` and time entries below
   * `trustedNextOffset`; recovery re-derives the rest. A read-only log keeps them in memory.
   */
  loadIndexesForRecovery(trustedPositionBytes: number, trustedNextOffset: number): void {
    // A second load (the index turned out short) replaces the first one's files.
    this.#offsetIndex?.close();
    this.#timeIndex?.close();
    this.#offsetIndex = null;
    this.#timeIndex = null;
    const mode: IndexMode = this.#config.readOnly ? 'memory' : 'append';
    const offsetLoad = OffsetIndex.load(this.#io, this.indexPath, trustedPositionBytes, mode);
    this.#offsetIndex = offsetLoad.index;
    const nextRelative = trustedNextOffset - this.baseOffset;
    this.#timeIndex = TimeIndex.load(this.#io, this.timeIndexPath, nextRelative, mode).index;
    this.#timeIndex.truncateFromRelativeOffset(nextRelative);
  }

  /**
   * Whether the loaded offset index holds every entry the index rule puts below `endBytes`, as
   * far as two short walks can tell: from the start to the first entry, and from the last entry
   * to `endBytes`. A deleted index fails the first, a shortened one the second (Kafka rebuilds
   * a missing index file too). Entries written under another interval fail as well; the rebuild
   * then follows the interval in force.
   */
  indexCovers(window: ReadWindow, endBytes: number): boolean {
    const index = this.offsetIndex();
    const entries = index.entries;
    const firstExpected = this.#firstEntryPosition(window, endBytes);
    const firstFound = entries === 0 ? null : index.positionAt(0);
    if (firstExpected !== firstFound) return false;
    if (entries === 0) return true;
    return !this.#entryDueAfter(
      window,
      index.positionAt(entries - 1),
      this.baseOffset + index.relativeOffsetAt(entries - 1),
      endBytes,
    );
  }

  /** Where the rule puts the first entry (the first record past one interval); null: none below `endBytes`. */
  #firstEntryPosition(window: ReadWindow, endBytes: number): number | null {
    const interval = this.#config.indexIntervalBytes;
    let found: number | null = null;
    const stopAt = (_offset: number, position: number): boolean => {
      if (interval !== 0 && position <= interval) return false;
      found = position;
      return true;
    };
    this.scan(window, 0, this.baseOffset, { reindex: false, stopAt, endBytes });
    return found;
  }

  /** True when a record between the entry at `fromPosition` and `endBytes` should have had an entry. */
  #entryDueAfter(
    window: ReadWindow,
    fromPosition: number,
    fromOffset: number,
    endBytes: number,
  ): boolean {
    const interval = this.#config.indexIntervalBytes;
    let due = false;
    const stopAt = (_offset: number, position: number): boolean => {
      due = position !== fromPosition && (interval === 0 || position - fromPosition > interval);
      return due;
    };
    const walk = this.scan(window, fromPosition, fromOffset, { reindex: false, stopAt, endBytes });
    return due || (walk.problem !== null && walk.endPositionBytes < endBytes);
  }

  /**
   * Finds, checks and decodes the record for `offset`; throws CORRUPT_RECORD or returns null.
   * When the index entry the walk starts from does not land on its record, the index (a cache)
   * is wrong, not the log: it is rebuilt and the lookup tried once more.
   */
  find(window: ReadWindow, offset: number): SegmentRecord | null {
    try {
      return this.#walkTo(window, offset);
    } catch (error) {
      if (!(error instanceof IndexEntryMismatch)) throw error;
      this.#rebuildIndexes();
      return this.#walkTo(window, offset);
    }
  }

  /**
   * Steps from the index entry at or below `offset` by record lengths, checking only headers. A
   * bad header means a damaged record: that one, or the one before it if its length (stepped
   * over unchecked) is what led here. The damaged record is stepped over (resync.ts); the target
   * itself, or a target lost with a damaged record before it, is CORRUPT_RECORD.
   */
  #walkTo(window: ReadWindow, offset: number): SegmentRecord | null {
    const start = this.walkStart(offset);
    let position = start.positionBytes;
    let current = start.offset;
    let previous = -1;
    window.bind(this.handle);
    window.fill(position, start.endBytes - position, this.#sizeBytes);
    while (position !== this.#sizeBytes) {
      // Past the end: the length just stepped over was damaged (it still looked plausible).
      const size =
        position > this.#sizeBytes ? 'truncated' : this.#headerProblem(window, position, current);
      if (typeof size === 'number' && current === offset)
        return this.#decodeAt(window, position, size, offset);
      if (typeof size === 'number') {
        previous = position;
        position += size;
        current++;
        continue;
      }
      if (position === start.positionBytes && start.fromIndex) throw new IndexEntryMismatch();
      const before = previous < 0 ? null : this.#recordProblem(window, previous, current - 1);
      const damaged =
        before === null
          ? { position, offset: current, problem: size }
          : { position: previous, offset: current - 1, problem: before };
      if (damaged.offset === offset)
        throw corruptRecord(this.logPath, damaged.position, damaged.problem, offset);
      const resume = this.recordAfterDamage(window, damaged.position, damaged.offset);
      if (resume === null || resume.offset > offset) {
        throw corruptRecord(
          this.logPath,
          damaged.position,
          `lost with the damaged record for offset ${damaged.offset}`,
          offset,
        );
      }
      position = resume.positionBytes;
      current = resume.offset;
      previous = -1;
    }
    return null;
  }

  /** The longest record its readers accept (the log's stored limit). */
  get maxRecordBytes(): number {
    return this.#config.maxRecordBytes;
  }

  /** The file system calls this segment's files go through. */
  get io(): FileIO {
    return this.#io;
  }

  /**
   * The index file's last valid entry before `positionBytes`, read without changing the file or
   * the loaded index; the segment's start when there is none.
   */
  indexEntryBelowOnDisk(positionBytes: number): { positionBytes: number; offset: number } {
    const { index } = OffsetIndex.load(this.#io, this.indexPath, positionBytes, 'read');
    const last = index.entries - 1;
    if (last < 0) return { positionBytes: 0, offset: this.baseOffset };
    return {
      positionBytes: index.positionAt(last),
      offset: this.baseOffset + index.relativeOffsetAt(last),
    };
  }

  /** The index file's last entry, read alone (see OffsetIndex.lastEntryOnDisk). */
  lastIndexEntryOnDisk(): { relativeOffset: number; positionBytes: number } | null {
    return OffsetIndex.lastEntryOnDisk(this.#io, this.indexPath, this.#sizeBytes);
  }

  /**
   * The id of the record at `positionBytes` when it is sound (plausible length, good CRC),
   * whatever id it holds; null when there is none or it is damaged.
   */
  soundRecordIdAt(window: ReadWindow, positionBytes: number): number | null {
    window.bind(this.handle);
    const at = window.ensure(positionBytes, RECORD_HEADER_BYTES, this.#sizeBytes);
    if (at < 0) return null;
    const size = frameSizeAt(window.buffer, at, this.#config.maxRecordBytes);
    if (typeof size === 'string') return null;
    const whole = window.ensure(positionBytes, size, this.#sizeBytes);
    if (whole < 0 || checkRecord(window.buffer, whole, size) !== null) return null;
    return recordIdAt(window.buffer, whole);
  }

  /** The record's size when its header is plausible and holds `expectedOffset`; else why not. */
  #headerProblem(
    window: ReadWindow,
    position: number,
    expectedOffset: number,
  ): number | FrameProblem {
    const at = window.ensure(position, RECORD_HEADER_BYTES, this.#sizeBytes);
    if (at < 0) return 'truncated';
    const size = frameSizeAt(window.buffer, at, this.#config.maxRecordBytes);
    if (typeof size === 'string') return size;
    return recordIdAt(window.buffer, at) === expectedOffset ? size : 'unexpected id';
  }

  /** Why the whole record at `position` is not record `expectedOffset`; null when it is. */
  #recordProblem(
    window: ReadWindow,
    position: number,
    expectedOffset: number,
  ): FrameProblem | null {
    const size = this.#headerProblem(window, position, expectedOffset);
    if (typeof size === 'string') return size;
    const whole = window.ensure(position, size, this.#sizeBytes);
    return whole < 0 ? 'truncated' : checkRecord(window.buffer, whole, size, expectedOffset);
  }

  /**
   * Where a walk to `offset` starts: the index entry at or below it, else the segment start; and
   * where the record must end: at the next entry (whose offset is above the target) or the end.
   */
  walkStart(
    offset: number,
  ): RecordStart & { readonly fromIndex: boolean; readonly endBytes: number } {
    const index = this.offsetIndex();
    const slot = index.largestLowerBoundSlotFor(offset - this.baseOffset);
    const endBytes = slot + 1 < index.entries ? index.positionAt(slot + 1) : this.#sizeBytes;
    if (slot < 0) return { positionBytes: 0, offset: this.baseOffset, fromIndex: false, endBytes };
    const entryOffset = this.baseOffset + index.relativeOffsetAt(slot);
    return {
      positionBytes: index.positionAt(slot),
      offset: entryOffset,
      fromIndex: true,
      endBytes,
    };
  }

  /** The first good record after the damaged one at `positionBytes`; null when none is left. */
  recordAfterDamage(
    window: ReadWindow,
    positionBytes: number,
    damagedOffset: number,
  ): RecordStart | null {
    window.bind(this.handle);
    return findRecordAfterDamage(
      window,
      this.#sizeBytes,
      positionBytes,
      damagedOffset,
      this.#config.maxRecordBytes,
    );
  }

  /** The lookup of `offset` step by step (the course, lesson 2), for tools and experiments. */
  explain(window: ReadWindow, offset: number): LookupWalk {
    const index = this.offsetIndex();
    const relativeOffset = offset - this.baseOffset;
    let comparisons = 0;
    const slot = largestLowerBoundSlot(
      (i) => {
        comparisons++;
        return index.relativeOffsetAt(i);
      },
      index.entries,
      relativeOffset,
    );
    const entryAt = (i: number): IndexEntry | null =>
      i >= 0 && i < index.entries
        ? { relativeOffset: index.relativeOffsetAt(i), positionBytes: index.positionAt(i) }
        : null;
    const indexEntry = entryAt(slot);
    const record = this.find(window, offset);
    if (record === null)
      throw corruptRecord(this.logPath, this.#sizeBytes, 'offset not in segment', offset);
    const startBytes = indexEntry?.positionBytes ?? 0;
    return {
      segmentBaseOffset: this.baseOffset,
      relativeOffset,
      indexEntries: index.entries,
      comparisons,
      indexEntry,
      nextIndexEntry: entryAt(slot + 1),
      recordPositionBytes: record.positionBytes,
      recordSizeBytes: record.sizeBytes,
      stepForwardBytes: record.positionBytes + record.sizeBytes - startBytes,
      recordsStepped: relativeOffset - (indexEntry?.relativeOffset ?? 0) + 1,
    };
  }

  #decodeAt(window: ReadWindow, position: number, size: number, offset: number): SegmentRecord {
    const at = window.ensure(position, size, this.#sizeBytes);
    if (at < 0) throw corruptRecord(this.logPath, position, 'truncated', offset);
    const problem = checkRecord(window.buffer, at, size, offset);
    if (problem !== null) throw corruptRecord(this.logPath, position, problem, offset);
    // Built field by field: an object spread here cost ~1.5 µs per record, more than the CRC.
    const { id, attributes, body } = decodeCheckedRecord(window.buffer, at, size);
    return { id, attributes, body, positionBytes: position, sizeBytes: size };
  }

  /**
   * Reads the record at a known position (sequential readers); null at the end of the file. The
   * window must be bound to this segment (`bindWindow`) by the caller, once per segment: binding
   * here, per record, would throw away the window and read it again for every record.
   */
  readAt(window: ReadWindow, positionBytes: number, expectedOffset: number): SegmentRecord | null {
    if (positionBytes >= this.#sizeBytes) return null;
    const at = window.ensure(positionBytes, RECORD_HEADER_BYTES, this.#sizeBytes);
    if (at < 0) throw corruptRecord(this.logPath, positionBytes, 'truncated', expectedOffset);
    const size = frameSizeAt(window.buffer, at, this.#config.maxRecordBytes);
    if (typeof size === 'string')
      throw corruptRecord(this.logPath, positionBytes, size, expectedOffset);
    return this.#decodeAt(window, positionBytes, size, expectedOffset);
  }

  /** Points a sequential reader's window at this segment's file, forgetting what it held. */
  bindWindow(window: ReadWindow): void {
    window.bind(this.handle);
  }

  /** Writes buffered index entries and fdatasyncs the log and both indexes. */
  sync(): void {
    this.#io.fdatasync(this.handle);
    this.#offsetIndex?.sync();
    this.#timeIndex?.sync();
  }

  /** After a roll: the indexes are complete; their files are closed, entries stay in memory. */
  seal(): void {
    this.#offsetIndex?.close();
    this.#timeIndex?.close();
  }

  close(): void {
    this.seal();
    if (this.#logHandle !== null) this.#io.close(this.#logHandle);
    this.#logHandle = null;
  }

  /** True once `delete` ran: a reader still holding this segment must not read through it. */
  get removed(): boolean {
    return this.#removed;
  }

  /**
   * Closes and removes the three files (retention). With `inUse`, an fdatasync on the thread
   * pool still holds the log file: the names go now, the file closes when it settles. With
   * `spare`, the `.log` is renamed to that name instead of unlinked (segment reuse, log.ts); the
   * indexes go either way.
   */
  delete(inUse: Promise<unknown> | null = null, spare: string | null = null): void {
    this.#removed = true;
    if (inUse === null) this.close();
    else {
      this.seal();
      void inUse.finally(() => this.close());
    }
    if (spare !== null) this.#io.rename(this.#paths.log, spare);
    removeSegmentFiles(this.#io, this.#paths);
  }

  /**
   * Sealed segments load their indexes on first use. An index that is damaged (fails
   * validation) or behind (the last entry is further from the end than one interval and one
   * record) is rebuilt from the log, with the time of the rebuild for lost time entries.
   */
  #ensureIndexes(): void {
    if (this.#offsetIndex !== null) return;
    const { index, load } = OffsetIndex.load(this.#io, this.indexPath, this.#sizeBytes, 'read');
    if (load.validEntries === load.fileEntries && !this.#indexBehind(index)) {
      this.#offsetIndex = index;
      const nextRelative = index.entries === 0 ? 0 : index.relativeOffsetAt(index.entries - 1) + 1;
      this.#timeIndex = TimeIndex.load(this.#io, this.timeIndexPath, nextRelative, 'read').index;
      return;
    }
    this.#rebuildIndexes();
  }

  /**
   * Walks the records after the last entry (at most one interval and one record, when the index
   * is whole) as a rebuild would, damaged records skipped: the index is behind when the rebuild
   * would add an entry, or when the last entry does not land on its record. A damaged record the
   * rebuild cannot index does not count, or its segment would be rebuilt at every open.
   */
  #indexBehind(index: OffsetIndex): boolean {
    const last = index.entries - 1;
    const lastPosition = last < 0 ? 0 : index.positionAt(last);
    const lastOffset = this.baseOffset + (last < 0 ? 0 : index.relativeOffsetAt(last));
    const interval = this.#config.indexIntervalBytes;
    let first = true;
    let behind = false;
    const stopAt = (_offset: number, position: number): boolean => {
      const landed = !first || last < 0 || position === lastPosition;
      first = false;
      const isLastEntry = last >= 0 && position === lastPosition;
      behind = !landed || (!isLastEntry && (interval === 0 || position - lastPosition > interval));
      return behind;
    };
    const window = new ReadWindow(this.#io, LOOKUP_WINDOW_BYTES);
    this.scan(window, lastPosition, lastOffset, { reindex: false, skipDamaged: true, stopAt });
    return behind;
  }

  /**
   * Re-derives both indexes from the log. A sealed segment's index files are closed afterwards;
   * the active segment's stay open for appends.
   */
  #rebuildIndexes(): void {
    const active = this.#nextOffset !== null && this.#offsetIndex?.isOpen === true;
    this.#offsetIndex?.close();
    this.#timeIndex?.close();
    const mode: IndexMode = this.#config.readOnly ? 'memory' : 'append';
    this.#offsetIndex = OffsetIndex.create(this.#io, this.indexPath, mode);
    this.#timeIndex = TimeIndex.create(this.#io, this.timeIndexPath, mode);
    const window = new ReadWindow(this.#io, SCAN_WINDOW_BYTES);
    this.scan(window, 0, this.baseOffset, { reindex: true, skipDamaged: true });
    this.#offsetIndex.sync();
    this.#timeIndex.sync();
    if (!active) this.seal();
  }
}

/**
 * Whether a spare of `sizeBytes` is a file a full segment of this configuration leaves: a roll
 * seals a segment when the next record (at most `maxRecordBytes`) does not fit, so its file ends
 * less than one record short of the segment size. A spare made under another segment size (the
 * log reopened with a new one) is not reused: a larger one would let appends run past
 * `segmentBytes`, a much smaller one saves little of the zero-fill.
 */
export function spareFits(sizeBytes: number, config: SegmentConfig): boolean {
  const segmentBytes = config.preallocateBytes;
  return (
    sizeBytes >= RECORD_HEADER_BYTES &&
    sizeBytes <= segmentBytes &&
    sizeBytes > segmentBytes - config.maxRecordBytes
  );
}

const ZERO_HEADER = Buffer.alloc(RECORD_HEADER_BYTES);

/**
 * Zeroes the spare's first record header and syncs it; returns the spare's size, or null (and
 * writes nothing) when the spare does not fit.
 */
function prepareSpare(io: FileIO, spare: string, config: SegmentConfig): number | null {
  const handle = io.open(spare, { create: false });
  let sizeBytes: number | null;
  try {
    sizeBytes = io.sizeBytes(handle);
    if (!spareFits(sizeBytes, config)) sizeBytes = null;
    else {
      io.write(handle, ZERO_HEADER, 0, RECORD_HEADER_BYTES, 0);
      io.fdatasync(handle);
    }
  } catch (error) {
    closeAfterFailure(io, handle);
    throw error;
  }
  io.close(handle);
  return sizeBytes;
}

/**
 * Closes (or deletes) each segment; one that fails is abandoned, so no handle leaks. Returns the
 * failures in order.
 */
export function closeSegments(
  segments: readonly { close(): void; delete(): void; abandon(): void }[],
  how: 'close' | 'delete',
): unknown[] {
  const failures: unknown[] = [];
  for (const segment of segments) {
    try {
      if (how === 'close') segment.close();
      else segment.delete();
    } catch (error) {
      failures.push(error);
      segment.abandon();
    }
  }
  return failures;
}
