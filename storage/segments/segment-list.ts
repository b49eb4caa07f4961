/**
 * A log's segments, oldest first, the last one active: what the record log (log.ts) and the
 * batched log (batched-log.ts) keep alike, whatever their segments hold. The list finds the
 * segment that holds an offset (the largest base offset at or below it, searched in a mirror of
 * the base offsets), grows by a roll, loses its oldest segments to retention and its newest to
 * a fence's cut, and checks what must hold between calls. Segments open, close and go without
 * leaking a handle when one of them fails: a segment that fails to open is abandoned (closed,
 * failures to close dropped), and so are the ones opened before it; a close that fails abandons
 * that segment and goes on with the rest.
 *
 * Each log keeps what differs: its segment kind, its appends, its reads, its syncs and its
 * recovery.
 */
import { assert } from '../errors.js';
import type { FileIO } from '../io/file-io.js';
import { largestLowerBoundSlot } from './index-file.js';
import type { Offset, Position } from '../units.js';

/** What the list asks of a segment of either kind. */
export interface ListedSegment {
  readonly baseOffset: number;
  /** Where its records end. */
  readonly sizeBytes: number;
  /** Asserts the segment's own invariants; `nextBaseOffset` null for the active segment. */
  checkInvariants(nextBaseOffset: number | null): void;
  close(): void;
  /** Closes and removes its files. */
  delete(): void;
  /** Closes its files after another failure, dropping failures to close. */
  abandon(): void;
}

/** How far the active segment is known to be on the device: the durability engine's point. */
export interface SyncedPoint<S> {
  readonly segment: S;
  readonly positionBytes: Position;
  readonly nextOffset: Offset;
}

export class SegmentList<S extends ListedSegment> {
  readonly #segments: S[];
  /** Each segment's base offset, in the same order: what the lookup by offset searches. */
  readonly #baseOffsets: number[];

  constructor(segments: readonly S[]) {
    assert(segments.length > 0, 'a log has an active segment');
    this.#segments = [...segments];
    this.#baseOffsets = segments.map((segment) => segment.baseOffset);
  }

  /** Oldest first; the last is active. */
  get all(): readonly S[] {
    return this.#segments;
  }

  get active(): S {
    return this.#segments[this.#segments.length - 1]!;
  }

  get oldest(): S {
    return this.#segments[0]!;
  }

  /** The segment holding `offset`, which the caller checked is at or after the log's start. */
  holding(offset: number): S {
    const baseOffsets = this.#baseOffsets;
    const slot = largestLowerBoundSlot((i) => baseOffsets[i]!, baseOffsets.length, offset);
    // A constant message: a template here would build a string on every lookup (~0.2 µs).
    assert(slot >= 0, "the offset is at or after the first segment's base");
    return this.#segments[slot]!;
  }

  /** A roll: `next` becomes the active segment. */
  rolled(next: S): void {
    assert(next.baseOffset > this.active.baseOffset, 'a new segment starts after the active one');
    this.#segments.push(next);
    this.#baseOffsets.push(next.baseOffset);
  }

  /** Takes the active segment out of the list (a fence's cut); the one before becomes active. */
  takeActive(): S {
    assert(this.#segments.length > 1, 'a log keeps an active segment');
    this.#baseOffsets.pop();
    return this.#segments.pop()!;
  }

  /** Takes the oldest segment out of the list (retention); never the active one. */
  takeOldest(): S {
    assert(this.#segments.length > 1, 'a log keeps an active segment');
    this.#baseOffsets.shift();
    return this.#segments.shift()!;
  }

  /**
   * Asserts that the list is a log's: sorted by base offset, the mirror of base offsets its own,
   * each segment's invariants held against the next one's base; and that the synced point is
   * not past the log's end, nor past its segment's data while that segment is still in the log
   * (retention may have removed it since).
   */
  checkInvariants(synced: SyncedPoint<S>, endOffset: number): void {
    const segments = this.#segments;
    assert(this.#baseOffsets.length === segments.length, 'a base offset per segment');
    for (const [i, segment] of segments.entries()) {
      assert(this.#baseOffsets[i] === segment.baseOffset, "each base offset is its segment's");
      const next = segments[i + 1];
      if (next !== undefined)
        assert(segment.baseOffset < next.baseOffset, 'segments are sorted by base offset');
      segment.checkInvariants(next?.baseOffset ?? null);
    }
    assert(synced.nextOffset <= endOffset, 'the synced point is not past the end');
    if (!segments.includes(synced.segment)) return;
    assert(synced.positionBytes <= synced.segment.sizeBytes, 'the synced point is in its segment');
  }

  /** Closes every segment; throws the first failure once all are closed or abandoned. */
  close(): void {
    const failures = closeSegments(this.#segments);
    if (failures.length > 0) throw failures[0];
  }

  /** Closes every segment after another failure, which is the one to report. */
  abandon(): void {
    for (const segment of this.#segments) segment.abandon();
  }
}

/**
 * Asserts a segment's end against the next segment's base and returns the end: the active
 * segment (`nextBaseOffset` null) knows its end; a sealed one whose end is known (it was active,
 * or recovery scanned it) ends exactly where the next begins, else the next base stands in.
 */
export function checkedSegmentEnd(
  logPath: string,
  baseOffset: number,
  nextOffset: number | null,
  nextBaseOffset: number | null,
): number {
  if (nextBaseOffset === null) assert(nextOffset !== null, `${logPath}: the active end is known`);
  else if (nextOffset !== null)
    assert(nextOffset === nextBaseOffset, `${logPath}: the segment ends where the next begins`);
  const endOffset = nextOffset ?? nextBaseOffset!;
  assert(endOffset >= baseOffset, `${logPath}: the end is not before the base`);
  return endOffset;
}

/**
 * Runs `open` on a segment being opened or created; when it fails, abandons the segment (closing
 * what it had opened) before rethrowing, so a failed open leaves no handle behind.
 */
export function openedOrAbandoned<T extends { abandon(): void }>(segment: T, open: () => void): T {
  try {
    open();
  } catch (error) {
    segment.abandon();
    throw error;
  }
  return segment;
}

/**
 * Opens a segment for each base offset (`open`) and hands them to `use` (recovery); when an open
 * or `use` fails, every segment opened is abandoned before the failure is rethrown: an open that
 * fails part-way (EMFILE at the 500th segment) must not leak the 499 before it.
 */
export function withSegmentsOpened<T extends { abandon(): void }, R>(
  baseOffsets: readonly number[],
  open: (baseOffset: number) => T,
  use: (segments: T[]) => R,
): R {
  const segments: T[] = [];
  try {
    for (const baseOffset of baseOffsets) segments.push(open(baseOffset));
    return use(segments);
  } catch (error) {
    for (const segment of segments) segment.abandon();
    throw error;
  }
}

type ClosableSegment = Pick<ListedSegment, 'close' | 'delete' | 'abandon'>;

/**
 * Closes each segment; one that fails is abandoned, so no handle leaks. Returns the failures in
 * order.
 */
export function closeSegments(segments: readonly ClosableSegment[]): unknown[] {
  const failures: unknown[] = [];
  for (const segment of segments) {
    try {
      segment.close();
    } catch (error) {
      failures.push(error);
      segment.abandon();
    }
  }
  return failures;
}

/**
 * Deletes `segments` in the order given, each durably (a directory fsync) before the next. A
 * power cut keeps or drops each directory change it did not see made durable, on its own: with
 * one fsync after all of them, a later segment could stay while an earlier one went, a hole
 * that recovery refuses. On a failure the rest are closed, left in place, and the failure
 * thrown.
 */
export function deleteSegmentsDurably(
  io: FileIO,
  dir: string,
  segments: readonly ClosableSegment[],
): void {
  for (const [i, segment] of segments.entries()) {
    try {
      segment.delete();
      io.fsyncDir(dir);
    } catch (error) {
      segment.abandon();
      closeSegments(segments.slice(i + 1));
      throw error;
    }
  }
}
