/**
 * Closing and removing segments of either log kind (log.ts, log-loader.ts, batched-log.ts)
 * without leaking a handle when one of them fails.
 */
import type { FileIO } from './file-io.js';

interface ClosableSegment {
  close(): void;
  delete(): void;
  abandon(): void;
}

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
