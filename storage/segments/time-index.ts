/**
 * The time index of one segment (`<base offset>.timeindex`), written at the same moment as the
 * offset index, and for the segment's first record (segment.ts).
 *
 *   entry (12 bytes, big-endian):  +-----------------------------------+-----------------+
 *                                  |           timestamp (ms)          | relative offset |
 *                                  |                u64                |       u32       |
 *                                  +-----------------------------------+-----------------+
 *
 * The timestamp is the wall-clock time of the append that made the entry; timestamps never
 * decrease (a clock that steps back is clamped to the last entry's time), relative offsets
 * strictly increase. The log holds no times, so this is the one index that is not a pure copy:
 * entries lost in a crash are written again with the time of the recovery, so those messages look
 * a little younger than they are — kept a little longer, never dropped early.
 */
import type { FileIO } from '../io/file-io.js';
import { assert } from '../errors.js';
import {
  F64Column,
  type IndexFile,
  TwoColumnIndex,
  U32Column,
  createIndexFile,
  loadIndexFile,
  smallestUpperBoundSlot,
  type IndexLoad,
  type IndexMode,
} from './index-file.js';
import { putU32, readU64, writeU64 } from '../big-endian.js';

export const TIME_INDEX_ENTRY_BYTES = 12;
assert(TIME_INDEX_ENTRY_BYTES === 8 + 4, 'time index entry is timestamp + relative offset');

/** Columns: `first` holds timestamps (ms), `second` relative offsets. */
export class TimeIndex extends TwoColumnIndex {
  private constructor(file: IndexFile) {
    super(file, new F64Column(), new U32Column());
  }

  static create(io: FileIO, path: string, mode: IndexMode = 'append'): TimeIndex {
    return new TimeIndex(createIndexFile(io, path, TIME_INDEX_ENTRY_BYTES, mode));
  }

  /**
   * Loads the longest valid prefix: non-decreasing times, strictly increasing relative offsets
   * below `nextRelativeOffset`. In `append` mode the file stays open and is cut to that prefix.
   */
  static load(
    io: FileIO,
    path: string,
    nextRelativeOffset: number,
    mode: IndexMode,
  ): { index: TimeIndex; load: IndexLoad } {
    return loadIndexFile(
      io,
      path,
      TIME_INDEX_ENTRY_BYTES,
      mode,
      (file) => new TimeIndex(file),
      (index, bytes, at) => {
        const timestampMs = readU64(bytes, at);
        const relativeOffset = bytes.readUInt32BE(at + 8);
        if (!index.#accepts(timestampMs, relativeOffset) || relativeOffset >= nextRelativeOffset)
          return false;
        index.push(timestampMs, relativeOffset);
        return true;
      },
    );
  }

  get lastTimestampMs(): number {
    return this.entries === 0 ? 0 : this.first.at(this.entries - 1);
  }

  timestampMsAt(slot: number): number {
    return this.first.at(slot);
  }

  relativeOffsetAt(slot: number): number {
    return this.second.at(slot);
  }

  append(timestampMs: number, relativeOffset: number): void {
    // Whole ms, as stored; a custom clock may return fractions.
    const clampedMs = Math.max(Math.floor(timestampMs), this.lastTimestampMs);
    assert(
      this.#accepts(clampedMs, relativeOffset),
      'time index relative offsets strictly increase',
    );
    this.push(clampedMs, relativeOffset);
    const at = this.file.reserve();
    writeU64(this.file.pending, clampedMs, at);
    putU32(this.file.pending, relativeOffset, at + 8);
  }

  /**
   * Kafka's TimeIndex.maybeAppend: an entry only when `timestampMs` (in whole ms) is above the last
   * entry's and `relativeOffset` follows its. A later entry of the same ms would answer no lookup
   * the first one does not.
   */
  maybeAppend(timestampMs: number, relativeOffset: number): void {
    const last = this.entries - 1;
    const wholeMs = Math.floor(timestampMs);
    const lastMs = last < 0 ? -1 : this.timestampMsAt(last);
    const lastRelative = last < 0 ? -1 : this.relativeOffsetAt(last);
    if (wholeMs > lastMs && relativeOffset > lastRelative) this.append(wholeMs, relativeOffset);
  }

  /** The first entry slot whose time is >= `timestampMs`, or `entries` when none is. */
  firstSlotAtOrAfter(timestampMs: number): number {
    return smallestUpperBoundSlot((slot) => this.first.at(slot), this.entries, timestampMs);
  }

  /** Drops every entry whose relative offset is >= `relativeOffset`. */
  truncateFromRelativeOffset(relativeOffset: number): void {
    let keep = this.entries;
    while (keep > 0 && this.second.at(keep - 1) >= relativeOffset) keep--;
    this.keepEntries(keep);
  }

  /**
   * Asserts that the entries still keep the rules `load` and `append` enforce one entry at a
   * time (Segment.checkInvariants): times never decrease, relative offsets strictly increase, the
   * last one below `nextRelativeOffset`. It walks every entry.
   */
  checkEntries(nextRelativeOffset: number): void {
    for (let slot = 1; slot < this.entries; slot++) {
      const follows = this.#follows(slot - 1, this.first.at(slot), this.second.at(slot));
      assert(follows, `${this.path}: entry ${slot} follows entry ${slot - 1}`);
    }
    const last = this.entries - 1;
    if (last < 0) return;
    assert(
      this.second.at(last) < nextRelativeOffset,
      `${this.path}: the last entry names a record of the segment`,
    );
  }

  #accepts(timestampMs: number, relativeOffset: number): boolean {
    return this.#follows(this.entries - 1, timestampMs, relativeOffset);
  }

  /** Whether an entry may come after the one at `slot` (-1: none before it). */
  #follows(slot: number, timestampMs: number, relativeOffset: number): boolean {
    return (
      slot < 0 || (timestampMs >= this.first.at(slot) && relativeOffset > this.second.at(slot))
    );
  }
}
