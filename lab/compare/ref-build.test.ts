/**
 * A ref that cannot be a baseline is refused with one line naming why, and the worktree made
 * for it does not outlive the refusal. A scratch git repository stands in for loglab's.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { buildRef, resolveRef } from './ref-build.js';

const newDir = tempDirs('ref-build');

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();
}

function commit(repo: string, files: Record<string, string>, message: string): string {
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(repo, name), text);
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', message);
  return git(repo, 'rev-parse', 'HEAD');
}

const LOGLAB_MANIFEST = JSON.stringify({ name: 'loglab', scripts: { loglab: 'tsx cli.ts' } });

function repository(): { repo: string; plain: string; noLockfile: string } {
  const repo = newDir();
  git(repo, 'init', '-q', '-b', 'main');
  const plain = commit(repo, { 'README.md': 'not loglab\n' }, 'a project of another kind');
  const noLockfile = commit(repo, { 'package.json': LOGLAB_MANIFEST }, 'loglab, no lockfile');
  return { repo, plain, noLockfile };
}

const worktrees = (repo: string) => git(repo, 'worktree', 'list').split('\n').length;

describe('building the baseline of --against', () => {
  it('refuses a ref that does not exist, or that looks like an option', () => {
    const { repo } = repository();
    expect(() => resolveRef(repo, 'no-such-branch')).toThrow(
      /--against: no commit 'no-such-branch' in .*; check the name/,
    );
    expect(() => resolveRef(repo, '--upload-pack=x')).toThrow(/is not a git ref/);
  });

  it('refuses a ref the tree under test did not grow from', () => {
    const { repo, noLockfile } = repository();
    git(repo, 'checkout', '-q', '-b', 'elsewhere', `${noLockfile}~1`);
    const aside = commit(repo, { 'other.txt': 'x\n' }, 'a commit on another branch');
    git(repo, 'checkout', '-q', 'main');
    expect(() => resolveRef(repo, aside)).toThrow(/is not an ancestor of HEAD .*merge or rebase/);
    expect(resolveRef(repo, 'HEAD~1')).toHaveLength(40);
  });

  it('refuses a commit that is not a loglab checkout, and removes its worktree', () => {
    const { repo, plain } = repository();
    const parent = newDir();
    expect(() => buildRef(repo, plain, parent, () => {})).toThrow(
      /the ref .* is not a loglab checkout: .*package.json is missing/,
    );
    expect(fs.readdirSync(parent)).toEqual([]);
    expect(worktrees(repo)).toBe(1);
  });

  it('names the step that failed when the ref does not build', () => {
    const { repo, noLockfile } = repository();
    const parent = newDir();
    const steps: string[] = [];
    expect(() => buildRef(repo, noLockfile, parent, (line) => steps.push(line))).toThrow(
      /--against .*: the baseline does not build: step 'npm ci' failed: .*package-lock/s,
    );
    expect(steps.at(-1)).toMatch(/npm ci$/);
    expect(fs.readdirSync(parent)).toEqual([]);
    expect(worktrees(repo)).toBe(1);
  });

  it("shares this tree's node_modules when the lockfiles are the same, and leaves them be", () => {
    const { repo } = repository();
    commit(repo, { 'package-lock.json': '{"lockfileVersion":3}\n' }, 'a lockfile');
    fs.mkdirSync(path.join(repo, 'node_modules'));
    fs.writeFileSync(path.join(repo, 'node_modules', 'kept'), 'mine\n');
    const parent = newDir();
    const steps: string[] = [];
    // No tsx in these node_modules: the build stops at its smoke run, after sharing them.
    expect(() => buildRef(repo, 'HEAD', parent, (line) => steps.push(line))).toThrow(
      /step 'loglab list' failed/,
    );
    expect(steps.join('\n')).toMatch(
      /the same package-lock.json as this tree: its node_modules shared/,
    );
    expect(fs.readFileSync(path.join(repo, 'node_modules', 'kept'), 'utf8')).toBe('mine\n');
    expect(fs.readdirSync(parent)).toEqual([]);
  });
});
