import { describe, expect, it } from 'vitest';
import { progressFor, silentProgress } from './progress.js';
import { SuiteProgress } from './suite-progress.js';

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  return {
    stream: { isTTY, columns: 120, write: (text: string) => writes.push(text) > 0 },
    writes,
  };
}

/** A clock the test moves: seconds as nanoseconds. */
function fakeClock() {
  let nowNs = 0n;
  return {
    clock: () => nowNs,
    advance: (seconds: number) => {
      nowNs += BigInt(seconds * 1e9);
    },
  };
}

describe('suite progress', () => {
  it('prints a line per experiment start and end without a terminal, with the time left', () => {
    const { stream, writes } = fakeStream(false);
    const { clock, advance } = fakeClock();
    const suite = new SuiteProgress(stream, silentProgress, 3, clock);
    suite.start('puzzle');
    advance(10);
    suite.end('puzzle');
    suite.start('durability');
    advance(20);
    suite.end('durability');
    suite.start('recovery');
    advance(6);
    suite.end('recovery');
    expect(writes).toEqual([
      'loglab: experiment 1 of 3: puzzle started\n',
      'loglab: experiment 1 of 3: puzzle done in 10.0s (10.0s so far; about 20.0s left)\n',
      'loglab: experiment 2 of 3: durability started\n',
      'loglab: experiment 2 of 3: durability done in 20.0s (30.0s so far; about 15.0s left)\n',
      'loglab: experiment 3 of 3: recovery started\n',
      'loglab: experiment 3 of 3: recovery done in 6.0s (36.0s so far)\n',
    ]);
  });

  it('on a terminal puts experiment n of N and the time left before each phase', () => {
    const { stream, writes } = fakeStream(true);
    const { clock, advance } = fakeClock();
    const progress = progressFor(stream, { json: false, delayNs: 0n });
    const suite = new SuiteProgress(stream, progress, 2, clock);
    suite.start('puzzle');
    progress.phase('puzzle: A always, round 1/6');
    expect(writes.at(-1)).toMatch(/\[experiment 1 of 2\] {2}puzzle: A always, round 1\/6$/);
    advance(30);
    suite.end('puzzle');
    suite.start('recovery');
    progress.phase('recovery: open');
    expect(writes.at(-1)).toMatch(/\[experiment 2 of 2, about 30\.0s left\] {2}recovery: open$/);
    expect(writes.every((text) => !text.includes('started'))).toBe(true);
  });

  it('prints nothing of its own for a single experiment, whose output follows at once', () => {
    const { stream, writes } = fakeStream(false);
    const suite = new SuiteProgress(stream, silentProgress, 1);
    suite.start('puzzle');
    suite.end('puzzle');
    expect(writes).toEqual([]);
  });
});
