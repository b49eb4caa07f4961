/**
 * What opening a log found and did (log-loader.ts): how the scan started, what it walked, what it
 * cut and removed, what it left in place; and the same as lines for people.
 */
import * as path from 'node:path';

/** What recovery's cut of the tail discarded (truncation.ts measures it). */
export interface TruncationReport {
  readonly segment: string;
  readonly positionBytes: number;
  /** Bytes cut up to the last non-zero byte: data that was written but is not a whole record. */
  readonly discardedBytes: number;
  /** Zero bytes after that: preallocated or zero-filled space, nothing that was ever data. */
  readonly zeroTailBytes: number;
  /**
   * In a recycled file (log.ts, segment reuse): the bytes from the end of the discarded ones to
   * the end of the file, records of the older segment the file held (and any zeros after them),
   * never data of this segment. Discarded then counts only frames that carry this segment's
   * next ids. 0 in a file that was not recycled.
   */
  readonly recycledBytes: number;
  /** Record-shaped frames in the discarded bytes (a torn last record counts as one). */
  readonly discardedRecords: number;
  readonly reason: string;
}

/** Something found at the end of a sealed segment that does not stop the log from opening. */
export interface ChainFinding {
  readonly segment: string;
  readonly kind: 'trailing-zeros' | 'trailing-bytes' | 'damaged-end';
  readonly positionBytes: number;
  readonly sizeBytes: number;
  readonly message: string;
}

export interface RecoveryReport {
  /** How the scan of the active segment started: nothing to scan, from the point, or whole. */
  readonly startedFrom: 'new-log' | 'recovery-point' | 'segment-start';
  /** Why the saved recovery point was not used, when it was not. */
  readonly recoveryPointProblem: string | null;
  readonly scannedSegments: number;
  /** Bytes of the active segment checked record by record after the trusted point. */
  readonly scannedBytes: number;
  readonly scannedRecords: number;
  /** Bytes walked to check the segment chain and the recovery point against the data. */
  readonly checkedBytes: number;
  readonly truncation: TruncationReport | null;
  /**
   * Segments after a cut: written after the last sync, like the tail cut before them. A
   * read-only open leaves them in place and does not read them.
   */
  readonly removedSegments: readonly string[];
  readonly indexEntriesRebuilt: number;
  readonly timeIndexEntriesAdded: number;
  /**
   * A writable open found a spare segment file (log.ts, segment reuse) and unlinked it: a spare
   * is reused only by the process that made it.
   */
  readonly spareRemoved: boolean;
  /** Damage and stray bytes the open found and left in place (the log still opened). */
  readonly findings: readonly ChainFinding[];
  /** The findings as lines for people. */
  readonly warnings: readonly string[];
}

/** The counts recovery adds to as it walks (part of the report). */
export interface RecoveryCounts {
  scannedSegments: number;
  scannedBytes: number;
  scannedRecords: number;
  checkedBytes: number;
  indexEntriesRebuilt: number;
  timeIndexEntriesAdded: number;
}

export function emptyReport(): RecoveryReport {
  return {
    startedFrom: 'recovery-point',
    recoveryPointProblem: null,
    scannedSegments: 0,
    scannedBytes: 0,
    scannedRecords: 0,
    checkedBytes: 0,
    truncation: null,
    removedSegments: [],
    indexEntriesRebuilt: 0,
    timeIndexEntriesAdded: 0,
    spareRemoved: false,
    findings: [],
    warnings: [],
  };
}

export function describeRecovery(report: RecoveryReport): string {
  if (report.startedFrom === 'new-log') return 'new log created';
  const lines = [
    `recovered: scanned ${report.scannedRecords} records (${report.scannedBytes} bytes) in ${report.scannedSegments} segment(s) from the ${report.startedFrom}`,
  ];
  if (report.recoveryPointProblem !== null)
    lines.push(`recovery point not used: ${report.recoveryPointProblem}`);
  const cut = report.truncation;
  if (cut !== null && cut.recycledBytes > 0) {
    const why = cut.discardedRecords > 0 ? ` (${cut.reason})` : '';
    lines.push(
      `cut ${path.basename(cut.segment)} at position ${cut.positionBytes}: ` +
        `${cut.discardedBytes} bytes, ${cut.discardedRecords} record(s) discarded${why}, ` +
        `then ${cut.recycledBytes} bytes of older records the recycled file held (not damage)`,
    );
  } else if (cut !== null) {
    lines.push(
      `cut ${path.basename(cut.segment)} at position ${cut.positionBytes}: ${cut.discardedBytes} bytes, ` +
        `${cut.discardedRecords} record(s) discarded (${cut.reason}), then ${cut.zeroTailBytes} zero bytes`,
    );
  }
  if (report.spareRemoved) lines.push('removed the spare segment file the last run left');
  if (report.removedSegments.length > 0) {
    lines.push(
      `removed ${report.removedSegments.length} later segment(s), written after the cut and never synced`,
    );
  }
  if (report.indexEntriesRebuilt > 0)
    lines.push(`rebuilt ${report.indexEntriesRebuilt} index entries`);
  lines.push(...report.warnings.map((warning) => `warning: ${warning}`));
  return lines.join('\n');
}
