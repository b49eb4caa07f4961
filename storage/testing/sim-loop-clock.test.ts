import { describe, expect, it } from 'vitest';
import { newCounters } from '../io/file-io.js';
import { SeededRandom } from '../sim/prng.js';
import { SimLoopClock } from './sim-loop-clock.js';

describe('SimLoopClock', () => {
  it('moves only with the disk calls counted since the last reading, the same for the same seed', () => {
    const readings = () => {
      let counters = newCounters();
      const clock = new SimLoopClock(new SeededRandom(7), () => counters);
      const seen = [clock.nowMs()];
      counters.fdatasyncCalls++;
      seen.push(clock.nowMs(), clock.nowMs());
      counters.writeCalls += 3;
      seen.push(clock.nowMs());
      counters = newCounters(); // a power cut: a new disk, counting from zero
      counters.dirFsyncCalls++;
      seen.push(clock.nowMs());
      return seen;
    };
    const [start, afterSync, again, afterWrites, afterCut] = readings();
    expect(start).toBe(0);
    expect(afterSync).toBeGreaterThan(0);
    expect(again).toBe(afterSync);
    expect(afterWrites! - afterSync!).toBeCloseTo(0.03, 9);
    expect(afterCut).toBeGreaterThan(afterWrites!);
    expect(readings()).toEqual([start, afterSync, again, afterWrites, afterCut]);
  });

  it('draws syncs that fit the budget, that overrun it and that stall', () => {
    const counters = newCounters();
    const clock = new SimLoopClock(new SeededRandom(11), () => counters);
    const lengths: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const before = clock.nowMs();
      counters.fdatasyncCalls++;
      lengths.push(clock.nowMs() - before);
    }
    const share = (test: (ms: number) => boolean) => lengths.filter(test).length / lengths.length;
    expect(share((ms) => ms < 0.25)).toBeGreaterThan(0.8);
    expect(share((ms) => ms > 0.5 && ms < 1)).toBeGreaterThan(0.03);
    expect(share((ms) => ms >= 2)).toBeGreaterThan(0.01);
  });
});
