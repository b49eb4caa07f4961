import { describe, expect, it, vi } from 'vitest';
import { runMain } from '../test/fixtures/main-in-process.js';

vi.mock('../experiments/index.js', () => ({ experiments: [] }));

describe('loglab CLI with no experiment registered', () => {
  it('lists no experiments and says so', async () => {
    const list = await runMain(['list']);
    expect(list).toMatchObject({ code: 0, stderr: '' });
    expect(list.stdout).toMatch(/no experiments are registered/);
    const json = await runMain(['list', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([]);
  });

  it('refuses run', async () => {
    const run = await runMain(['run', '--quick']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^loglab: UNKNOWN_EXPERIMENT: .*none is registered/);
  });
});
