/**
 * The files loglab keeps in a log directory (docs/storage.md, Files), by how an open writes
 * them, for the rules on what may stand under their names (directory-entries.ts). The log's, the
 * batched log's and design B's queue's directories hold these; other names are not loglab's,
 * and are left alone.
 *
 *   written in place:      the active (last) segment's .log, .index and .timeindex (and any
 *                          file of a later segment), .lock, and each file below's <name>.tmp
 *   not written in place:  sealed segments' files (read; checked before a cut, a rebuild or
 *                          reuse), recovery-point, record-limit, head (replaced by a rename),
 *                          spare-segment and spare-segment.layout (unlinked when a log opens)
 */
import { TEMPORARY_SUFFIX } from '../io/atomic-file.js';
import type { FileUse } from '../io/directory-entries.js';
import {
  HEAD_CHECKPOINT_FILE,
  RECORD_LIMIT_FILE,
  RECOVERY_POINT_FILE,
  LOG_SUFFIX,
  SPARE_LAYOUT_FILE,
  SPARE_SEGMENT_FILE,
  parseSegmentFileName,
} from './segment-files.js';
import { LOG_LOCK_FILE } from '../io/writer-lock.js';

const REPLACED = [RECOVERY_POINT_FILE, RECORD_LIMIT_FILE, HEAD_CHECKPOINT_FILE];
const NOT_IN_PLACE: ReadonlySet<string> = new Set([
  ...REPLACED,
  SPARE_SEGMENT_FILE,
  SPARE_LAYOUT_FILE,
]);
const IN_PLACE: ReadonlySet<string> = new Set([
  LOG_LOCK_FILE,
  ...REPLACED.map((name) => `${name}${TEMPORARY_SUFFIX}`),
]);

/**
 * How an open of the log in `dir`, whose entries are `names`, writes the file `name`; null: not
 * one of its files. A name that looks like a segment's but is not 20 digits is
 * INVALID_SEGMENT_FILE (segment-files.ts).
 */
export function logFileUses(
  dir: string,
  names: readonly string[],
): (name: string) => FileUse | null {
  const activeBase = names.reduce((last, name) => {
    const segment = parseSegmentFileName(dir, name);
    return segment?.suffix === LOG_SUFFIX ? Math.max(last, segment.baseOffset) : last;
  }, -1);
  return (name) => {
    if (IN_PLACE.has(name)) return 'in-place';
    if (NOT_IN_PLACE.has(name)) return 'not-in-place';
    const segment = parseSegmentFileName(dir, name);
    if (segment === null) return null;
    // The active segment's files, and any of a segment to come, which a roll creates.
    return segment.baseOffset >= activeBase ? 'in-place' : 'not-in-place';
  };
}
