/**
 * The examples run as the README shows them, so they cannot rot: each in a temp dir, its printed
 * lines checked; and each imports nothing from loglab but its public entry.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import { logExample } from './log.js';
import { queueExample } from './queue.js';

const newDir = tempDirs('examples');

describe('examples', () => {
  it('log.ts: 16 producers append with group commit, then read by offset and time', async () => {
    const lines: string[] = [];
    const fdatasyncs = await logExample(newDir(), (line) => lines.push(line));
    expect(lines).toEqual([
      'appended 80 records from 16 producers',
      'offset 17: 09:00 p1 #1',
      'first record at 09:01: offset 64, 09:01 p0 #0',
      'read on: offset 78, 09:01 p14 #0',
      'read on: offset 79, 09:01 p15 #0',
    ]);
    // Group commit: the producers share their syncs (a flush and close add a few of their own).
    expect(fdatasyncs).toBeGreaterThan(0);
    expect(fdatasyncs).toBeLessThan(40);
  });

  it('queue.ts: the same send, receive, receiveWait and delete on both designs', async () => {
    const lines: string[] = [];
    const writeCalls = await queueExample(newDir(), (line) => lines.push(line));
    const work = [
      '  right away: order 4127, order 4128, order 4129; 1 delayed',
      '  waited for: order 4130; left: 0 ready, 0 in flight, 0 delayed',
    ];
    expect(lines).toEqual(['design A, slot file', ...work, 'design B, log', ...work]);
    expect(writeCalls).toHaveLength(2);
    for (const calls of writeCalls) expect(calls).toBeGreaterThanOrEqual(4);
  });

  it.each(['log.ts', 'queue.ts'])('%s imports only node: modules and the public entry', (file) => {
    const text = readFileSync(new URL(file, import.meta.url), 'utf8');
    const specifiers = [...text.matchAll(/^import\b[^;]*?\bfrom\s*'([^']+)'/gm)].map((m) => m[1]);
    expect(specifiers.length).toBeGreaterThan(0);
    for (const specifier of specifiers) expect(specifier).toMatch(/^(node:[a-z/]+|loglab)$/);
  });
});
