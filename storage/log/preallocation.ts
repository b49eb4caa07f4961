/**
 * A segment file's preallocated space (segment.ts, log.ts): zeros written ahead of the appends
 * so an fdatasync after an append does not also commit a new file size, and the spare — a
 * removed segment's file kept for the next roll — checked and prepared before it is reused.
 */
import { type FileHandle, type FileIO, closeAfterFailure } from '../io/file-io.js';
import { RECORD_HEADER_BYTES } from '../record/record.js';

/** What decides whether a spare fits: the segment's options (segment.ts's SegmentConfig). */
export interface SpareLimits {
  /** The segment size, which preallocation fills. */
  readonly preallocateBytes: number;
  readonly maxRecordBytes: number;
}

/** Zeros are written this much at a time. */
const ZERO_CHUNK_BYTES = 1 << 20;

/** Writes zeros from `fromBytes` to `toBytes` of the file; the caller syncs. */
export function writeZeros(
  io: FileIO,
  handle: FileHandle,
  fromBytes: number,
  toBytes: number,
): void {
  const zeros = Buffer.alloc(Math.min(ZERO_CHUNK_BYTES, toBytes - fromBytes));
  for (let at = fromBytes; at < toBytes; at += zeros.length) {
    io.write(handle, zeros, 0, Math.min(zeros.length, toBytes - at), at);
  }
}

/**
 * Whether a spare of `sizeBytes` is a file a full segment of this configuration leaves: a roll
 * seals a segment when the next record (at most `maxRecordBytes`) does not fit, so its file ends
 * less than one record short of the segment size. A spare made under another segment size (the
 * log reopened with a new one) is not reused: a larger one would let appends run past
 * `segmentBytes`, a much smaller one saves little of the zero-fill.
 */
export function spareFits(sizeBytes: number, config: SpareLimits): boolean {
  const segmentBytes = config.preallocateBytes;
  return (
    sizeBytes >= RECORD_HEADER_BYTES &&
    sizeBytes <= segmentBytes &&
    sizeBytes > segmentBytes - config.maxRecordBytes
  );
}

const ZERO_HEADER = Buffer.alloc(RECORD_HEADER_BYTES);

/**
 * Zeroes the spare's first record header and syncs it; returns the spare's size, or null (and
 * writes nothing) when the spare does not fit. A spare the log laid out (`zeroed`: zeros it
 * synced before naming the file a spare) has no header to zero.
 */
export function prepareSpare(
  io: FileIO,
  spare: string,
  config: SpareLimits,
  zeroed: boolean,
): number | null {
  const handle = io.open(spare, { create: false });
  let sizeBytes: number | null;
  try {
    sizeBytes = io.sizeBytes(handle);
    if (!spareFits(sizeBytes, config)) sizeBytes = null;
    else if (!zeroed) {
      io.write(handle, ZERO_HEADER, 0, RECORD_HEADER_BYTES, 0);
      io.fdatasync(handle);
    }
  } catch (error) {
    closeAfterFailure(io, handle);
    throw error;
  }
  io.close(handle);
  return sizeBytes;
}
