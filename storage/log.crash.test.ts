/**
 * Real crashes: a child process appends with `always` or `group` and is killed with SIGKILL at a
 * random moment. Every offset it reported as acknowledged must be readable after reopening.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { crashBody } from '../test/fixtures/crash-appender.js';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import { Log } from './log.js';

const CHILD = fileURLToPath(new URL('../test/fixtures/crash-appender.ts', import.meta.url));
const newDir = tempDirs('crash');

async function runAndKill(dir: string, policy: string, killAfterMs: number): Promise<number[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, policy], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.setEncoding('utf8');
  const ready = new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      if (output.startsWith('ready\n')) resolve();
    });
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await ready;
  await new Promise((resolve) => setTimeout(resolve, killAfterMs));
  child.kill('SIGKILL');
  await exited;
  return output
    .split('\n')
    .slice(1)
    .filter((line) => /^\d+$/.test(line))
    .map(Number);
}

describe('crash with SIGKILL', () => {
  for (const policy of ['always', 'group']) {
    it(`keeps every offset acknowledged under ${policy}`, async () => {
      const dir = newDir();
      let checked = 0;
      for (const killAfterMs of [150, 400, 50 + Math.floor(Math.random() * 500)]) {
        const acknowledged = await runAndKill(dir, policy, killAfterMs);
        expect(acknowledged.length).toBeGreaterThan(0);
        const log = Log.open(dir);
        for (const offset of acknowledged) expect(log.read(offset).body.equals(crashBody(offset))).toBe(true);
        expect(log.endOffset).toBeGreaterThan(Math.max(...acknowledged));
        checked += acknowledged.length;
        log.close();
      }
      expect(checked).toBeGreaterThan(10);
    });
  }
});
