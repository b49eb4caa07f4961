/**
 * Branded number types that must not be mixed. An Offset is a logical record number in the log
 * (u64 on disk, bigint-safe up to 2^53 here); a Position is a byte inside one segment file (u32 on
 * disk). Each has one checked constructor.
 */
import { assert } from './errors.js';

declare const offsetBrand: unique symbol;
declare const positionBrand: unique symbol;

export type Offset = number & { readonly [offsetBrand]: true };
export type Position = number & { readonly [positionBrand]: true };

export const MAX_POSITION_BYTES = 0xffff_ffff;

export function asOffset(value: number): Offset {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`assertion failed: offset must be a safe integer >= 0: ${value}`);
  return value as Offset;
}

export function asPosition(value: number): Position {
  assert(
    Number.isInteger(value) && value >= 0 && value <= MAX_POSITION_BYTES,
    `position must be an integer in [0, 2^32): ${value}`,
  );
  return value as Position;
}
