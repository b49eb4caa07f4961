/**
 * The spare of a log (log.ts, segment reuse): a file the next roll renames into place as the new
 * segment's `.log` instead of zero-filling a new file extent by extent on the event loop. Only
 * under `always` and `group`, whose segments are preallocated; under `none` a roll does not wait
 * for the disk, nor zero-fill anything. It comes from one of two places:
 *
 * - Retention: the `.log` of a segment it removes, kept under the spare's name (segment-files.ts),
 *   as PostgreSQL recycles WAL segments. Its older records stay behind the new segment's data.
 * - Layout: with no spare by the time the active segment is half full (three quarters when that
 *   segment was retention's spare: retention that keeps up hands the next roll one before then,
 *   and one that runs less often than segments fill, as Kafka's every few minutes, does not), a
 *   new file of the segment size is zero-filled and synced on the thread pool, under a name of
 *   its own (SPARE_LAYOUT_FILE), then renamed to the spare's name. The zeros were always written
 *   once per segment; laid out ahead they no longer hold the event loop (1 MiB writes of about
 *   2 ms each, which kept its p99 delay above 1 ms under group commit, docs/storage.md). Half a
 *   segment of appends (a quarter after a recycled one) is the layout's head start: a roll that
 *   finds none ready zero-fills its extents as before, and the layout still running becomes the
 *   spare for the roll after.
 *
 * One at most: a roll takes one file, and retention frees segments about as fast as rolls fill
 * them, so a second spare would wait for a burst of removals to be used while holding the disk
 * space retention is meant to give back (PostgreSQL bounds its recycled WAL files the same way,
 * by min_wal_size). One name also keeps what a power cut can leave to one file. A spare from
 * retention stops a layout in progress: a recycled file needs no zeros at all.
 */
import { type FileIO, openEmptied } from '../io/file-io.js';
import { ignoreFailure } from '../errors.js';
import { Segment, type SegmentConfig } from './segment.js';
import { spareLayoutPath, sparePath } from '../segments/segment-files.js';

/** A layout's zeros go to the thread pool this much at a time. */
const LAYOUT_CHUNK_BYTES = 1 << 20;
/** How far into a segment its successor's layout starts (the top of this file). */
const LAYOUT_AT_SHARE = 1 / 2;
/** The same in a segment that was retention's spare. */
const LATE_LAYOUT_AT_SHARE = 3 / 4;

export class SpareSegment {
  readonly #io: FileIO;
  readonly #dir: string;
  readonly #segmentConfig: SegmentConfig;
  readonly #reuses: boolean;
  /** The size of the files laid out; infinity where none are, so no share of it is reached. */
  readonly #layOutBytes: number;
  /**
   * The active segment's size at which the log calls `layOut`: the threshold of the last roll
   * (the late one after a roll that took retention's file), infinity once called.
   */
  layOutAtBytes: number;
  /** Whether the spare file exists, made by this log (retention or layout) and made durable. */
  #exists = false;
  /** Whether the spare is a laid-out file: zeros only, synced before it was named the spare. */
  #zeroed = false;
  #reused = 0;
  #laidOutUsed = 0;
  /** The layout in progress, settled once its file is the spare or gone. */
  #layout: Promise<void> | null = null;
  #stopLayout = false;
  /** Set by a closing log: the layout in progress owns no name any more. */
  #abandoned = false;
  /** Set by a layout that failed: the log's rolls zero-fill their extents from then on. */
  #layoutFailed = false;

  /** `laysOut`: spares are laid out too (LogOptions.layOutSpares), where the log `reuses`. */
  constructor(
    io: FileIO,
    dir: string,
    segmentConfig: SegmentConfig,
    reuses: boolean,
    laysOut: boolean,
  ) {
    this.#io = io;
    this.#dir = dir;
    this.#segmentConfig = segmentConfig;
    this.#reuses = reuses;
    this.#layOutBytes =
      reuses && laysOut ? segmentConfig.preallocateBytes : Number.POSITIVE_INFINITY;
    this.layOutAtBytes = this.#layOutAt(LAYOUT_AT_SHARE);
  }

  #layOutAt(share: number): number {
    return Math.floor(this.#layOutBytes * share);
  }

  get exists(): boolean {
    return this.#exists;
  }

  /** Rolls since the log was opened that renamed retention's spare into place. */
  get reused(): number {
    return this.#reused;
  }

  /** Rolls since the log was opened that renamed a laid-out spare into place. */
  get laidOutUsed(): number {
    return this.#laidOutUsed;
  }

  /**
   * Where retention renames `segment`'s `.log` instead of unlinking it (a sealed file holding
   * exactly its records, when there is no spare yet); null: unlink it.
   */
  pathFor(segment: Segment): string | null {
    return this.#reuses && !this.#exists && segment.fitsAsSpare ? sparePath(this.#dir) : null;
  }

  /** Retention's rename to `pathFor`'s name is durable. */
  kept(): void {
    this.#exists = true;
    this.#zeroed = false;
    this.#stopLayout = true;
  }

  /** Unlinks the spare's name if it is there; the caller fsyncs the directory. */
  remove(): void {
    this.#exists = false;
    this.#zeroed = false;
    const spare = sparePath(this.#dir);
    if (this.#io.exists(spare)) this.#io.unlink(spare);
  }

  /**
   * Starts laying out a spare on the thread pool (the top of this file), unless there is one,
   * one is being laid out, or a layout failed before. Once per segment: the log calls it when the
   * active segment reaches `layOutAtBytes`.
   */
  layOut(): void {
    this.layOutAtBytes = Number.POSITIVE_INFINITY;
    if (this.#exists || this.#layout !== null || this.#layoutFailed) return;
    this.#stopLayout = false;
    this.#layout = this.#layOutFile().finally(() => {
      this.#layout = null;
    });
  }

  /**
   * Stops a layout in progress and unlinks its file now, while the closing log still holds the
   * writer lock: a write or sync of it still on the thread pool lands in a file no name reaches,
   * and the layout names nothing when it resumes, so it cannot touch a later writer's files.
   */
  abandonLayout(): void {
    if (this.#layout === null) return;
    this.#stopLayout = true;
    this.#abandoned = true;
    const file = spareLayoutPath(this.#dir);
    if (this.#io.exists(file)) this.#io.unlink(file);
  }

  /**
   * The segment a roll starts at `baseOffset`: the spare renamed into place when there is one
   * that fits, else a new file. The spare is given up first, so no failure can reuse it twice;
   * the roll fsyncs the directory after either.
   */
  newSegment(baseOffset: number): Segment {
    const io = this.#io;
    this.layOutAtBytes = this.#layOutAt(LAYOUT_AT_SHARE);
    if (this.#exists) {
      const zeroed = this.#zeroed;
      this.#exists = false;
      this.#zeroed = false;
      const spare = sparePath(this.#dir);
      const reused = Segment.recycled(
        io,
        this.#dir,
        baseOffset,
        this.#segmentConfig,
        spare,
        zeroed,
      );
      if (reused !== null) {
        if (zeroed) this.#laidOutUsed++;
        else {
          this.#reused++;
          this.layOutAtBytes = this.#layOutAt(LATE_LAYOUT_AT_SHARE);
        }
        return reused;
      }
    }
    return Segment.create(io, this.#dir, baseOffset, this.#segmentConfig);
  }

  /**
   * Zero-fills the layout file to the segment size and syncs it, on the thread pool; then, on the
   * event loop and with no wait in between, names it the spare, unless retention gave one
   * meanwhile or the log is closing. No directory fsync: a power cut that loses the name loses
   * a file of zeros, which the next open would unlink anyway (log-loader.ts), and the roll that
   * renames it into place fsyncs the directory.
   */
  async #layOutFile(): Promise<void> {
    const io = this.#io;
    const file = spareLayoutPath(this.#dir);
    const sizeBytes = this.#segmentConfig.preallocateBytes;
    try {
      const handle = openEmptied(io, file);
      let complete = false;
      try {
        const zeros = Buffer.alloc(Math.min(LAYOUT_CHUNK_BYTES, sizeBytes));
        for (let at = 0; at < sizeBytes && !this.#stopLayout; at += zeros.length)
          await io.writeAsync(handle, zeros, 0, Math.min(zeros.length, sizeBytes - at), at);
        if (!this.#stopLayout) await io.fdatasyncAsync(handle);
        // Retention's spare (kept) stops the layout too.
        complete = !this.#stopLayout;
      } finally {
        io.close(handle);
      }
      if (this.#abandoned) return;
      if (complete) {
        io.rename(file, sparePath(this.#dir));
        this.#exists = true;
        this.#zeroed = true;
      } else io.unlink(file);
    } catch {
      // Not the log's data: the rolls zero-fill their extents instead, as without a layout.
      this.#layoutFailed = true;
      if (this.#abandoned) return;
      ignoreFailure(() => {
        if (io.exists(file)) io.unlink(file);
      });
    }
  }
}
