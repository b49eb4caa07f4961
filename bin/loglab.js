#!/usr/bin/env node
// Runs the built CLI: dist/, which `npm run build` writes and `npm pack` builds first, so the
// installed tool needs no TypeScript loader. In a clone, `npm run loglab -- …` (or
// `npx tsx cli/main.ts …`) runs the TypeScript source without a build.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write(
    `loglab: ${fileURLToPath(main)} is missing: the package was not built; ` +
      'run `npm run build` in the clone (or `npm run loglab -- …` to run the source)\n',
  );
  process.exit(3);
}
await import(main.href);
