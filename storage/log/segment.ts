/**
 * One segment of the log: `<base offset>.log` with its `.index` and `.timeindex`, the base offset
 * padded to 20 digits so that `ls` sorts files numerically (00000000000001245036.log).
 *
 * A segment owns its files and the sparse-index rule (the course, lesson 2; Kafka's
 * LogSegment.append): before a record is appended, if more than `indexIntervalBytes` were written
 * since the last entry, an entry is added for this record and the count restarts; then the record's
 * size is added to the count. `indexIntervalBytes === 0` means dense: an entry for every record.
 * The count needs no saving: it is the bytes from the last entry's position (or 0) to the end.
 * The time index gets an entry with each offset entry and one for the segment's first record (a
 * time, no position: the log's records carry no time, and the clock is read for no other record).
 *
 * Around it: file names (segment-files.ts), the record walk (segment-scan.ts), lookups with
 * damage recovery and their explanation (segment-lookup.ts), index coverage
 * (index-coverage.ts), preallocation and the spare (preallocation.ts).
 *
 * Why this file is over 450 lines: a Segment's private state (the handle, the data and file
 * sizes, the next offset, the loaded indexes) is the concept; opening, appending under the index
 * rule, preallocating, recovery's activate and truncate, and loading or rebuilding the indexes
 * each move it, and what only reads it lives in the files above.
 */
import { type FileHandle, type FileIO, closeAfterFailure, openEmptied } from '../io/file-io.js';
import { assert } from '../errors.js';
import { checkSoleLink } from '../io/directory-entries.js';
import { checkedSegmentEnd, openedOrAbandoned } from '../segments/segment-list.js';
import { indexBehind } from './index-coverage.js';
import { prepareSpare, spareFits, writeZeros } from './preallocation.js';
import { type ScanOptions, type ScanResult, scanRecords } from './segment-scan.js';
import { SCAN_WINDOW_BYTES, ReadWindow } from '../io/read-window.js';
import { OffsetIndex, type IndexMode } from '../segments/offset-index.js';
import { TimeIndex } from '../segments/time-index.js';
import {
  type SegmentPaths,
  removeSegmentFiles,
  segmentPaths,
  spareNames,
} from '../segments/segment-files.js';
import { findRecordAfterDamage } from '../record/resync.js';
import { type RecordStart, alignedWriteStart, soundRecordIdAt } from '../record/page-alignment.js';
import { pageFillBytes } from '../record/page-fill.js';
import { frameSizeAt } from '../record/record.js';
import {
  DirectWriter,
  RecentBytes,
  directBlockEnd,
  isDirectRefusal,
  type DirectWrites,
} from '../io/direct-write.js';
import type { Offset, Position } from '../units.js';

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
  /** Appends fill the rest of a page they first reach with zeros (page-fill.ts); 0: no fill. */
  readonly pageBytes: number;
  /** A write whose first record would cross a page boundary starts there (page-alignment.ts). */
  readonly pageAlign: boolean;
  /** Records go to the device in 512-byte blocks (direct-write.ts); null: through the cache. */
  readonly directWrites: DirectWrites | null;
  /** Files are opened read-only and never changed; indexes rebuilt only in memory. */
  readonly readOnly: boolean;
}

/** A segment opened from the files: nothing known of its gaps. */
const UNKNOWN_GAPS = { fromBytes: -1, toBytes: -1, offset: Number.MAX_SAFE_INTEGER };

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
  /**
   * The last gap this process left before a record (page-alignment.ts), or where its knowledge
   * starts (`fromBytes` -1): records at or below `offset` may follow gaps it did not see.
   */
  #lastGap: { fromBytes: number; toBytes: number; offset: number } = UNKNOWN_GAPS;
  #nextOffset: number | null;
  #offsetIndex: OffsetIndex | null;
  #timeIndex: TimeIndex | null;
  /** The direct handle once the first append opened it (direct-write.ts); null: none. */
  #direct: DirectWriter | null = null;
  /** What direct writes left out of the page cache, for this process's readers; null: none. */
  readonly #recent: RecentBytes | null;
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
    this.#recent = config.directWrites === null ? null : new RecentBytes();
  }

  /** A new, empty active segment: three new files. */
  static create(io: FileIO, dir: string, baseOffset: number, config: SegmentConfig): Segment {
    const segment = new Segment(io, dir, baseOffset, config, 0);
    return openedOrAbandoned(segment, () => {
      segment.#logHandle = openEmptied(io, segment.logPath);
      segment.#nextOffset = baseOffset;
      segment.#knowGapsFrom(baseOffset);
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
   * A spare the log laid out (`zeroed`, spare-segment.ts) holds zeros only, synced already.
   */
  static recycled(
    io: FileIO,
    dir: string,
    baseOffset: number,
    config: SegmentConfig,
    spare: string,
    zeroed: boolean,
  ): Segment | null {
    if (!io.exists(spare)) return null;
    const spareBytes = prepareSpare(io, spare, config, zeroed);
    if (spareBytes === null) {
      io.unlink(spare);
      return null;
    }
    const segment = new Segment(io, dir, baseOffset, config, 0);
    io.rename(spare, segment.logPath);
    return openedOrAbandoned(segment, () => {
      // Opened by its segment name, so a write trace names the file its records go to.
      segment.#logHandle = io.open(segment.logPath, { create: false });
      segment.#fileBytes = spareBytes;
      segment.#nextOffset = baseOffset;
      segment.#knowGapsFrom(baseOffset);
      segment.#offsetIndex = OffsetIndex.create(io, segment.indexPath);
      segment.#timeIndex = TimeIndex.create(io, segment.timeIndexPath);
    });
  }

  /** An existing segment, opened lazily: files are read when first needed. */
  static existing(io: FileIO, dir: string, baseOffset: number, config: SegmentConfig): Segment {
    const segment = new Segment(io, dir, baseOffset, config, 0);
    return openedOrAbandoned(segment, () => {
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
    this.#direct?.abandon();
    this.#direct = null;
    const handle = this.#logHandle;
    this.#logHandle = null;
    if (handle !== null) closeAfterFailure(this.#io, handle);
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
   * Where a write whose first record is `firstRecordBytes` long starts: the end of the data, or
   * the next page boundary when alignment moves it there (page-alignment.ts).
   */
  writeStartFor(firstRecordBytes: number): number {
    if (!this.#config.pageAlign) return this.#sizeBytes;
    return alignedWriteStart(this.#sizeBytes, firstRecordBytes, this.#config.pageBytes);
  }

  /**
   * Where the record `offset` starts, when the reader expecting it at `positionBytes` (the end of
   * the record before it) needs no read to know: `positionBytes` when no gap (page-alignment.ts)
   * was left since, the gap's end when the last one lies there; -1 when an earlier gap may lie
   * between (the caller reads instead).
   */
  knownRecordStart(positionBytes: number, offset: number): number {
    const gap = this.#lastGap;
    if (offset > gap.offset) return positionBytes;
    return offset === gap.offset && positionBytes === gap.fromBytes ? gap.toBytes : -1;
  }

  /** Records from `offset` on are this process's writes: their gaps are the ones it leaves. */
  #knowGapsFrom(offset: number): void {
    this.#lastGap = { fromBytes: -1, toBytes: -1, offset: offset - 1 };
  }

  /**
   * Writes already-encoded records at `writeStart` (writeStartFor), then applies the index rule
   * to each (log first, index after: a crash in between only leaves the index behind). Returns
   * the bytes the write carried besides the records (#write).
   */
  appendEncoded(buffer: Buffer, start: number, length: number, writeStart: number): number {
    assert(this.#nextOffset !== null, 'segment is active');
    assert(writeStart >= this.#sizeBytes, 'records are written after the data');
    const maxRecordBytes = this.#config.maxRecordBytes;
    const extraBytes = this.#write(buffer, start, length, writeStart);
    if (writeStart !== this.#sizeBytes) {
      this.#lastGap = { fromBytes: this.#sizeBytes, toBytes: writeStart, offset: this.#nextOffset };
    }
    // The end moves once every record is indexed: an index write that fails part-way leaves the
    // segment ending where it did, for the fence to cut back to (activate drops the entries).
    let position = writeStart;
    let offset = this.#nextOffset;
    const end = start + length;
    for (let at = start; at < end; ) {
      const size = frameSizeAt(buffer, at, maxRecordBytes) as number;
      this.#indexRecord(offset, position);
      offset++;
      position += size;
      at += size;
    }
    assert(position - writeStart === length, 'whole records fill the written bytes');
    this.#nextOffset = offset;
    this.#sizeBytes = position;
    // A direct write's zeros may reach past the file's end; the page fill's never do.
    const writtenEnd = this.#direct === null ? position : directBlockEnd(position);
    this.#fileBytes = Math.max(this.#fileBytes, writtenEnd);
    return extraBytes;
  }

  /**
   * Writes the records directly when the log asks for it and the system takes it, else through
   * the page cache with the page fill (page-fill.ts): `buffer` has room for `pageBytes` after the
   * records, and the fill's zeros go there. Returns the bytes written besides the records: the
   * fill, or the rest of the blocks a direct write covers (direct-write.ts).
   */
  #write(buffer: Buffer, start: number, length: number, writeStart: number): number {
    const direct = this.#directWriter();
    if (direct !== null) {
      try {
        return direct.write(buffer, start, length, writeStart, this.#sizeBytes);
      } catch (error) {
        if (!isDirectRefusal(error)) throw error;
        // Refused before anything was written: the same bytes go through the cache.
        this.#refuseDirectWrites(`a direct write failed: ${(error as Error).message}`);
      }
    }
    const fillBytes = pageFillBytes(writeStart, length, this.#fileBytes, this.#config.pageBytes);
    assert(start + length + fillBytes <= buffer.length, 'the buffer has room for the page fill');
    if (fillBytes > 0) buffer.fill(0, start + length, start + length + fillBytes);
    this.#io.write(this.handle, buffer, start, length + fillBytes, writeStart);
    return fillBytes;
  }

  /** The direct writer, opened at the first append; null when off or refused. */
  #directWriter(): DirectWriter | null {
    const directWrites = this.#config.directWrites;
    if (this.#direct !== null || directWrites === null || directWrites.state === 'refused')
      return this.#direct;
    this.#direct = DirectWriter.open(this.#io, this.logPath, {
      readHandle: this.handle,
      writes: directWrites,
      recent: this.#recent!,
    });
    return this.#direct;
  }

  #refuseDirectWrites(reason: string): void {
    this.#config.directWrites?.refuse(reason);
    this.#closeDirect();
  }

  #closeDirect(): void {
    const direct = this.#direct;
    this.#direct = null;
    direct?.close();
  }

  /**
   * Whether retention may keep this segment's file as the spare: a sealed file holding exactly
   * its records, of a size a full segment of this configuration has (spareFits).
   */
  get fitsAsSpare(): boolean {
    if (this.#fileBytes !== this.#sizeBytes || !spareFits(this.#fileBytes, this.#config))
      return false;
    // Reused, it is written over: not while another name (a hard link elsewhere) shares it.
    return this.#io.inspect(this.logPath)?.links === 1;
  }

  /** True when a write ending at `endBytes` would write past the preallocated space. */
  needsPreallocation(endBytes: number): boolean {
    return this.#config.preallocateBytes > 0 && endBytes > this.#fileBytes;
  }

  /**
   * Writes zeros after the preallocated space, one extent or as far as a write ending at
   * `endBytes` needs, so later appends overwrite allocated blocks. What lies from the end of
   * the data to the end of the file is zeros this segment wrote, or in a recycled file first the
   * older segment's records (Segment.recycled): opening a log cuts whatever followed the last
   * good record. The zeros are not synced here: the durability engine's next
   * fdatasync commits them and the file's new size with the appends it covers (on the thread
   * pool by default), and every sync after it commits data only. Syncing them here held the
   * event loop 4-8 ms per 4 MiB extent (docs/storage.md).
   */
  preallocate(endBytes: number): void {
    const from = this.#fileBytes;
    const target = Math.min(
      this.#config.preallocateBytes,
      Math.max(endBytes, from + this.#config.preallocateExtentBytes),
    );
    // Rolls keep appends within the segment size, which preallocation fills.
    assert(target >= endBytes, 'the append fits the preallocated segment');
    writeZeros(this.#io, this.handle, from, target);
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
    if (interval !== 0 && bytesSinceLastEntry <= interval) {
      // The first record's time is read too, though it needs no offset entry (a lookup starts at
      // byte 0 anyway): a segment no larger than one interval would otherwise have no time at
      // all, and a lookup by time would pass over every record in it.
      if (offset === this.baseOffset) this.#timeIndex!.maybeAppend(this.#config.nowMs(), 0);
      return;
    }
    const relativeOffset = offset - this.baseOffset;
    offsetIndex.append(relativeOffset, positionBytes);
    // A rebuilt offset index meets time entries that survived it: those keep their real times.
    // Only when the clock moved on (at 200,000 appends a second the index interval passes about
    // 50 times a ms).
    this.#timeIndex!.maybeAppend(this.#config.nowMs(), relativeOffset);
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
   * Walks records from `fromPosition` (scanRecords, segment-scan.ts); with `reindex`, the index
   * rule is applied to each record walked.
   */
  scan(
    window: ReadWindow,
    fromPosition: number,
    expectedOffset: number,
    options: ScanOptions,
  ): ScanResult {
    const indexRecord = (offset: number, positionBytes: number): void =>
      this.#indexRecord(offset, positionBytes);
    return scanRecords(this, window, fromPosition, expectedOffset, options, indexRecord);
  }

  /** Makes this the active segment again after recovery found its end. */
  activate(endPositionBytes: Position, nextOffset: Offset): void {
    this.#nextOffset = nextOffset;
    this.#knowGapsFrom(nextOffset);
    if (endPositionBytes < this.#sizeBytes && !this.#config.readOnly) {
      this.truncate(endPositionBytes);
      return;
    }
    // Read-only: the bytes after the end stay in the file, unread.
    this.#sizeBytes = Math.min(this.#sizeBytes, endPositionBytes);
    this.#dropIndexEntriesFrom(endPositionBytes);
  }

  /**
   * Cuts the log file at `positionBytes` and drops index entries at or past it. A sealed file may
   * have other links (directory-entries.ts): the cut is refused then.
   */
  truncate(positionBytes: number): void {
    checkSoleLink(this.#io, this.logPath, spareNames(this.dir));
    this.#recent?.forget();
    this.#io.truncate(this.handle, positionBytes);
    this.#sizeBytes = positionBytes;
    this.#fileBytes = positionBytes;
    this.#dropIndexEntriesFrom(positionBytes);
  }

  #dropIndexEntriesFrom(positionBytes: number): void {
    if (this.#offsetIndex === null) return;
    this.#offsetIndex.truncateFromPosition(positionBytes);
    this.#timeIndex!.truncateFromRelativeOffset(timeEntriesBelow(this.#offsetIndex, positionBytes));
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

  /** Bytes between index entries (0: an entry for every record). */
  get indexIntervalBytes(): number {
    return this.#config.indexIntervalBytes;
  }

  /** The longest record its readers accept (the log's stored limit). */
  get maxRecordBytes(): number {
    return this.#config.maxRecordBytes;
  }

  /** The file system calls this segment's files go through. */
  get io(): FileIO {
    return this.#io;
  }

  /** The first good record after the damaged one at `positionBytes`; null when none is left. */
  recordAfterDamage(
    window: ReadWindow,
    positionBytes: number,
    damagedOffset: number,
  ): RecordStart | null {
    this.bindWindow(window);
    return findRecordAfterDamage(
      window,
      this.#sizeBytes,
      positionBytes,
      damagedOffset,
      this.#config.maxRecordBytes,
    );
  }

  /** The id of the sound record at `positionBytes`, whatever id it holds; null: none there. */
  soundRecordIdAt(window: ReadWindow, positionBytes: number): number | null {
    this.bindWindow(window);
    return soundRecordIdAt(window, positionBytes, this.#sizeBytes, this.#config.maxRecordBytes);
  }

  /**
   * Points a reader's window at this segment's file, forgetting what it held; the newest bytes
   * direct writes left out of the page cache come from memory (direct-write.ts).
   */
  bindWindow(window: ReadWindow): void {
    window.bind(this.handle, this.#recent);
  }

  /** Writes buffered index entries and fdatasyncs the log and both indexes. */
  sync(): void {
    this.#io.fdatasync(this.handle);
    this.#offsetIndex?.sync();
    this.#timeIndex?.sync();
  }

  /**
   * After a roll: the indexes are complete; their files are closed, entries stay in memory. The
   * direct handle closes too, a sealed segment taking no more writes, and its readers read its
   * newest records from the file.
   */
  seal(): void {
    this.#offsetIndex?.close();
    this.#timeIndex?.close();
    this.#closeDirect();
    this.#recent?.forget();
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

  /** Closes and removes the three files (recovery, the fence). */
  delete(): void {
    this.#removed = true;
    this.close();
    removeSegmentFiles(this.#io, this.#paths);
  }

  /**
   * Retention's removal: the three names go now (with `spare`, the `.log` is renamed to that name
   * instead, segment reuse, log.ts), and the log file closes later on the thread pool, once
   * `after` settles (an fdatasync still running on the file, the previous removal's close). The
   * close of a file with no name left frees its blocks and drops its pages from the cache (20-35
   * ms for a 64 MiB segment here), work an unlink of the closed file did on the event loop
   * (FileIO.closeAsync). It starts no sooner than a microtask from now, once the caller's
   * directory fsyncs are done: a journal commit they asked for would otherwise wait for the
   * blocks being freed. `track` gets the close; it never rejects: with the names gone, a close
   * that fails (a dead disk) loses nothing.
   */
  deleteClosingOnPool(
    after: Promise<unknown> | null,
    spare: string | null,
    track: (closing: Promise<void>) => void,
  ): void {
    this.#removed = true;
    this.seal();
    const handle = this.#logHandle;
    this.#logHandle = null;
    try {
      if (spare !== null) this.#io.rename(this.#paths.log, spare);
      removeSegmentFiles(this.#io, this.#paths);
    } finally {
      // Also when a name stayed (retention retries the names, not the handle): nothing leaks.
      if (handle !== null) {
        const close = (): Promise<void> => this.#io.closeAsync(handle);
        track((after ?? Promise.resolve()).then(close, close).catch(() => {}));
      }
    }
  }

  /**
   * Sealed segments load their indexes on first use. An index that is damaged (fails
   * validation) or behind (the last entry is further from the end than one interval and one
   * record) is rebuilt from the log, with the time of the rebuild for lost time entries.
   */
  #ensureIndexes(): void {
    if (this.#offsetIndex !== null) return;
    const { index, load } = OffsetIndex.load(this.#io, this.indexPath, this.#sizeBytes, 'read');
    if (load.validEntries === load.fileEntries && !indexBehind(this, index)) {
      this.#offsetIndex = index;
      const nextRelative = timeEntriesBelow(index, this.#sizeBytes);
      this.#timeIndex = TimeIndex.load(this.#io, this.timeIndexPath, nextRelative, 'read').index;
      return;
    }
    this.rebuildIndexes();
  }

  /**
   * Re-derives both indexes from the log. A sealed segment's index files are closed afterwards;
   * the active segment's stay open for appends.
   */
  rebuildIndexes(): void {
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
 * The relative offset below which time entries name records in the first `endBytes` of the
 * segment: time entries sit at offset entries and at the first record (#indexRecord), which
 * starts at byte 0.
 */
function timeEntriesBelow(offsetIndex: OffsetIndex, endBytes: number): number {
  const entries = offsetIndex.entries;
  if (entries > 0) return offsetIndex.relativeOffsetAt(entries - 1) + 1;
  return endBytes > 0 ? 1 : 0;
}
