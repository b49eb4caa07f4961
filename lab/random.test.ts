import { describe, expect, it } from 'vitest';
import { SeededRandom } from './random.js';

describe('SeededRandom', () => {
  it('matches the xoshiro128** reference outputs for the state 1, 2, 3, 4', () => {
    // Worked by hand from the reference C code: rotl(s1 * 5, 7) * 9, then the state update.
    const random = SeededRandom.fromState([1, 2, 3, 4]);
    expect([random.uint32(), random.uint32(), random.uint32()]).toEqual([11520, 0, 5927040]);
  });

  it('repeats its stream for the same seed and changes it for another seed', () => {
    const draw = (seed: number) => {
      const random = new SeededRandom(seed);
      return Array.from({ length: 8 }, () => random.uint32());
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
    expect(draw(1)).not.toEqual(draw(1 + 2 ** 32));
  });

  it('draws integers inside the range and reaches every value of a small range', () => {
    const random = new SeededRandom(7);
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) {
      const value = random.int(6);
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(6);
      seen.add(value);
    }
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('draws floats in [0, 1) whose mean is near one half', () => {
    const random = new SeededRandom(9);
    let sum = 0;
    for (let i = 0; i < 10_000; i++) {
      const value = random.float();
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
      sum += value;
    }
    expect(Math.abs(sum / 10_000 - 0.5)).toBeLessThan(0.02);
  });

  it('fills every byte of a buffer whose length is not a multiple of four', () => {
    const bytes = new Uint8Array(7);
    new SeededRandom(3).fillBytes(bytes);
    const again = new Uint8Array(7);
    new SeededRandom(3).fillBytes(again);
    expect(bytes).toEqual(again);
    expect(bytes.some((byte) => byte !== 0)).toBe(true);
  });

  it('forks a generator that does not replay its parent', () => {
    const parent = new SeededRandom(5);
    const child = parent.fork();
    expect(child.uint32()).not.toBe(parent.uint32());
  });

  it('rejects an all-zero state and a bad range', () => {
    expect(() => SeededRandom.fromState([0, 0, 0, 0])).toThrow(/all zero/);
    expect(() => new SeededRandom(1).int(0)).toThrow(/maxExclusive/);
  });
});
