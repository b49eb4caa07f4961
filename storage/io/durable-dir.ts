/**
 * mkdir -p whose result survives a power cut. A new directory's name lives in its parent, and
 * like a new file's it is durable only after an fsync of that parent; without it a crash can
 * take the directory — and every synced file inside it — away.
 */
import * as path from 'node:path';
import type { FileIO } from './file-io.js';

/**
 * Creates `dir` and any missing parents, then fsyncs the parent of each level it created — and
 * the parent of `dir` even when `dir` was there already: existing is not durable (a process that
 * made it may have died before its fsync). Ancestors that already existed are the operator's.
 */
export function mkdirpDurable(io: FileIO, dir: string): void {
  const missing: string[] = [];
  for (let at = dir; !io.exists(at) && path.dirname(at) !== at; at = path.dirname(at)) {
    missing.push(at);
  }
  if (missing.length > 0) io.mkdirp(dir);
  // Top level first: a child's entry is only reachable once its parent's entry is durable.
  const levels = missing.length > 0 ? missing.reverse() : [dir];
  for (const level of levels) {
    if (path.dirname(level) !== level) io.fsyncDir(path.dirname(level));
  }
}
