import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // The examples import the package by name, as a user would; here that is the source entry
    // (tsconfig.json maps it the same way for the type checker).
    alias: [
      {
        find: /^loglab$/,
        replacement: fileURLToPath(new URL('./storage/index.ts', import.meta.url)),
      },
    ],
  },
  test: {
    include: ['{storage,lab,cli,experiments,reports,test,examples}/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
