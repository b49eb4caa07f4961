/**
 * Integers in the byte order every loglab file uses, big-endian (Kafka's too): a u32 written by
 * byte stores on the append path, and u64s as safe-integer numbers (offsets, times), shared by
 * the record format, the index files, the checkpoint files and the slot file. It imports
 * nothing, so whatever reads or writes bytes can stand on it: its two checks throw as
 * errors.ts's assert does.
 */

const TWO_TO_32 = 0x1_0000_0000;

/**
 * A big-endian u32 by byte stores: the append path writes three per record, and Buffer's
 * writeUInt32BE re-checks its arguments each time (about 10 ns of a 350 ns encode).
 * The caller guarantees `at + 4` is inside `buffer` and `value` is a u32.
 */
export function putU32(buffer: Uint8Array, value: number, at: number): void {
  buffer[at] = value >>> 24;
  buffer[at + 1] = value >>> 16;
  buffer[at + 2] = value >>> 8;
  buffer[at + 3] = value;
}

export function writeU64(buffer: Buffer, value: number, at: number): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error('assertion failed: a u64 written is a safe integer >= 0');
  if (at < 0 || at + 8 > buffer.length) throw new Error('assertion failed: a u64 fits the buffer');
  putU32(buffer, Math.floor(value / TWO_TO_32), at);
  putU32(buffer, value >>> 0, at + 4);
}

/** Reads a u64 as a number; values above 2^53 are not produced by this log and read as NaN-free floats. */
export function readU64(buffer: Uint8Array, at: number): number {
  const view = buffer as Buffer;
  return view.readUInt32BE(at) * TWO_TO_32 + view.readUInt32BE(at + 4);
}
