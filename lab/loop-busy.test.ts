import { describe, expect, it } from 'vitest';
import { LoopBusy } from './loop-busy.js';

function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('LoopBusy', () => {
  it('counts a synchronous stretch as busy and a wait for a timer as idle', async () => {
    const busy = new LoopBusy();
    const result = await busy.over(async () => {
      spin(40);
      await new Promise((resolve) => setTimeout(resolve, 60));
      return 'done';
    });
    expect(result).toBe('done');
    expect(busy.activeMs).toBeGreaterThanOrEqual(35);
    // The 60 ms timer is waited for idle: the loop was busy well under the whole 100 ms.
    expect(busy.activeMs).toBeLessThan(90);
    expect(busy.share).toBeGreaterThan(0.1);
    expect(busy.share).toBeLessThan(0.9);
    expect(busy.nsPerOperation(4)).toBeCloseTo((busy.activeMs * 1e6) / 4);
  });

  it('adds stretches up, and measures one that throws', async () => {
    const busy = new LoopBusy();
    await busy.over(async () => spin(20));
    const first = busy.activeMs;
    await expect(
      busy.over(async () => {
        spin(20);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(busy.activeMs).toBeGreaterThanOrEqual(first + 15);
  });

  it('has no figure before it measured anything, nor per operation with none', () => {
    const busy = new LoopBusy();
    expect(busy.share).toBeNaN();
    expect(busy.nsPerOperation(0)).toBeNaN();
  });
});
