/**
 * Dropping the page cache: root may (`sync`, then `3` into /proc/sys/vm/drop_caches). When it is
 * refused, cold-reads.ts falls back to O_DIRECT; the run never fails for it.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';

export const DROP_CACHES_FILE = '/proc/sys/vm/drop_caches';

export type DropResult =
  | { readonly dropped: true }
  | { readonly dropped: false; readonly reason: string };

export interface DropOptions {
  readonly dropCachesFile?: string;
  readonly isRoot?: boolean;
}

function runningAsRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** Whether this process may drop the page cache (root, and the file is writable). */
export function canDropPageCache(options: DropOptions = {}): boolean {
  if (!(options.isRoot ?? runningAsRoot())) return false;
  try {
    fs.accessSync(options.dropCachesFile ?? DROP_CACHES_FILE, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes every dirty page of every filesystem back (`sync`), so a phase's writes have reached the
 * disk's counters before they are read. Returns null, or what failed.
 */
export function flushDirtyPages(): string | null {
  const synced = spawnSync('sync', { stdio: 'ignore' });
  if (synced.error !== undefined) return `sync could not run (${synced.error.message})`;
  if (synced.status !== 0) return `sync exited with ${synced.status}`;
  return null;
}

/**
 * Writes dirty pages back, then drops the clean page cache, dentries and inodes. Returns why not
 * when it cannot; the caller puts the reason in its results notes.
 */
export function dropPageCache(options: DropOptions = {}): DropResult {
  const file = options.dropCachesFile ?? DROP_CACHES_FILE;
  if (!(options.isRoot ?? runningAsRoot())) {
    const reason = `not running as root, so ${file} cannot be written`;
    return { dropped: false, reason };
  }
  // Only clean pages can be dropped: write the dirty ones back first.
  const synced = flushDirtyPages();
  if (synced !== null) return { dropped: false, reason: synced };
  try {
    fs.writeFileSync(file, '3\n');
  } catch (cause) {
    const reason = `writing ${file} failed (${(cause as Error).message})`;
    return { dropped: false, reason };
  }
  return { dropped: true };
}
