/**
 * A log's retention (log.ts): deleting every sealed segment whose records are all below an
 * offset, never the active one. Oldest first, each made durable before the next: a power cut
 * then leaves the log without a prefix of them, never with a hole in the middle that would end a
 * reader's walk early. Under `always` and `group` the first one's `.log` becomes the spare when
 * there is none (spare-segment.ts), renamed as durably. The event loop does the names and the
 * directory fsyncs; the removed files close afterwards on the thread pool, where freeing their
 * blocks no longer holds the loop (Segment.deleteClosingOnPool).
 */
import type { FileIO } from '../io/file-io.js';
import type { Segment } from './segment.js';
import { removeSegmentFiles } from '../segments/segment-files.js';
import type { SegmentList } from '../segments/segment-list.js';

/** The log's segments, oldest first, and where they are. */
export interface RetainedSegments {
  readonly io: FileIO;
  readonly dir: string;
  readonly segments: SegmentList<Segment>;
}

/** What retention asks of the log's spare (spare-segment.ts's SpareSegment). */
export interface RetainedSpare {
  /** Whether a spare file stands in the directory. */
  readonly exists: boolean;
  /** Where `segment`'s `.log` is renamed instead of unlinked; null: unlink it. */
  pathFor(segment: Segment): string | null;
  /** The rename to `pathFor`'s name is durable. */
  kept(): void;
  /** Unlinks the spare's name if it is there; the caller fsyncs the directory. */
  remove(): void;
}

export class LogRetention {
  readonly #log: RetainedSegments;
  readonly #spare: RetainedSpare;
  /** What still holds a removed segment's file open (a background sync), null when nothing. */
  readonly #inUse: (segment: Segment) => Promise<unknown> | null;
  /**
   * A segment retention took out of the log whose files are not yet durably gone (an unlink or
   * the directory fsync failed): see #finishRemoval.
   */
  #unremoved: Segment | null = null;
  /**
   * The close of the last removed segment's file (Segment.deleteClosingOnPool), null once it
   * settled. Each close waits for the one before: one thread of the pool frees blocks at a time,
   * and the others stay free for the engine's fdatasyncs.
   */
  #lastClosing: Promise<void> | null = null;

  constructor(
    log: RetainedSegments,
    spare: RetainedSpare,
    inUse: (segment: Segment) => Promise<unknown> | null,
  ) {
    this.#log = log;
    this.#spare = spare;
    this.#inUse = inUse;
  }

  get unremoved(): Segment | null {
    return this.#unremoved;
  }

  /** Deletes the sealed segments whose records are all below `offset`; returns what went. */
  deleteBelow(offset: number): { segments: number; bytes: number } {
    const { io, dir, segments: list } = this.#log;
    this.#finishRemoval();
    let segments = 0;
    let bytes = 0;
    while (list.all.length > 1 && list.all[1]!.baseOffset <= offset) {
      const segment = list.takeOldest();
      bytes += segment.sizeBytes;
      // Out of the log now, whatever happens to its files: readers must not reach it.
      this.#unremoved = segment;
      const spare = this.#spare.pathFor(segment);
      // A background sync still using the file keeps it open until it settles; what it was to
      // make durable is gone, so nothing waits for it any more.
      segment.deleteClosingOnPool(this.#closeAfter(segment), spare, (closing) =>
        this.#track(closing),
      );
      io.fsyncDir(dir);
      this.#unremoved = null;
      if (spare !== null) this.#spare.kept();
      segments++;
    }
    return { segments, bytes };
  }

  /** What closing the log waits for: removed segments' files still closing; null when none. */
  filesClosing(): Promise<void> | null {
    return this.#lastClosing;
  }

  #closeAfter(segment: Segment): Promise<unknown> | null {
    const inUse = this.#inUse(segment);
    const previous = this.#lastClosing;
    if (inUse === null || previous === null) return inUse ?? previous;
    return Promise.allSettled([inUse, previous]);
  }

  #track(closing: Promise<void>): void {
    this.#lastClosing = closing;
    void closing.then(() => {
      if (this.#lastClosing === closing) this.#lastClosing = null;
    });
  }

  /**
   * Removes, durably, the segment whose removal failed last time (an unlink or the directory
   * fsync after it), before retention may remove any later one: removing the next segment while
   * this one's name lives on, or may come back after a power cut, leaves a hole in the chain.
   */
  #finishRemoval(): void {
    const segment = this.#unremoved;
    if (segment === null) return;
    const { io, dir } = this.#log;
    removeSegmentFiles(io, segment.paths);
    // A rename to the spare name that failed, or whose directory fsync did, may have happened.
    if (!this.#spare.exists) this.#spare.remove();
    io.fsyncDir(dir);
    this.#unremoved = null;
  }
}
