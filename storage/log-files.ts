/**
 * The files loglab keeps in a log directory (docs/storage.md, Files), by how each is written, for
 * the rules on what may stand under their names (directory-entries.ts). The log's, the batched
 * log's and design B's queue's directories hold these; other names are not loglab's, and are
 * left alone.
 *
 *   written in place:   <20 digits>.log | .index | .timeindex, .lock, spare-segment,
 *                       spare-segment.layout, and each file below's <name>.tmp
 *   replaced by rename: recovery-point, record-limit, head
 */
import { TEMPORARY_SUFFIX } from './atomic-file.js';
import type { FileUse } from './directory-entries.js';
import { HEAD_CHECKPOINT_FILE } from './head-checkpoint.js';
import { RECORD_LIMIT_FILE } from './record-limit.js';
import { RECOVERY_POINT_FILE } from './recovery-point.js';
import { SPARE_LAYOUT_FILE, SPARE_SEGMENT_FILE, parseSegmentFileName } from './segment-files.js';
import { LOG_LOCK_FILE } from './writer-lock.js';

const REPLACED: ReadonlySet<string> = new Set([
  RECOVERY_POINT_FILE,
  RECORD_LIMIT_FILE,
  HEAD_CHECKPOINT_FILE,
]);
const IN_PLACE: ReadonlySet<string> = new Set([
  LOG_LOCK_FILE,
  SPARE_SEGMENT_FILE,
  SPARE_LAYOUT_FILE,
  ...[...REPLACED].map((name) => `${name}${TEMPORARY_SUFFIX}`),
]);

/**
 * How the log writes the file `name` of `dir`; null: not one of its files. A name that looks
 * like a segment's but is not 20 digits is INVALID_SEGMENT_FILE (segment-files.ts).
 */
export function logFileUse(dir: string, name: string): FileUse | null {
  if (REPLACED.has(name)) return 'replaced';
  if (IN_PLACE.has(name) || parseSegmentFileName(dir, name) !== null) return 'in-place';
  return null;
}
