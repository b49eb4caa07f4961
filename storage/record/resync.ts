/**
 * Finding the record after a damaged one, so that one damaged record costs one record — not the
 * rest of its segment (NSQ) or of the log (Kafka).
 *
 * Records follow each other with nothing in between but alignment's gaps (page-alignment.ts),
 * each opening with its length. A damaged record whose length is intact ends where that length
 * says, and the next record — id one higher, CRC good — starts there or after a gap there. When
 * the length itself is damaged, the next record is found by what it must be: from the damaged
 * position on, the first frame whose length is plausible, whose whole record checks (CRC) and
 * whose id is above the damaged one by at most the number of records that fit in between (each
 * takes at least RECORD_HEADER_BYTES). Only frames with such an id are checksummed, so the walk
 * is one 8-byte compare per byte until then. A frame that passes must also be followed by the
 * record after it (or by the end of the data), so a record carried inside the damaged one's body
 * is passed over.
 */
import type { ReadWindow } from '../io/read-window.js';
import { type RecordStart, frameSizeWithId, recordAfterGap } from './page-alignment.js';
import { RECORD_HEADER_BYTES, frameSizeAt, recordIdAt } from './record.js';

/**
 * The first good record after the damaged record at `damagedPosition` (expected to hold
 * `damagedOffset`), or null when none starts before `fileSizeBytes`. `window` is bound to the
 * file.
 */
export function findRecordAfterDamage(
  window: ReadWindow,
  fileSizeBytes: number,
  damagedPosition: number,
  damagedOffset: number,
  maxRecordBytes: number,
  /** No record starts at or past here (the file's zero tail starts here, say). */
  searchEndBytes = fileSizeBytes,
): RecordStart | null {
  const declaredEnd = declaredEndOf(window, fileSizeBytes, damagedPosition, maxRecordBytes);
  if (declaredEnd !== null) {
    const next = damagedOffset + 1;
    const at = nextRecordStart(window, fileSizeBytes, declaredEnd, next, maxRecordBytes);
    if (at >= 0) return { positionBytes: at, offset: next };
  }
  const first = damagedPosition + RECORD_HEADER_BYTES;
  const last = Math.min(fileSizeBytes - RECORD_HEADER_BYTES, searchEndBytes - 1);
  let uncorroborated: RecordStart | null = null;
  for (let position = first; position <= last; position++) {
    const at = window.ensure(position, RECORD_HEADER_BYTES, fileSizeBytes);
    if (at < 0) break;
    const id = recordIdAt(window.buffer, at);
    const mostSkipped = Math.floor((position - damagedPosition) / RECORD_HEADER_BYTES);
    if (id <= damagedOffset || id > damagedOffset + mostSkipped) continue;
    if (frameSizeWithId(window, position, id, fileSizeBytes, maxRecordBytes, true) === 0) continue;
    const candidate = { positionBytes: position, offset: id };
    if (isCorroborated(window, fileSizeBytes, candidate, maxRecordBytes, searchEndBytes))
      return candidate;
    uncorroborated ??= candidate;
  }
  return uncorroborated;
}

/**
 * A candidate found by scanning could be a record someone put inside the damaged record's body
 * (a forwarded or archived record): the real next one is followed by the record after it, or by
 * the end of the data. The first candidate so followed wins; failing that, the first one found.
 */
function isCorroborated(
  window: ReadWindow,
  fileSizeBytes: number,
  candidate: RecordStart,
  maxRecordBytes: number,
  searchEndBytes: number,
): boolean {
  const end = declaredEndOf(window, fileSizeBytes, candidate.positionBytes, maxRecordBytes)!;
  if (end >= Math.min(fileSizeBytes, searchEndBytes)) return true;
  return nextRecordStart(window, fileSizeBytes, end, candidate.offset + 1, maxRecordBytes) >= 0;
}

/** Where record `id` starts: at `positionBytes` or after a gap there (page-alignment.ts); or -1. */
function nextRecordStart(
  window: ReadWindow,
  fileSizeBytes: number,
  positionBytes: number,
  id: number,
  maxRecordBytes: number,
): number {
  if (frameSizeWithId(window, positionBytes, id, fileSizeBytes, maxRecordBytes, true) > 0)
    return positionBytes;
  return (
    recordAfterGap(window, positionBytes, id, fileSizeBytes, maxRecordBytes)?.positionBytes ?? -1
  );
}

/** Where the damaged record ends if its length is plausible; null otherwise. */
function declaredEndOf(
  window: ReadWindow,
  fileSizeBytes: number,
  positionBytes: number,
  maxRecordBytes: number,
): number | null {
  const at = window.ensure(positionBytes, RECORD_HEADER_BYTES, fileSizeBytes);
  if (at < 0) return null;
  const size = frameSizeAt(window.buffer, at, maxRecordBytes);
  return typeof size === 'string' ? null : positionBytes + size;
}
