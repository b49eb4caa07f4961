/**
 * The baseline of `--against REF`, built as a project's CI would: a temporary `git worktree` of
 * the ref, its own `npm ci` from its own lockfile (npm's cache makes a repeat take seconds; an
 * identical lockfile shares this tree's node_modules), and one run of its CLI (`loglab list`) to
 * prove it loads. Each step that fails is named with the
 * beginning and end of what it printed; the worktree is removed whatever happens.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LabError } from '../errors.js';
import { type Checkout, commandOf, git, outputExcerpt, readCheckout } from './checkout.js';

export interface RefBuild {
  readonly ref: string;
  readonly checkout: Checkout;
  /** Removes the worktree; safe to call twice. */
  remove(): void;
}

function badRef(message: string): LabError {
  return new LabError('BAD_REF', message);
}

/** Runs one build step, refusing the ref with the step's name and output when it fails. */
function step(
  ref: string,
  name: string,
  command: string,
  args: readonly string[],
  cwd: string,
): void {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status === 0) return;
  const why = result.error?.message ?? outputExcerpt(result.stdout, result.stderr);
  throw badRef(`--against ${ref}: the baseline does not build: step '${name}' failed: ${why}`);
}

/** The commit `ref` names in `repo`, checked to be an ancestor of the tree under test. */
export function resolveRef(repo: string, ref: string): string {
  if (ref.startsWith('-')) throw badRef(`--against: '${ref}' is not a git ref`);
  const commit = git(repo, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  if (commit === null) {
    throw badRef(`--against: no commit '${ref}' in ${repo}; check the name (git log --oneline)`);
  }
  if (git(repo, ['merge-base', '--is-ancestor', commit, 'HEAD']) === null) {
    throw badRef(
      `--against: ${ref} (${commit.slice(0, 12)}) is not an ancestor of HEAD in ${repo}: ` +
        'compare a change with a commit it grew from (merge or rebase first)',
    );
  }
  return commit;
}

/**
 * The ref's dependencies: its own `npm ci`, or, when its lockfile is byte for byte the tree
 * under test's, that tree's node_modules (the same packages, and no second build of the native
 * ones: better-sqlite3 compiles for a minute on a 2-core machine).
 */
function install(repo: string, dir: string, ref: string, progress: (line: string) => void): void {
  const lockfile = (root: string) => {
    const file = path.join(root, 'package-lock.json');
    return fs.existsSync(file) ? fs.readFileSync(file) : null;
  };
  const ours = lockfile(repo);
  const modules = path.join(repo, 'node_modules');
  if (ours !== null && fs.existsSync(modules) && ours.equals(lockfile(dir) ?? Buffer.alloc(0))) {
    progress(`against ${ref}: the same package-lock.json as this tree: its node_modules shared`);
    fs.symlinkSync(modules, path.join(dir, 'node_modules'));
    return;
  }
  progress(`against ${ref}: npm ci`);
  step(ref, 'npm ci', 'npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], dir);
}

/** Checks out `ref` into a fresh worktree under `parent`, installs and smoke-tests it. */
export function buildRef(
  repo: string,
  ref: string,
  parent: string,
  progress: (line: string) => void,
): RefBuild {
  const commit = resolveRef(repo, ref);
  const dir = fs.mkdtempSync(path.join(parent, `loglab-against-${commit.slice(0, 12)}-`));
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    git(repo, ['worktree', 'remove', '--force', dir]);
    fs.rmSync(dir, { recursive: true, force: true });
    git(repo, ['worktree', 'prune']);
  };
  try {
    progress(`against ${ref}: git worktree add ${dir} (${commit.slice(0, 12)})`);
    step(
      ref,
      'git worktree add',
      'git',
      ['-C', repo, 'worktree', 'add', '--detach', dir, commit],
      repo,
    );
    const checkout = readCheckout(dir, `the ref ${ref}`);
    install(repo, dir, ref, progress);
    const [node, args] = commandOf(checkout, ['list']);
    step(ref, 'loglab list', node, args, dir);
    return { ref, checkout, remove };
  } catch (error) {
    remove();
    throw error;
  }
}
