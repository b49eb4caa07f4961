import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runTypeScriptChild } from './ts-child.js';

const CHILD = fileURLToPath(new URL('../test/fixtures/env-child.ts', import.meta.url));

describe('runTypeScriptChild', () => {
  it('runs a TypeScript module with variables added to its environment', async () => {
    const stdout = await runTypeScriptChild(CHILD, ['UV_THREADPOOL_SIZE'],
      { UV_THREADPOOL_SIZE: '68' }, 30_000);
    expect(stdout).toBe('68\n');
  });

  it('rejects with the end of standard error when the child fails', async () => {
    await expect(runTypeScriptChild(CHILD, ['fail'], {}, 30_000)).rejects.toMatchObject({
      code: 'CHECK_FAILED',
      message: expect.stringMatching(/exited with 3: env-child: asked to fail/),
    });
  });
});
