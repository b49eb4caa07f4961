/**
 * The spare of a log (log.ts, segment reuse): the `.log` of a segment retention removed, kept
 * under the spare's name (segment-files.ts) for the next roll to rename into place instead of
 * zero-filling a new file, as PostgreSQL recycles WAL segments.
 *
 * One at most: a roll takes one file, and retention frees segments about as fast as rolls fill
 * them, so a second spare would wait for a burst of removals to be used while holding the disk
 * space retention is meant to give back (PostgreSQL bounds its recycled WAL files the same way,
 * by min_wal_size). One name also keeps what a power cut can leave to one file. Only under
 * `always` and `group`, whose segments are preallocated: there a reused file saves the
 * zero-fill; under `none` a roll does not wait for the disk, nor zero-fill anything.
 */
import type { FileIO } from './file-io.js';
import { Segment, type SegmentConfig } from './segment.js';
import { sparePath } from './segment-files.js';

export class SpareSegment {
  readonly #io: FileIO;
  readonly #dir: string;
  readonly #segmentConfig: SegmentConfig;
  readonly #reuses: boolean;
  /** Whether the spare file exists, made by this log's retention and made durable. */
  #exists = false;
  #reused = 0;

  constructor(io: FileIO, dir: string, segmentConfig: SegmentConfig, reuses: boolean) {
    this.#io = io;
    this.#dir = dir;
    this.#segmentConfig = segmentConfig;
    this.#reuses = reuses;
  }

  get exists(): boolean {
    return this.#exists;
  }

  /** Rolls since the log was opened that renamed the spare into place instead of a new file. */
  get reused(): number {
    return this.#reused;
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
  }

  /** Unlinks the spare's name if it is there; the caller fsyncs the directory. */
  remove(): void {
    this.#exists = false;
    const spare = sparePath(this.#dir);
    if (this.#io.exists(spare)) this.#io.unlink(spare);
  }

  /**
   * The segment a roll starts at `baseOffset`: the spare renamed into place when there is one
   * that fits, else a new file. The spare is given up first, so no failure can reuse it twice;
   * the roll fsyncs the directory after either.
   */
  newSegment(baseOffset: number): Segment {
    const io = this.#io;
    if (this.#exists) {
      this.#exists = false;
      const spare = sparePath(this.#dir);
      const reused = Segment.recycled(io, this.#dir, baseOffset, this.#segmentConfig, spare);
      if (reused !== null) {
        this.#reused++;
        return reused;
      }
    }
    return Segment.create(io, this.#dir, baseOffset, this.#segmentConfig);
  }
}
