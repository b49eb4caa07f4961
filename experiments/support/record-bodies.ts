/**
 * Record bodies for the storage experiments. Sizes are whole records, the 16-byte header
 * included, as the course counts them (Asha's record is 53 bytes: 16 of header, 37 of body). Bodies
 * are seeded random bytes, so nothing in the path can compress or deduplicate them.
 */
import type { SeededRandom } from '../../lab/index.js';
import { RECORD_HEADER_BYTES } from '../../storage/index.js';
import { assert } from '../../storage/testing/index.js';

/** A fixed whole-record size, or the mixed distribution. */
export type RecordSize = number | 'mixed';

/**
 * The mixed distribution: whole-record sizes log-uniform from the course's smallest record (53 B)
 * to 8 KiB, so small notifications and larger emails share one log.
 */
export const MIXED_MIN_RECORD_BYTES = 53;
export const MIXED_MAX_RECORD_BYTES = 8192;
/** Distinct bodies drawn for the mixed distribution; appends cycle through them. */
const MIXED_POOL_SIZE = 4096;

/** Bodies whose records have `size` bytes; one body for a fixed size, a pool for `mixed`. */
export function recordBodies(random: SeededRandom, size: RecordSize): Buffer[] {
  if (size !== 'mixed') {
    assert(Number.isSafeInteger(size), `record size must be whole bytes: ${size}`);
    assert(size > RECORD_HEADER_BYTES, `a record is larger than its header: ${size}`);
    const body = Buffer.alloc(size - RECORD_HEADER_BYTES);
    random.fillBytes(body);
    return [body];
  }
  const source = Buffer.alloc(MIXED_MAX_RECORD_BYTES - RECORD_HEADER_BYTES);
  random.fillBytes(source);
  const span = Math.log(MIXED_MAX_RECORD_BYTES / MIXED_MIN_RECORD_BYTES);
  return Array.from({ length: MIXED_POOL_SIZE }, () => {
    const recordBytes = Math.round(MIXED_MIN_RECORD_BYTES * Math.exp(random.nextFloat() * span));
    return source.subarray(0, recordBytes - RECORD_HEADER_BYTES);
  });
}

/** The mean of the mixed distribution: (max - min) / ln(max / min) for a log-uniform draw. */
export function mixedMeanRecordBytes(): number {
  const span = Math.log(MIXED_MAX_RECORD_BYTES / MIXED_MIN_RECORD_BYTES);
  return (MIXED_MAX_RECORD_BYTES - MIXED_MIN_RECORD_BYTES) / span;
}

/** The mean whole-record size of `bodies`, appended in turn. */
export function meanRecordBytes(bodies: readonly Buffer[]): number {
  assert(bodies.length > 0, 'bodies to average');
  const bodyBytes = bodies.reduce((sum, body) => sum + body.length, 0);
  return RECORD_HEADER_BYTES + bodyBytes / bodies.length;
}
