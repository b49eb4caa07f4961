/**
 * Where the loglab package lies: the nearest directory above this file that holds a package.json
 * named `loglab`. The same code runs from lab/ (the repository, under tsx) and from dist/lab/ (the
 * built package, installed under node_modules/loglab/), so files shipped beside the code — the
 * fio jobs, the CI baseline — are found from the package root, never from this file's depth.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The name package.json must carry for its directory to be loglab's root. */
const PACKAGE_NAME = 'loglab';

interface PackageInfo {
  readonly root: string;
  readonly version: string;
}

let found: PackageInfo | null = null;

function readPackageInfo(): PackageInfo {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const json: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
      const { name, version } = (json ?? {}) as { name?: unknown; version?: unknown };
      if (name === PACKAGE_NAME && typeof version === 'string') return { root: dir, version };
    }
    if (path.dirname(dir) === dir) {
      throw new Error(
        `loglab: no package.json named ${PACKAGE_NAME} above ${here}; ` +
          'the package is incomplete: reinstall it, or run from a clone of the repository',
      );
    }
  }
}

function packageInfo(): PackageInfo {
  found ??= readPackageInfo();
  return found;
}

/** The package's root directory (the repository, or node_modules/loglab when installed). */
export function packageRoot(): string {
  return packageInfo().root;
}

/** A file shipped with the package, named from its root: `packageFile('ci', 'baseline.json')`. */
export function packageFile(...segments: readonly string[]): string {
  return path.join(packageRoot(), ...segments);
}

/** The `version` of loglab's package.json: what `loglab --version` prints. */
export function packageVersion(): string {
  return packageInfo().version;
}
