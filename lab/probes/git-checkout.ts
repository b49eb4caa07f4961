/**
 * The loglab checkout a run measured: the git commit of the package root and whether its tracked
 * files differed from that commit (a dirty tree measures code no commit holds). A results history
 * (lab/history/) keys runs by this commit.
 *
 * Null when loglab is not a checkout of its own: installed from npm (no .git), or installed
 * under another repository's tree, where git would answer with that repository's commit; and
 * when git is missing or fails.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { packageRoot } from '../package-root.js';
import { COMMIT_ID } from '../results.js';

export interface GitCheckout {
  /** The full commit id: 40 hex digits (64 in a SHA-256 repository). */
  readonly commit: string;
  /** Whether tracked files differ from the commit, staged or not. */
  readonly dirty: boolean;
}

/** git answers these in milliseconds; a hung one (a network file system) must not stall a run. */
const GIT_TIMEOUT_MS = 5_000;

function git(root: string, args: readonly string[]): string | null {
  try {
    return execFileSync('git', ['-C', root, ...args], {
      encoding: 'utf8',
      timeout: GIT_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return null;
  }
}

function sameDirectory(a: string, b: string): boolean {
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return false;
  }
}

/** The checkout at `root`, or null when `root` is not the top of a git work tree. */
export function gitCheckout(root: string): GitCheckout | null {
  const top = git(root, ['rev-parse', '--show-toplevel']);
  if (top === null || !sameDirectory(top, root)) return null;
  const commit = git(root, ['rev-parse', 'HEAD']);
  if (commit === null || !COMMIT_ID.test(commit)) return null;
  // Untracked files are left out: scratch files and results folders would mark every run dirty,
  // and a new source file changes what runs only through an edit to a tracked file.
  const status = git(root, ['status', '--porcelain', '--untracked-files=no']);
  if (status === null) return null;
  return { commit, dirty: status.length > 0 };
}

let loglab: { readonly checkout: GitCheckout | null } | null = null;

/** loglab's own checkout, asked of git once per process. */
export function loglabCheckout(): GitCheckout | null {
  loglab ??= { checkout: gitCheckout(packageRoot()) };
  return loglab.checkout;
}
