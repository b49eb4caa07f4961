/**
 * Page fill: zeros written after an append's records, to the end of the last page the write
 * reaches, when that page holds nothing of the log's yet.
 *
 * A write that covers only part of a page the page cache does not hold makes the kernel read the
 * page from the disk first, synchronously, inside the `pwrite` (a read-modify-write). A log
 * appends into files that already exist beyond its end: a preallocated segment's zeros and, above
 * all, a recycled segment (segment reuse), whose pages were written a retention period ago and are
 * long gone from the cache. Without the fill, the first append into each page of such a file waits
 * for a read of it. With it, the write that first reaches a page covers that page from its start
 * (the rest of the record before it) to its end (the fill), so the kernel has nothing to read,
 * and the appends after it land in a page the cache holds (PostgreSQL writes its WAL in whole
 * pages for the same reason). Measured on this repository's VM, the log under `always` appending
 * into a recycled segment with the page cache dropped: without the fill it read 1,040 bytes from
 * the disk per 1,040-byte append (a page per page written), with it 12-18. The reads cost this VM
 * little, since its host caches the disk (rates with and without the fill, taking turns: 1.008
 * over 60 turns; raw loops 1.000 and 1.025); on a disk where a read waits for the platter to come
 * round, each one would cost a rotation (docs/storage.md).
 *
 * The zeros cost no device bytes: an fdatasync writes whole pages, and the filled page is one the
 * record dirtied anyway. They stay inside the file (never past `fileBytes`), so a fill never
 * changes the file's size, and they are where the next append goes: what follows a log's last
 * record is zeros or an older segment's records either way, and recovery cuts both.
 */

import { invalidConfig } from '../config-checks.js';
import { MAX_PAGE_BYTES, MIN_PAGE_BYTES } from './page-alignment.js';

/**
 * The page cache's unit on Linux x86-64 and most arm64 kernels, the default of the log's
 * `pageBytes`; a kernel of 16 or 64 KiB pages wants its own (`getconf PAGESIZE`).
 */
export const DEFAULT_PAGE_BYTES = 4096;

/** `pageBytes` is 0 (no fill) or a power of two from 512 bytes to 1 MiB. */
export function checkPageBytes(value: number): number {
  const powerOfTwo = Number.isSafeInteger(value) && (value & (value - 1)) === 0;
  if (value === 0 || (powerOfTwo && value >= MIN_PAGE_BYTES && value <= MAX_PAGE_BYTES))
    return value;
  throw invalidConfig(
    'pageBytes',
    `0 (no page fill) or a power of two from ${MIN_PAGE_BYTES} to ${MAX_PAGE_BYTES}`,
    value,
  );
}

/**
 * The zeros to write after a write of `lengthBytes` at `positionBytes` into a file of
 * `fileBytes`, pages of `pageBytes` (0: none): up to the end of the write's last page when the
 * write covers that page from its start, none when the page began before the write (an earlier
 * append brought it into the cache) or the write reaches the end of the file.
 */
export function pageFillBytes(
  positionBytes: number,
  lengthBytes: number,
  fileBytes: number,
  pageBytes: number,
): number {
  const endBytes = positionBytes + lengthBytes;
  if (pageBytes === 0 || lengthBytes <= 0 || endBytes >= fileBytes) return 0;
  const lastPageStart = Math.floor((endBytes - 1) / pageBytes) * pageBytes;
  if (positionBytes > lastPageStart) return 0;
  return Math.min(lastPageStart + pageBytes, fileBytes) - endBytes;
}
