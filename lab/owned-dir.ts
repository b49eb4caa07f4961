/**
 * Directories loglab creates for its data carry a marker file, and loglab removes only
 * directories that carry it: a mistyped `--dir` must never cost anyone their files.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const OWNED_MARKER = '.loglab-owned';

/** Creates a fresh directory `<parent>/<prefix>XXXXXX` and marks it as loglab's. */
export function createOwnedDir(parent: string, prefix: string): string {
  const dir = fs.mkdtempSync(path.join(parent, prefix));
  fs.writeFileSync(
    path.join(dir, OWNED_MARKER),
    `created by loglab (pid ${process.pid}) at ${new Date().toISOString()}; ` +
      'removed when the run ends\n',
  );
  return dir;
}

export function isOwnedDir(dir: string): boolean {
  return fs.existsSync(path.join(dir, OWNED_MARKER));
}

/** Removes `dir` and everything in it if, and only if, it carries the marker. */
export function removeOwnedDir(dir: string): boolean {
  if (!isOwnedDir(dir)) return false;
  fs.rmSync(dir, { recursive: true, force: true });
  return true;
}
