import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import { runTypeScriptChild } from './ts-child.js';

const CHILD = fileURLToPath(new URL('../test/fixtures/env-child.ts', import.meta.url));
const tempDir = tempDirs('ts-child');

describe('runTypeScriptChild', () => {
  it('runs a TypeScript module with variables added to its environment', async () => {
    const stdout = await runTypeScriptChild(
      CHILD,
      ['UV_THREADPOOL_SIZE'],
      { UV_THREADPOOL_SIZE: '68' },
      30_000,
    );
    expect(stdout).toBe('68\n');
  });

  it('rejects with the end of standard error when the child fails', async () => {
    await expect(runTypeScriptChild(CHILD, ['fail'], {}, 30_000)).rejects.toMatchObject({
      code: 'CHECK_FAILED',
      message: expect.stringMatching(/exited with 3: env-child: asked to fail/),
    });
  });

  it('runs built JavaScript with plain node, as the installed package does (no tsx)', async () => {
    const script = join(tempDir(), 'child.js');
    writeFileSync(
      script,
      'process.stdout.write(JSON.stringify([process.execArgv, ' +
        'process.env.LOGLAB_CHILD_TEST]));\n',
    );
    const stdout = await runTypeScriptChild(script, [], { LOGLAB_CHILD_TEST: 'js' }, 30_000);
    expect(JSON.parse(stdout)).toEqual([[], 'js']);
  });
});
