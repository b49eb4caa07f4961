import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{storage,lab,experiments,reports,test}/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
