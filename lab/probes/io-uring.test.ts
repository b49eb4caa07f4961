import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { ioUringAllowed, ioUringState } from './io-uring.js';

const tempDir = tempDirs('io-uring');

function fakeProc(links: Record<string, string>, tasks: string[]): string {
  const proc = tempDir();
  fs.mkdirSync(join(proc, 'fd'));
  for (const [fd, target] of Object.entries(links)) fs.symlinkSync(target, join(proc, 'fd', fd));
  tasks.forEach((name, i) => {
    fs.mkdirSync(join(proc, 'task', String(100 + i)), { recursive: true });
    fs.writeFileSync(join(proc, 'task', String(100 + i), 'comm'), `${name}\n`);
  });
  return proc;
}

describe('io_uring detection', () => {
  it('counts rings and the kernel threads that serve them', () => {
    const ring = 'anon_inode:[io_uring]';
    const proc = fakeProc({ 3: ring, 4: '/tmp/file', 5: ring }, [
      'node',
      'node',
      'iou-sqp-100',
      'iou-wrk-100',
    ]);
    expect(ioUringState(proc)).toEqual({
      rings: 2,
      submissionThreads: 1,
      workerThreads: 1,
      tasks: 4,
    });
  });

  it('sees no ring in a process that never asked for one', () => {
    expect(ioUringState(fakeProc({ 3: '/tmp/file' }, ['node'])).rings).toBe(0);
  });

  it('reads the kernel switch: 0 allows, 2 refuses, none means an older kernel', () => {
    const dir = tempDir();
    const file = join(dir, 'io_uring_disabled');
    fs.writeFileSync(file, '0\n');
    expect(ioUringAllowed(file).allowed).toBe(true);
    fs.writeFileSync(file, '2\n');
    expect(ioUringAllowed(file)).toMatchObject({
      allowed: false,
      reason: expect.stringMatching(/refuses/),
    });
    expect(ioUringAllowed(join(dir, 'missing')).allowed).toBe(true);
  });
});
