/**
 * Message bodies for crash tests, each fully determined by its sequence number, so a body read
 * back after a crash says which message it claims to be and can be checked byte for byte.
 *
 *   byte 0           4                8                 length
 *        +-----------+----------------+-----------------+
 *        | seq u32   | check u32      | filler          |
 *        +-----------+----------------+-----------------+
 *
 * `check` is a hash of the sequence number and the length; the filler repeats bytes drawn from
 * the same hash. A body that is not exactly what `crashBody(seq)` returns is corrupt.
 */
import { assert } from '../errors.js';

export const CRASH_BODY_MIN_BYTES = 8;

function mix32(value: number): number {
  let z = (value + 0x9e37_79b9) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85eb_ca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2_ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

/**
 * The body of message `seq`, between `minBytes` (at least CRASH_BODY_MIN_BYTES) and `maxBytes`
 * long; both equal, every body has that length.
 */
export function crashBody(seq: number, maxBytes: number, minBytes = CRASH_BODY_MIN_BYTES): Buffer {
  assert(Number.isInteger(seq) && seq >= 0 && seq < 2 ** 32, `seq must be a u32: ${seq}`);
  assert(minBytes >= CRASH_BODY_MIN_BYTES, `minBytes must be >= 8: ${minBytes}`);
  assert(maxBytes >= minBytes, `maxBytes must be >= minBytes: ${maxBytes}`);
  const span = maxBytes - minBytes + 1;
  const lengthBytes = minBytes + (mix32(seq ^ 0x5bd1_e995) % span);
  const body = Buffer.alloc(lengthBytes);
  const check = mix32(seq ^ lengthBytes);
  body.writeUInt32BE(seq, 0);
  body.writeUInt32BE(check, 4);
  for (let i = CRASH_BODY_MIN_BYTES; i < lengthBytes; i++) body[i] = (check >>> ((i % 4) * 8)) ^ i;
  return body;
}

/** The sequence number a body claims, or null when it is not a crash body at all. */
export function crashBodySeq(body: Uint8Array): number | null {
  if (body.length < CRASH_BODY_MIN_BYTES) return null;
  return Buffer.from(body.buffer, body.byteOffset, body.length).readUInt32BE(0);
}
