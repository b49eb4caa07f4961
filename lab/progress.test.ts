import { describe, expect, it } from 'vitest';
import { progressFor, silentProgress } from './progress.js';

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  return { stream: { isTTY, columns: 80, write: (text: string) => writes.push(text) > 0 }, writes };
}

describe('progress line', () => {
  it('stays silent when output is not a terminal or is JSON', () => {
    expect(progressFor(fakeStream(false).stream, { json: false })).toBe(silentProgress);
    expect(progressFor(fakeStream(true).stream, { json: true })).toBe(silentProgress);
  });

  it('draws the phase in place on a terminal and clears it when done', () => {
    const { stream, writes } = fakeStream(true);
    const progress = progressFor(stream, { json: false, delayNs: 0n });
    progress.phase('puzzle: A, round 1/3');
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/^\r\x1b\[2K\d+\.\ds {2}puzzle: A, round 1\/3$/);
    progress.update(10);
    expect(writes).toHaveLength(1);
    progress.done();
    expect(writes.at(-1)).toBe('\r\x1b[2K');
  });

  it('shows the rate of the current phase once it has run a while', async () => {
    const { stream, writes } = fakeStream(true);
    const progress = progressFor(stream, { json: false, delayNs: 0n });
    progress.phase('appending');
    await new Promise((resolve) => setTimeout(resolve, 300));
    progress.update(1000);
    expect(writes.at(-1)).toMatch(/appending {2}[\d,]+ ops\/s$/);
  });

  it('waits before drawing anything, so short commands print nothing extra', () => {
    const { stream, writes } = fakeStream(true);
    const progress = progressFor(stream, { json: false });
    progress.phase('short');
    progress.update(5);
    progress.done();
    expect(writes).toEqual([]);
  });
});
