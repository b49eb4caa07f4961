/**
 * What may stand under the name of a file a log keeps in its directory (the log's, the batched
 * log's, the queues'), so that no write of the log ever lands outside that directory, whatever an
 * operator or another program left there: an entry the log would not write safely is refused,
 * as SQLite opened with SQLITE_OPEN_NOFOLLOW refuses a symbolic link (SQLITE_CANTOPEN_SYMLINK).
 * The directory itself may be a symbolic link.
 *
 * - Under a name of the log's files stands a regular file: a symbolic link (to a file, to a
 *   directory, or to nothing), a directory, a FIFO, a socket or a device is refused with
 *   UNSAFE_ENTRY naming it. A read-only open refuses them too: it follows no link either, and a
 *   FIFO would block its read.
 * - A file the log writes in place (the active segment and its indexes, the lock, a temporary
 *   file, the slot file) has no link outside the log's own names: a hard link elsewhere would see
 *   every append, cut and rewrite of it. A sealed segment's files are only read, and may have
 *   other links (a template's, as the recovery experiment links them), until the log would write
 *   one: recovery cutting it, an index rebuilt, retention keeping it as the spare to reuse; each
 *   of those checks its links first (checkSoleLink, NodeFileIO's `create`; retention unlinks
 *   instead). Files replaced whole by a rename (`recovery-point`, `record-limit`, `head`) or only
 *   unlinked (a spare found at open) may have other links: their other link keeps its file. The
 *   one file two of the log's own names may share is a segment and the spare, after a power cut
 *   in the middle of the roll's rename; the open then unlinks the spare's name (log.ts).
 *
 * Checked when the log opens, before it writes anything (checkDirectoryEntries), and again at
 * every open of a file (NodeFileIO: no symbolic link followed, nothing but a regular file, and
 * one link for a file opened to be created or emptied), so an entry left while the log runs is
 * refused when the log first opens that name.
 */
import * as path from 'node:path';
import { StorageError } from '../errors.js';
import type { EntryStat, FileIO } from './file-io.js';

/**
 * Whether an open of the log writes a file of its own in place (appends, cuts, rewrites), or
 * not: replaces it by a rename, unlinks it, or only reads it unless it checks its links first.
 */
export type FileUse = 'in-place' | 'not-in-place';

/**
 * Refuses the first entry of `dir` that breaks the rules above among those `usesOf(names)` says
 * are the log's (`names`: the directory's); `writable`: the open will write, so links count too.
 * Reads the directory and `lstat`s the log's entries; writes nothing.
 */
export function checkDirectoryEntries(
  io: FileIO,
  dir: string,
  usesOf: (names: readonly string[]) => (name: string) => FileUse | null,
  writable: boolean,
): void {
  const names = io.list(dir);
  const useOf = usesOf(names);
  const owned: { file: string; use: FileUse; stat: EntryStat }[] = [];
  for (const name of names) {
    const use = useOf(name);
    if (use === null) continue;
    const file = path.join(dir, name);
    const stat = io.inspect(file);
    if (stat === null) continue; // gone since the listing
    if (stat.kind !== 'file') throw unsafeEntry(file, stat);
    owned.push({ file, use, stat });
  }
  if (!writable) return;
  const namesOf = new Map<string, number>();
  for (const { stat } of owned) namesOf.set(stat.fileId, (namesOf.get(stat.fileId) ?? 0) + 1);
  for (const { file, use, stat } of owned) {
    if (use === 'in-place' && stat.links > namesOf.get(stat.fileId)!) throw unsafeEntry(file, stat);
  }
}

/**
 * Refuses `file` unless it is a regular file (or missing) whose links are all its own name and
 * those of `ownNames` (the log's names that may share it: the spare's, for a segment) naming
 * the same file: for a sealed file of the log, which may have had other links while the log
 * only read it, just before the log writes it.
 */
export function checkSoleLink(io: FileIO, file: string, ownNames: readonly string[] = []): void {
  const stat = io.inspect(file);
  if (stat === null) return;
  if (stat.kind !== 'file') throw unsafeEntry(file, stat);
  if (stat.links === 1) return;
  const sharing = ownNames.filter((name) => io.inspect(name)?.fileId === stat.fileId).length;
  if (stat.links > 1 + sharing) throw unsafeEntry(file, stat);
}

/** UNSAFE_ENTRY: what stands at `file`, why the log will not use it, and what to do. */
export function unsafeEntry(file: string, stat: EntryStat): StorageError {
  const what = describeEntry(stat);
  return new StorageError(
    'UNSAFE_ENTRY',
    `${file} is ${what}, under the name of a file loglab keeps there; it writes only regular ` +
      'files of its own in its directory, follows no link and writes no file another name ' +
      `shares, so no write lands outside it. Move ${path.basename(file)} out of the directory ` +
      '(a link: replace it with a copy of its file), then open again',
    { file, reason: stat.kind === 'file' ? 'hard-link' : stat.kind },
  );
}

function describeEntry(stat: EntryStat): string {
  switch (stat.kind) {
    case 'symlink':
      return `a symbolic link (to ${stat.linkTarget ?? 'an unknown target'})`;
    case 'directory':
      return 'a directory';
    case 'fifo':
      return 'a FIFO (named pipe)';
    case 'socket':
      return 'a socket';
    case 'device':
      return 'a device';
    case 'file':
      return `a file with ${stat.links} links (a hard link elsewhere shares its bytes)`;
  }
}
