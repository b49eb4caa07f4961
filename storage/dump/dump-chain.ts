/**
 * The segment chain (segment-chain.ts) as `loglab dump` reports it: the rules the log applies
 * when it opens, applied to what dump's own walk of each segment's records found, so no segment
 * is walked twice. Where the log refuses to open (LOG_GAP, SEGMENT_NAME_MISMATCH,
 * SEGMENT_OVERLAP) or warns (bytes after a sealed segment's last record, a damaged end), dump
 * prints a `chain` entry and goes on: one run shows every break, not just the first.
 *
 * Neighbours are compared by where each segment really starts: its first sound record's id. For
 * a renamed segment that is not its file name's offset; comparing by the name would add a gap
 * or an overlap that renaming the file back removes, so only the name mismatch is reported.
 */
import { couldBeDamagedRecords } from '../log/segment-chain.js';
import * as path from 'node:path';
import { LOG_SUFFIX, segmentFileName } from '../segments/segment-files.js';
import type { DumpedChainProblem, DumpedNameMismatch } from './dump-entries.js';

/** What the walk of a segment's records found at its end. */
export interface SegmentEnd {
  readonly segment: string;
  /** The offset after its last good record (its first offset when it has none). */
  readonly nextOffset: number;
  /** The position after its last good record: where bytes that no good record follows begin. */
  readonly endPositionBytes: number;
  readonly sizeBytes: number;
  /** Every byte from `endPositionBytes` on is zero. */
  readonly zerosAfter: boolean;
  /** Bytes from `endPositionBytes` to the last non-zero byte. */
  readonly damagedBytes: number;
  /** Those bytes open like a record (segment-chain.ts, startsLikeRecord). */
  readonly startsLikeRecord: boolean;
}

/** The segment after a sealed one: its file name and the offset it really starts at. */
export interface NextSegment {
  readonly segment: string;
  readonly startOffset: number;
  /**
   * The recovery point says the segment before this one was being sealed under `none`, its sync
   * still running (log.ts, #rollIfFull): a crash may have left it short, and opening cuts it.
   */
  readonly afterSealing: boolean;
}

/** As checkSegmentName: only a sound first record can say the name is wrong. */
export function nameMismatch(
  segment: string,
  nameOffset: number,
  firstOffset: number | null,
): DumpedNameMismatch | null {
  if (firstOffset === null || firstOffset === nameOffset) return null;
  return { type: 'chain', segment, problem: 'name-mismatch', nameOffset, firstOffset };
}

/** The breaks between a sealed segment and the next one, by checkSealedEnd's rules. */
export function chainProblemsAtEnd(end: SegmentEnd, following: NextSegment): DumpedChainProblem[] {
  const { segment } = end;
  const next = following.segment;
  const sizeBytes = end.sizeBytes - end.endPositionBytes;
  const position = end.endPositionBytes;
  if (end.nextOffset < following.startOffset) {
    const fromOffset = end.nextOffset;
    const toOffset = following.startOffset - 1;
    // Records that end short of the next segment are a removed file or a cut (LOG_GAP), unless
    // the non-zero bytes after them could be the missing records, damaged: the log then opens
    // and reports them (segment-chain.ts, couldHold).
    const unsynced = following.afterSealing ? { unsynced: true as const } : {};
    if (!couldBeDamagedRecords(end.startsLikeRecord, end.damagedBytes, toOffset - fromOffset + 1)) {
      return [{ type: 'chain', segment, problem: 'gap', fromOffset, toOffset, next, ...unsynced }];
    }
    const problem = 'damaged-end';
    return [
      {
        type: 'chain',
        segment,
        problem,
        fromOffset,
        toOffset,
        position,
        sizeBytes,
        next,
        ...unsynced,
      },
    ];
  }
  const problems: DumpedChainProblem[] = [];
  if (end.nextOffset > following.startOffset) {
    const fromOffset = following.startOffset;
    const toOffset = end.nextOffset - 1;
    problems.push({ type: 'chain', segment, problem: 'overlap', fromOffset, toOffset, next });
  }
  if (sizeBytes > 0) {
    const problem = end.zerosAfter ? 'trailing-zeros' : 'trailing-bytes';
    problems.push({ type: 'chain', segment, problem, position, sizeBytes, next });
  }
  return problems;
}

/** The problem in the words of the log's own errors and warnings (segment-chain.ts). */
export function describeChainProblem(entry: DumpedChainProblem): string {
  switch (entry.problem) {
    case 'name-mismatch':
      return (
        `named for offset ${entry.nameOffset} but its first record is offset ` +
        `${entry.firstOffset}: the file was renamed or copied from another log ` +
        `(its records are dumped from offset ${entry.firstOffset})`
      );
    case 'gap':
      return (
        `no records for offsets ${entry.fromOffset} to ${entry.toOffset}: it ends whole at ` +
        `offset ${entry.fromOffset - 1} and the next segment, ${entry.next}, starts at ` +
        `${entry.toOffset + 1}`
      );
    case 'overlap':
      return (
        `holds records at or past offset ${entry.fromOffset} (to ${entry.toOffset}), where ` +
        `the next segment, ${entry.next}, starts: two files claim the same offsets`
      );
    case 'damaged-end':
      return (
        `offsets ${entry.fromOffset} to ${entry.toOffset} are damaged (${entry.sizeBytes} ` +
        `bytes from position ${entry.position}, and the next segment, ${entry.next}, starts at ` +
        `${entry.toOffset + 1}); reads of them report CORRUPT_RECORD, later offsets read as usual`
      );
    case 'trailing-zeros':
    case 'trailing-bytes': {
      const what =
        entry.problem === 'trailing-zeros'
          ? `${entry.sizeBytes} zero bytes`
          : `${entry.sizeBytes} bytes that are not records`;
      return (
        `${what} after its last record (ending at position ${entry.position}); the log ` +
        `leaves them in place and never reads them (the next segment, ${entry.next}, holds the ` +
        'next offset)'
      );
    }
  }
}

/** What to do about the problem, as sentences: the advice of the log's errors, for `dir`. */
export function chainProblemAdvice(entry: DumpedChainProblem, dir: string): string {
  if ('unsynced' in entry && entry.unsynced === true) {
    return (
      "The log stopped before this segment's background sync finished (a roll under " +
      "`none`): this is a crash's torn tail, and opening the log cuts it there"
    );
  }
  switch (entry.problem) {
    case 'name-mismatch':
      return (
        'Rename it (with its .index and .timeindex) to ' +
        `${segmentFileName(entry.firstOffset, LOG_SUFFIX)} if it belongs to this log, else move ` +
        `it out of ${dir}; the log refuses to open until then (SEGMENT_NAME_MISMATCH)`
      );
    case 'gap':
      return (
        `A segment file (probably ${segmentFileName(entry.fromOffset, LOG_SUFFIX)}) was ` +
        'removed or moved, or a file was cut or its end zeroed. Put it back; if those records are lost for good, ' +
        'move every segment before the gap out of the directory so the log starts at ' +
        `${entry.toOffset + 1}; the log refuses to open until then (LOG_GAP)`
      );
    case 'overlap':
      return (
        `Move the one that does not belong to this log out of ${dir}; the log refuses to ` +
        'open until then (SEGMENT_OVERLAP)'
      );
    case 'damaged-end':
      return (
        `Restore ${entry.segment} from a copy if there is one; the log opens and serves ` +
        'every other offset'
      );
    case 'trailing-zeros':
    case 'trailing-bytes':
      return (
        'Nothing the log does leaves bytes after a segment whose records reach the next ' +
        'one: find what wrote to the file. The log opens and never reads them; ' +
        `cutting ${path.join(dir, entry.segment)} to ${entry.position} bytes removes them`
      );
  }
}
