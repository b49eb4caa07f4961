import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { packageRoot } from '../package-root.js';
import { COMMIT_ID } from '../results.js';
import { gitCheckout, loglabCheckout } from './git-checkout.js';

const tempDir = tempDirs('git-checkout');

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).trim();
}

/** A repository with one commit of one file. */
function repository(): string {
  const dir = tempDir();
  git(dir, 'init', '-q');
  fs.writeFileSync(join(dir, 'a.txt'), 'one\n');
  git(dir, 'add', 'a.txt');
  git(dir, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'one');
  return dir;
}

describe('gitCheckout', () => {
  it('gives the commit of a clean checkout, and dirty once a tracked file changes', () => {
    const dir = repository();
    const commit = git(dir, 'rev-parse', 'HEAD');
    expect(gitCheckout(dir)).toEqual({ commit, dirty: false });
    fs.writeFileSync(join(dir, 'scratch.txt'), 'untracked files do not count\n');
    expect(gitCheckout(dir)).toEqual({ commit, dirty: false });
    fs.writeFileSync(join(dir, 'a.txt'), 'two\n');
    expect(gitCheckout(dir)).toEqual({ commit, dirty: true });
  });

  it('is null outside a checkout, and for a folder inside another repository', () => {
    expect(gitCheckout(tempDir())).toBeNull();
    const outer = repository();
    const installed = join(outer, 'node_modules', 'loglab');
    fs.mkdirSync(installed, { recursive: true });
    expect(gitCheckout(installed)).toBeNull();
  });

  it("reads loglab's own checkout when it runs from one", () => {
    const checkout = loglabCheckout();
    if (!fs.existsSync(join(packageRoot(), '.git'))) return;
    expect(checkout?.commit).toMatch(COMMIT_ID);
  });
});
