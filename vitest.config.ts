import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{storage,lab,cli,experiments,reports,test}/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
