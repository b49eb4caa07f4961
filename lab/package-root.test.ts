import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runMain } from '../test/fixtures/main-in-process.js';
import { packageFile, packageRoot, packageVersion } from './package-root.js';

const REPOSITORY = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const MANIFEST = JSON.parse(fs.readFileSync(path.join(REPOSITORY, 'package.json'), 'utf8')) as {
  readonly version: string;
  readonly files: readonly string[];
};

describe('the package root', () => {
  it("is the directory whose package.json is named loglab, and its version is that file's", () => {
    expect(packageRoot()).toBe(REPOSITORY);
    expect(packageVersion()).toBe(MANIFEST.version);
  });

  it('names the files read at run time, and every one of them is shipped and exists', () => {
    for (const segments of [
      ['ci', 'baseline.json'],
      ['scripts', 'fio', 'append.fio'],
      ['scripts', 'fio', 'random-write.fio'],
    ]) {
      const file = packageFile(...segments);
      expect(fs.statSync(file).isFile()).toBe(true);
      const shipped = MANIFEST.files.some(
        (entry) => segments.join('/') === entry || segments.join('/').startsWith(`${entry}/`),
      );
      expect(shipped, `${segments.join('/')} is in package.json files`).toBe(true);
    }
  });
});

describe('loglab --version', () => {
  it.each(['--version', '-V'])('%s prints the package version and exits 0', async (flag) => {
    const run = await runMain([flag]);
    expect(run).toMatchObject({ code: 0, stdout: `${MANIFEST.version}\n`, stderr: '' });
  });
});
