/**
 * Log options, their defaults and their limits. Positions are u32 in the index, so a segment must
 * stay below 4 GiB; relative offsets are u32 too, which a segment below 4 GiB always satisfies
 * (every record takes at least 16 bytes, so at most 2^28 records fit).
 */
import { checkInteger, invalidConfig } from '../config-checks.js';
import { DEFAULT_PAGE_BYTES, checkPageBytes } from '../record/page-fill.js';
import { DirectWrites } from '../io/direct-write.js';
import type { FileIO } from '../io/file-io.js';
import { NodeFileIO } from '../io/node-file-io.js';
import { DEFAULT_MAX_RECORD_BYTES, RECORD_HEADER_BYTES } from '../record/record.js';
import {
  DEFAULT_DURABILITY,
  DEFAULT_SYNC_MODE,
  type DurabilityPolicy,
  type SyncMode,
  parseDurabilityPolicy,
  parseSyncMode,
  resolveGroupCommitOptions,
  syncsBeforeAcknowledging,
} from '../io/durability.js';
import { MAX_POSITION_BYTES, MiB } from '../units.js';
import { wallClockMs } from '../io/wall-clock.js';

export interface LogOptions {
  /** Offset of the first record of a new log (ignored when the log exists). */
  readonly baseOffset?: number;
  readonly segmentBytes?: number;
  /** 0 = dense: an entry for every record. */
  readonly indexIntervalBytes?: number;
  readonly maxRecordBytes?: number;
  /** When an append may be acknowledged (durability.ts); default `group`. */
  readonly durability?: DurabilityPolicy;
  readonly groupMaxDelayMs?: number;
  readonly groupMaxBytes?: number;
  /** Where the fdatasyncs of `always` and `group` run (durability.ts); default `thread-pool`. */
  readonly syncMode?: SyncMode;
  /** How many synced bytes between two saved recovery points. */
  readonly recoveryPointIntervalBytes?: number;
  /**
   * Zero-fill the active segment ahead of the appends, up to segmentBytes. Default: on for
   * `always` and `group` (an fdatasync then commits data only, not a growing file size: measured
   * ~1.2-1.5x more syncs per second on ext4), off for `none` (it would write every byte twice).
   */
  readonly preallocate?: boolean;
  /**
   * How far each preallocation reaches, zeros and their fdatasync in one go (default 4 MiB): the
   * stall of the append that crosses into space not yet preallocated.
   */
  readonly preallocateExtentBytes?: number;
  /**
   * Where segments are preallocated, lay out the next segment's file (zeros, synced) on the thread
   * pool once the active one is half full, so the roll renames it into place and no extent is
   * zero-filled on the event loop (spare-segment.ts). Default on; it holds one segment of disk
   * beside the log until the roll. Off: each new segment zero-fills its extents as it fills.
   */
  readonly layOutSpares?: boolean;
  /**
   * The page cache's page size: where an append first reaches a page past the data (a
   * preallocated or recycled file), the same write zeroes the rest of the page, so the kernel
   * never reads the page from the disk before writing it (page-fill.ts). Default 4096; 0 turns
   * the fill off.
   */
  readonly pageBytes?: number;
  /**
   * A write whose first record would cross a page boundary starts at that boundary instead, so a
   * sync after one record writes one page, not two (page-alignment.ts): 20% fewer device bytes
   * per synced 1 KiB append, for up to 31% more segment space. Default: on for `always` and
   * `group` when `pageBytes` is not 0, off for `none` (nothing is synced per write there).
   */
  readonly pageAlign?: boolean;
  /**
   * Under `always` and `group`, write records to the device through an O_DIRECT handle in
   * 512-byte blocks instead of through the page cache (direct-write.ts): a synced 1 KiB append
   * then costs the device about 1.6 KB, not a 4 KiB page, and `pageAlign` defaults to off.
   * This process's readers take the newest 256 KiB of the active segment from memory; others
   * read them from the device. Where the system refuses direct writes the log writes through the
   * page cache and says so (`Log.directWrites`). Default off; INVALID_CONFIG under `none`, where
   * no write waits for the device.
   */
  readonly directWrites?: boolean;
  readonly io?: FileIO;
  /** Wall clock for time-index entries, ms since the epoch. */
  readonly nowMs?: () => number;
  /**
   * Open for reading only: no lock is taken, no file or directory is created or changed (a torn
   * tail is left in place and not read), appends throw LOG_READ_ONLY, and a directory without a
   * log throws LOG_NOT_FOUND. For tools (`loglab read`, `dump`) and readers beside a writer.
   */
  readonly readOnly?: boolean;
}

export interface LogConfig {
  readonly baseOffset: number;
  readonly segmentBytes: number;
  readonly indexIntervalBytes: number;
  readonly maxRecordBytes: number;
  readonly durability: DurabilityPolicy;
  readonly groupMaxDelayMs: number;
  readonly groupMaxBytes: number;
  readonly syncMode: SyncMode;
  readonly recoveryPointIntervalBytes: number;
  /** 0 when segments are not preallocated, else segmentBytes. */
  readonly preallocateBytes: number;
  readonly preallocateExtentBytes: number;
  readonly layOutSpares: boolean;
  readonly pageBytes: number;
  readonly pageAlign: boolean;
  /** Null when off; else what the system said of them, shared by the log's segments. */
  readonly directWrites: DirectWrites | null;
  readonly io: FileIO;
  readonly nowMs: () => number;
  readonly readOnly: boolean;
}

export const DEFAULT_SEGMENT_BYTES = 64 * MiB;
export const DEFAULT_INDEX_INTERVAL_BYTES = 4096;
export const DEFAULT_RECOVERY_POINT_INTERVAL_BYTES = 16 * MiB;
/**
 * Zero-filling a whole 64 MiB segment at its first append stalled that append 42-57 ms here;
 * 4 MiB extents stall it 4-8 ms, with the same rate and p99 (docs/storage.md).
 */
export const DEFAULT_PREALLOCATE_EXTENT_BYTES = 4 * MiB;
const MIN_PREALLOCATE_EXTENT_BYTES = 512;
const MIN_SEGMENT_BYTES = 1024;

export function resolveLogConfig(options: LogOptions): LogConfig {
  const segmentBytes = checkInteger(
    'segmentBytes',
    options.segmentBytes ?? DEFAULT_SEGMENT_BYTES,
    MIN_SEGMENT_BYTES,
    MAX_POSITION_BYTES,
  );
  const maxRecordBytes = checkInteger(
    'maxRecordBytes',
    options.maxRecordBytes ?? Math.min(DEFAULT_MAX_RECORD_BYTES, segmentBytes),
    RECORD_HEADER_BYTES,
    segmentBytes,
  );
  const durability = parseDurabilityPolicy(options.durability ?? DEFAULT_DURABILITY);
  const group = resolveGroupCommitOptions(options.groupMaxDelayMs, options.groupMaxBytes);
  const pageBytes = checkPageBytes(options.pageBytes ?? DEFAULT_PAGE_BYTES);
  const directWrites = checkDirectWrites(options.directWrites ?? false, durability);
  // Direct writes go in 512-byte blocks: a record crossing a page costs them nothing more.
  const alignsByDefault = pageBytes > 0 && syncsBeforeAcknowledging(durability) && !directWrites;
  return {
    preallocateBytes:
      (options.preallocate ?? syncsBeforeAcknowledging(durability)) ? segmentBytes : 0,
    preallocateExtentBytes: checkInteger(
      'preallocateExtentBytes',
      options.preallocateExtentBytes ?? DEFAULT_PREALLOCATE_EXTENT_BYTES,
      MIN_PREALLOCATE_EXTENT_BYTES,
      MAX_POSITION_BYTES,
    ),
    layOutSpares: options.layOutSpares ?? true,
    pageBytes,
    pageAlign: checkPageAlign(options.pageAlign ?? alignsByDefault, pageBytes),
    directWrites: directWrites ? new DirectWrites() : null,
    baseOffset: checkInteger('baseOffset', options.baseOffset ?? 0, 0, Number.MAX_SAFE_INTEGER),
    segmentBytes,
    indexIntervalBytes: checkInteger(
      'indexIntervalBytes',
      options.indexIntervalBytes ?? Math.min(DEFAULT_INDEX_INTERVAL_BYTES, segmentBytes),
      0,
      segmentBytes,
    ),
    maxRecordBytes,
    durability,
    groupMaxDelayMs: group.maxDelayMs,
    groupMaxBytes: group.maxBytes,
    syncMode: parseSyncMode(options.syncMode ?? DEFAULT_SYNC_MODE),
    recoveryPointIntervalBytes: checkInteger(
      'recoveryPointIntervalBytes',
      options.recoveryPointIntervalBytes ?? DEFAULT_RECOVERY_POINT_INTERVAL_BYTES,
      1,
      Number.MAX_SAFE_INTEGER,
    ),
    io: options.io ?? new NodeFileIO(),
    nowMs: options.nowMs ?? wallClockMs,
    readOnly: options.readOnly ?? false,
  };
}

/** A direct write waits for the device: under `none` nothing else would. */
function checkDirectWrites(directWrites: boolean, durability: DurabilityPolicy): boolean {
  if (typeof directWrites !== 'boolean')
    throw invalidConfig('directWrites', 'true or false', directWrites);
  if (directWrites && !syncsBeforeAcknowledging(durability))
    throw invalidConfig(
      'directWrites',
      `false under durability ${durability} (a direct write waits for the device, which nothing under ${durability} does; its appends stay in the page cache)`,
      true,
    );
  return directWrites;
}

/** Alignment moves records to page boundaries: it needs a page size. */
function checkPageAlign(pageAlign: boolean, pageBytes: number): boolean {
  if (typeof pageAlign !== 'boolean') throw invalidConfig('pageAlign', 'true or false', pageAlign);
  if (pageAlign && pageBytes === 0)
    throw invalidConfig('pageAlign', 'false when pageBytes is 0 (no page size to align to)', true);
  return pageAlign;
}
