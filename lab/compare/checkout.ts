/**
 * A loglab checkout that can run: the directory of a package.json named `loglab` whose `loglab`
 * script names the CLI's entry (`tsx lab/main.ts` in old trees, `tsx cli/main.ts` today), with
 * its own node_modules. Both sides of a comparison against a git ref are driven through this one
 * contract, their command line and the results files it writes, so a build of any age that
 * writes the same results schema can be compared with today's.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LabError } from '../errors.js';

export interface Checkout {
  readonly root: string;
  /** The CLI's entry file, relative to root. */
  readonly entry: string;
  /** The commit checked out, and whether the tree differs from it (the change under test). */
  readonly commit: string;
  readonly dirty: boolean;
}

const ENTRY_SCRIPT = /^tsx\s+(\S+\.ts)$/;
const EXCERPT_END_CHARS = 400;

/**
 * What a failed child printed, short enough for one error line: its beginning (npm states the
 * cause first) and its end (a stack trace or tsc ends with it).
 */
export function outputExcerpt(stdout: string | null, stderr: string | null): string {
  const text = `${stderr ?? ''}\n${stdout ?? ''}`.trim().replace(/\s*\n\s*/g, ' | ');
  if (text.length <= 2 * EXCERPT_END_CHARS) return text;
  return `${text.slice(0, EXCERPT_END_CHARS)} … ${text.slice(-EXCERPT_END_CHARS)}`;
}

function badRef(message: string): LabError {
  return new LabError('BAD_REF', message);
}

/** `git -C root …`'s standard output, trimmed; null when git exits non-zero. */
export function git(root: string, args: readonly string[]): string | null {
  const result = spawnSync('git', ['-C', root, ...args], { encoding: 'utf8' });
  if (result.error !== undefined) {
    throw badRef(`git cannot be run (${result.error.message}); install git to compare with a ref`);
  }
  return result.status === 0 ? result.stdout.trim() : null;
}

/** The CLI entry a loglab checkout at `root` declares; refuses a directory that is not one. */
function entryOf(root: string, what: string): string {
  const file = path.join(root, 'package.json');
  let manifest: { name?: unknown; scripts?: { loglab?: unknown } };
  try {
    manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof manifest;
  } catch {
    throw badRef(`${what} is not a loglab checkout: ${file} is missing or not JSON`);
  }
  const script = manifest.scripts?.loglab;
  const match = typeof script === 'string' ? ENTRY_SCRIPT.exec(script) : null;
  if (manifest.name !== 'loglab' || match === null) {
    throw badRef(
      `${what} is not a loglab checkout: its package.json is not named loglab or has no ` +
        '`loglab` script of the form `tsx <entry>.ts`',
    );
  }
  return match[1]!;
}

/** Reads the checkout at `root` (`what` names it in errors: "the ref 8fbd625", "this tree"). */
export function readCheckout(root: string, what: string): Checkout {
  const entry = entryOf(root, what);
  const commit = git(root, ['rev-parse', 'HEAD']);
  if (commit === null) {
    throw badRef(
      `${what} (${root}) is not a git checkout: --against needs loglab run from a clone`,
    );
  }
  const status = git(root, ['status', '--porcelain', '--untracked-files=no']);
  return { root, entry, commit, dirty: status !== null && status !== '' };
}

/** The command line that runs the checkout's CLI with `args`, under its own tsx. */
export function commandOf(checkout: Checkout, args: readonly string[]): [string, string[]] {
  const tsx = path.join(checkout.root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  return [process.execPath, [tsx, path.join(checkout.root, checkout.entry), ...args]];
}
