/**
 * Page alignment: under `always` and `group`, a write whose first record would cross a page
 * boundary starts at that boundary instead, leaving the rest of the page unused (a gap).
 *
 * An fdatasync writes every page its records touched, whole. A 1,040-byte record appended after a
 * synced one crosses into the next page a quarter of the time, and its sync then writes two
 * pages, one of them the page the previous sync already wrote: 1.25 pages a sync on average
 * (docs/storage.md, the byte ledger). Started at the boundary, it dirties one page: each sync
 * writes one page, as fio's 1 KiB writes do. The price is the gaps: three 1,040-byte records to
 * a 4 KiB page instead of 3.94, 31% more of the segment for the same records, for 20% fewer
 * bytes written to the device per synced append (the plain loop measured here: 5,280 B a message
 * unaligned, 4,255 aligned). Oracle's redo log pays the same kind of price at each commit
 * ("redo wastage"), as do SQL Server's log blocks. Only a write's first record is moved: the rest
 * follow it in pages the same sync writes anyway; and only a record that fits in a page, since a
 * larger one crosses a boundary wherever it starts.
 *
 * A gap is never written: its bytes are whatever the file held there (the page fill's zeros,
 * preallocated zeros, a recycled file's older records). Readers need no flag to find the record
 * after it. Where the record expected at a position is not there, it is looked for at the next
 * boundaries above (of every power of two from 512 bytes to 1 MiB, so a log reopened with another
 * `pageBytes` still reads its older gaps), and taken only when it is whole (CRC), carries exactly
 * the id expected next, and would not have fitted before the boundary. A record with that id
 * exists nowhere else: the writer writes each id once, recovery and the fence cut the file after
 * the last good record, and a recycled file's records carry ids from below its base offset. So a
 * gap cannot hide a damaged record (the record after a damaged one carries a higher id) and an
 * old record cannot pass for the next one.
 *
 * The search's check of a frame (frameSizeWithId) is here too, and its sibling soundRecordIdAt,
 * the id of any sound record at a position, which the chain check, recovery and dump use.
 */
import type { ReadWindow } from '../io/read-window.js';
import { RECORD_HEADER_BYTES, checkRecord, frameSizeAt, recordIdAt } from './record.js';

/**
 * The page sizes a log may use (`pageBytes`, checked by page-fill.ts): the boundaries a gap may
 * end at, and the largest page fill, how far past a log's last record its zeros can reach.
 */
export const MIN_PAGE_BYTES = 512;
export const MAX_PAGE_BYTES = 1 << 20;

/** Where a record starts, and its offset. */
export interface RecordStart {
  readonly positionBytes: number;
  readonly offset: number;
}

/**
 * Where a write whose first record is `firstRecordBytes` long starts when the data ends at
 * `endBytes`: `endBytes`, or the next multiple of `pageBytes` when the record would cross it and
 * fits in a page (`pageBytes` 0: never moved).
 */
export function alignedWriteStart(
  endBytes: number,
  firstRecordBytes: number,
  pageBytes: number,
): number {
  if (pageBytes === 0 || firstRecordBytes > pageBytes) return endBytes;
  const inPage = endBytes % pageBytes;
  if (inPage === 0 || inPage + firstRecordBytes <= pageBytes) return endBytes;
  return endBytes - inPage + pageBytes;
}

/** A record found after a gap. */
export interface RecordAfterGap {
  readonly positionBytes: number;
  readonly sizeBytes: number;
}

/**
 * Record `expectedId` when a gap follows `positionBytes` (where it was expected and is not), or
 * null when no boundary above holds it (see the top). `window` is bound to the file; nothing at
 * or past `endBytes` is read.
 */
export function recordAfterGap(
  window: ReadWindow,
  positionBytes: number,
  expectedId: number,
  endBytes: number,
  maxRecordBytes: number,
): RecordAfterGap | null {
  return afterGap(window, positionBytes, expectedId, endBytes, maxRecordBytes, true);
}

/**
 * recordAfterGap for what recovery cuts: a frame whose header carries `expectedId` and a
 * plausible length, whole or torn (recycled-tail.ts counts it with the torn records).
 */
export function frameAfterGap(
  window: ReadWindow,
  positionBytes: number,
  expectedId: number,
  endBytes: number,
  maxRecordBytes: number,
): RecordAfterGap | null {
  return afterGap(window, positionBytes, expectedId, endBytes, maxRecordBytes, false);
}

function afterGap(
  window: ReadWindow,
  positionBytes: number,
  expectedId: number,
  endBytes: number,
  maxRecordBytes: number,
  whole: boolean,
): RecordAfterGap | null {
  let previous = positionBytes;
  for (let unit = MIN_PAGE_BYTES; unit <= MAX_PAGE_BYTES; unit *= 2) {
    const boundary = positionBytes - (positionBytes % unit) + unit;
    if (boundary === previous) continue;
    previous = boundary;
    if (boundary + RECORD_HEADER_BYTES > endBytes) return null;
    const sizeBytes = frameSizeWithId(
      window,
      boundary,
      expectedId,
      endBytes,
      maxRecordBytes,
      whole,
    );
    // The writer moves a record only when it would not have fitted before the boundary.
    if (sizeBytes > boundary - positionBytes) return { positionBytes: boundary, sizeBytes };
  }
  return null;
}

/**
 * The size of the frame at `positionBytes` when it carries `expectedId` and a plausible length
 * (and, `whole`, checks: CRC and all); else 0. `window` is bound to the file.
 */
export function frameSizeWithId(
  window: ReadWindow,
  positionBytes: number,
  expectedId: number,
  endBytes: number,
  maxRecordBytes: number,
  whole: boolean,
): number {
  const at = window.ensure(positionBytes, RECORD_HEADER_BYTES, endBytes);
  if (at < 0 || recordIdAt(window.buffer, at) !== expectedId) return 0;
  const size = frameSizeAt(window.buffer, at, maxRecordBytes);
  if (typeof size === 'string') return 0;
  if (!whole) return size;
  const record = window.ensure(positionBytes, size, endBytes);
  return record >= 0 && checkRecord(window.buffer, record, size, expectedId) === null ? size : 0;
}

/**
 * The id of the record at `positionBytes` when it is sound (plausible length, good CRC), whatever
 * id it holds; null when there is none or it is damaged. `window` is bound to the file.
 */
export function soundRecordIdAt(
  window: ReadWindow,
  positionBytes: number,
  endBytes: number,
  maxRecordBytes: number,
): number | null {
  const at = window.ensure(positionBytes, RECORD_HEADER_BYTES, endBytes);
  if (at < 0) return null;
  const id = recordIdAt(window.buffer, at);
  return frameSizeWithId(window, positionBytes, id, endBytes, maxRecordBytes, true) > 0 ? id : null;
}
