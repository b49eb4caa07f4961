/**
 * The floor of a synced append's device bytes: the file-system blocks its record touches. A sync
 * writes every block the record dirtied, whole, so a record that crosses a block boundary costs
 * two blocks however few of its bytes fall in the second. Appending records of one size one after
 * another, a record starts at every multiple of gcd(recordBytes, blockBytes) within a block
 * equally often; the floor is the average over those starts.
 *
 * For 1,040-byte records (a 1 KiB body and the 16-byte header) in 4 KiB blocks: starts at
 * multiples of 16, a quarter of them cross, 1.25 blocks, 5,120 bytes per synced append. fio's
 * 1,024-byte writes never cross: 4,096. Nor does a record the log moves to the next block instead
 * of crossing (storage/record/page-alignment.ts): one block per append, and a block holds fewer records
 * (three 1,040-byte ones), so a segment takes more bytes per record.
 */
import { assert } from '../../storage/errors.js';

/** Blocks one record of `recordBytes` touches, averaged over where it starts. */
export function blocksPerAppend(recordBytes: number, blockBytes: number): number {
  const positive = (bytes: number) => Number.isSafeInteger(bytes) && bytes > 0;
  assert(
    positive(recordBytes) && positive(blockBytes),
    'record and block sizes are positive integers',
  );
  const stride = gcd(recordBytes, blockBytes);
  let blocks = 0;
  for (let startBytes = 0; startBytes < blockBytes; startBytes += stride)
    blocks += Math.ceil((startBytes + recordBytes) / blockBytes);
  return blocks / (blockBytes / stride);
}

/** The device bytes of one synced append when nothing but its record's blocks are written. */
export function pageFloorBytesPerAppend(recordBytes: number, blockBytes: number): number {
  return blocksPerAppend(recordBytes, blockBytes) * blockBytes;
}

/** pageFloorBytesPerAppend for a log that aligns: one block for a record that fits in one. */
export function alignedFloorBytesPerAppend(recordBytes: number, blockBytes: number): number {
  return recordBytes <= blockBytes ? blockBytes : pageFloorBytesPerAppend(recordBytes, blockBytes);
}

/** Segment bytes a record of `recordBytes` takes when the log aligns (gaps included). */
export function alignedSegmentBytesPerRecord(recordBytes: number, blockBytes: number): number {
  return recordBytes <= blockBytes
    ? blockBytes / Math.floor(blockBytes / recordBytes)
    : recordBytes;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}
