import { describe, expect, it } from 'vitest';
import { SeededRandom } from './prng.js';

function firstWords(seed: number, count: number): number[] {
  const rng = new SeededRandom(seed);
  return Array.from({ length: count }, () => rng.nextU32());
}

describe('SeededRandom', () => {
  it('matches the xoshiro128** reference outputs for the state 1, 2, 3, 4', () => {
    // Worked by hand from the reference C code: rotl(s1 * 5, 7) * 9, then the state update.
    const rng = SeededRandom.fromState([1, 2, 3, 4]);
    expect([rng.nextU32(), rng.nextU32(), rng.nextU32()]).toEqual([11520, 0, 5927040]);
  });

  it('draws the values pinned for seed 42 and the crash loop seed 616982201', () => {
    // Experiments record their seed and the crash loop replays a failing one: a change here
    // changes every workload drawn and every crash schedule. Computed by the generators this one
    // replaced (lab/random.ts for 42, the simulator's for 616982201).
    expect(firstWords(42, 3)).toEqual([2837322924, 544945897, 479756282]);
    expect(firstWords(616982201, 3)).toEqual([1192286410, 764230132, 770374814]);
    const rng = new SeededRandom(616982201);
    expect(Array.from({ length: 8 }, () => rng.nextInt(100))).toEqual([
      27, 17, 17, 91, 62, 77, 79, 55,
    ]);
  });

  it('repeats the same sequence for the same seed and differs for another', () => {
    expect(firstWords(7, 8)).toEqual(firstWords(7, 8));
    expect(firstWords(7, 8)).not.toEqual(firstWords(8, 8));
  });

  it('keeps seeds above 2^32 apart from their low 32 bits', () => {
    expect(firstWords(2 ** 32 + 5, 4)).not.toEqual(firstWords(5, 4));
  });

  it('draws integers in range, covering every value of a small range', () => {
    const rng = new SeededRandom(1);
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) {
      const value = rng.nextInt(5);
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(5);
      seen.add(value);
    }
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('draws floats in [0, 1) whose mean is near one half', () => {
    const rng = new SeededRandom(9);
    let sum = 0;
    for (let i = 0; i < 10_000; i++) {
      const value = rng.nextFloat();
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
      sum += value;
    }
    expect(Math.abs(sum / 10_000 - 0.5)).toBeLessThan(0.02);
  });

  it('treats probability 0 as never and 1 as always', () => {
    const rng = new SeededRandom(3);
    for (let i = 0; i < 100; i++) {
      expect(rng.chance(0)).toBe(false);
      expect(rng.chance(1)).toBe(true);
    }
  });

  it('fills buffers of any length, not only multiples of four', () => {
    const bytes = new Uint8Array(7);
    new SeededRandom(9).fillBytes(bytes);
    expect(bytes.some((byte) => byte !== 0)).toBe(true);
    const again = new Uint8Array(7);
    new SeededRandom(9).fillBytes(again);
    expect(again).toEqual(bytes);
  });

  it('forks a generator that does not replay its parent', () => {
    const parent = new SeededRandom(5);
    const child = parent.fork();
    expect(child.nextU32()).not.toBe(parent.nextU32());
  });

  it('rejects a negative or fractional seed, an all-zero state and an empty range', () => {
    expect(() => new SeededRandom(-1)).toThrow(/seed must be >= 0/);
    expect(() => new SeededRandom(1.5)).toThrow(/seed must be a safe integer/);
    expect(() => SeededRandom.fromState([0, 0, 0, 0])).toThrow(/all zero/);
    expect(() => new SeededRandom(1).nextInt(0)).toThrow(/maxExclusive/);
  });
});
