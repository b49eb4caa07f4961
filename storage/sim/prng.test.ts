import { describe, expect, it } from 'vitest';
import { SeededRandom } from './prng.js';

function firstWords(seed: number, count: number): number[] {
  const rng = new SeededRandom(seed);
  return Array.from({ length: count }, () => rng.nextU32());
}

describe('SeededRandom', () => {
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

  it('rejects a negative or fractional seed', () => {
    expect(() => new SeededRandom(-1)).toThrow(/seed must be >= 0/);
    expect(() => new SeededRandom(1.5)).toThrow(/seed must be a safe integer/);
  });
});
