/**
 * Units of the storage core: the binary byte sizes every part of loglab counts in (one
 * declaration, here), and the branded number types that must not be mixed. An Offset is a logical
 * record number in the log (u64 on disk, bigint-safe up to 2^53 here); a Position is a byte inside
 * one segment file (u32 on disk). Each has one checked constructor.
 */

/** 1,024 bytes: `4 * KiB` is a page. */
export const KiB = 1024;
/** 1,048,576 bytes: `64 * MiB` is the default segment. */
export const MiB = 1024 * KiB;
/** 1,073,741,824 bytes. */
export const GiB = 1024 * MiB;

declare const offsetBrand: unique symbol;
declare const positionBrand: unique symbol;

export type Offset = number & { readonly [offsetBrand]: true };
export type Position = number & { readonly [positionBrand]: true };

export const MAX_POSITION_BYTES = 0xffff_ffff;

/**
 * Offsets are u64 on disk but exact in a JS number only up to 2^53 - 1. A writable log must store
 * its next offset (in the recovery point), so its last record may have offset 2^53 - 2 at most;
 * a log that holds offset 2^53 - 1 (written elsewhere) can still be read, and its end offset,
 * 2^53, is the one offset above that this code represents.
 */
export const MAX_END_OFFSET_WRITABLE = Number.MAX_SAFE_INTEGER;
export const MAX_APPEND_OFFSET = MAX_END_OFFSET_WRITABLE - 1;
const MAX_END_OFFSET = 2 ** 53;

export function asOffset(value: number): Offset {
  if (!Number.isInteger(value) || value < 0 || value > MAX_END_OFFSET) {
    throw new Error(`assertion failed: offset must be an integer in [0, 2^53]: ${value}`);
  }
  return value as Offset;
}

// As asOffset: the message is built only when the check fails (every sync makes a position).
export function asPosition(value: number): Position {
  if (!Number.isInteger(value) || value < 0 || value > MAX_POSITION_BYTES) {
    throw new Error(`assertion failed: position must be an integer in [0, 2^32): ${value}`);
  }
  return value as Position;
}
