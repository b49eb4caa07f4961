/**
 * Real crashes: a child process appends with `always` or `group` and is killed with SIGKILL at a
 * random moment. Every offset it reported as acknowledged must be readable after reopening.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { crashBody } from '../../test/fixtures/crash-appender.js';
import { runAndKill } from '../../test/fixtures/kill-child.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { Log } from './log.js';

const CHILD = fileURLToPath(new URL('../../test/fixtures/crash-appender.ts', import.meta.url));
const newDir = tempDirs('crash');

describe('crash with SIGKILL', () => {
  for (const policy of ['always', 'group']) {
    it(`keeps every offset acknowledged under ${policy}`, async () => {
      const dir = newDir();
      let checked = 0;
      for (const killAfterMs of [150, 400, 50 + Math.floor(Math.random() * 500)]) {
        const lines = await runAndKill(CHILD, [dir, policy], killAfterMs);
        const acknowledged = lines.filter((line) => /^\d+$/.test(line)).map(Number);
        expect(acknowledged.length).toBeGreaterThan(0);
        const log = Log.open(dir);
        for (const offset of acknowledged)
          expect(log.read(offset).body.equals(crashBody(offset))).toBe(true);
        expect(log.endOffset).toBeGreaterThan(Math.max(...acknowledged));
        checked += acknowledged.length;
        log.close();
      }
      expect(checked).toBeGreaterThan(10);
    });
  }
});
