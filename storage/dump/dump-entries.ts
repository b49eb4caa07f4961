/** What `loglab dump` reports, one entry at a time (dump.ts, kafka-dump.ts has its own). */

/** A segment whose first record is sound but holds another offset than its file name says. */
export interface DumpedNameMismatch {
  readonly type: 'chain';
  readonly segment: string;
  readonly problem: 'name-mismatch';
  readonly nameOffset: number;
  readonly firstOffset: number;
}

/**
 * Offsets from a sealed segment's last record to the next segment's first: none of its
 * records hold them (gap), or it holds records at or past the next segment's first (overlap).
 */
export interface DumpedOffsetsProblem {
  readonly type: 'chain';
  readonly segment: string;
  readonly problem: 'gap' | 'overlap';
  readonly fromOffset: number;
  readonly toOffset: number;
  readonly next: string;
  /** A crash cut the segment's background sync short (NextSegment.afterSealing). */
  readonly unsynced?: true;
}

/** A sealed segment whose records stop short of the next segment, with bytes after them. */
export interface DumpedDamagedEnd {
  readonly type: 'chain';
  readonly segment: string;
  readonly problem: 'damaged-end';
  readonly fromOffset: number;
  readonly toOffset: number;
  readonly position: number;
  readonly sizeBytes: number;
  readonly next: string;
  readonly unsynced?: true;
}

/** Bytes after a sealed segment's last record, once its records reached the next segment. */
export interface DumpedTrailingBytes {
  readonly type: 'chain';
  readonly segment: string;
  readonly problem: 'trailing-bytes' | 'trailing-zeros';
  readonly position: number;
  readonly sizeBytes: number;
  readonly next: string;
  readonly unsynced?: true;
}

export type DumpedChainProblem =
  | DumpedNameMismatch
  | DumpedOffsetsProblem
  | DumpedDamagedEnd
  | DumpedTrailingBytes;

export interface DumpedRecord {
  readonly type: 'record';
  readonly segment: string;
  readonly offset: number;
  readonly position: number;
  readonly sizeBytes: number;
  readonly crc: string;
  readonly valid: boolean;
  readonly problem?: string;
}

export interface DumpedIndexEntry {
  readonly type: 'index';
  readonly segment: string;
  readonly offset: number;
  readonly position: number;
  readonly valid?: boolean;
  readonly problem?: string;
}

export interface DumpedTimeIndexEntry {
  readonly type: 'timeindex';
  readonly segment: string;
  readonly timestampMs: number;
  readonly offset: number;
}

/** The zero tail of a preallocated (last) segment: no record starts in it. */
export interface DumpedZeros {
  readonly type: 'zeros';
  readonly segment: string;
  readonly position: number;
  readonly sizeBytes: number;
}

/**
 * Behind the last record of a recycled (last) segment file: an older segment's records, every id
 * below this segment's, and anything after them to the end of the file. Not damage: recovery
 * cuts them, and no read reaches them.
 */
export interface DumpedRecycled {
  readonly type: 'recycled';
  readonly segment: string;
  readonly position: number;
  readonly sizeBytes: number;
  /** Where the first whole older record starts (what comes before it is part of one). */
  readonly olderRecordPosition: number;
}

export type DumpEntry =
  | DumpedRecord
  | DumpedIndexEntry
  | DumpedTimeIndexEntry
  | DumpedZeros
  | DumpedRecycled
  | DumpedChainProblem;
