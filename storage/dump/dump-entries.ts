/** What `loglab dump` reports, one entry at a time (dump.ts, kafka-dump.ts has its own). */
import type { DumpedChainProblem } from './dump-chain.js';

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
