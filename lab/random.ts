/**
 * A small seeded pseudo-random generator (xoshiro128**), so every sample, key and resample an
 * experiment draws can be drawn again from the seed recorded in its results.
 *
 * Math.random cannot be seeded; xoshiro128** is fast, has a 2^128 - 1 period and passes BigCrush,
 * which is far more than bootstrap resampling and workload generation need. The seed is expanded
 * into the 128-bit state with SplitMix32 so that nearby seeds give unrelated streams.
 */
import { assert } from '../storage/errors.js';

const UINT32_RANGE = 0x1_0000_0000;

function rotl(value: number, shift: number): number {
  return (value << shift) | (value >>> (32 - shift));
}

export class SeededRandom {
  #s0 = 0;
  #s1 = 0;
  #s2 = 0;
  #s3 = 0;

  constructor(seed: number) {
    assert(Number.isSafeInteger(seed), `seed must be a safe integer: ${seed}`);
    // Mixing in the high half keeps seeds that differ only above bit 32 apart.
    let mix = (seed ^ Math.floor(seed / UINT32_RANGE)) >>> 0;
    const words: number[] = [];
    for (let i = 0; i < 4; i++) {
      mix = (mix + 0x9e3779b9) >>> 0;
      let z = mix;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      words.push((z ^ (z >>> 16)) >>> 0);
    }
    this.#setState(words[0] ?? 0, words[1] ?? 0, words[2] ?? 0, words[3] ?? 0);
  }

  /** A generator with exactly this state, for checking against the reference vectors. */
  static fromState(words: readonly [number, number, number, number]): SeededRandom {
    const random = new SeededRandom(0);
    random.#setState(...words);
    return random;
  }

  /** The next 32 random bits as an unsigned integer. */
  uint32(): number {
    const result = Math.imul(rotl(Math.imul(this.#s1, 5), 7), 9) >>> 0;
    const t = this.#s1 << 9;
    this.#s2 ^= this.#s0;
    this.#s3 ^= this.#s1;
    this.#s1 ^= this.#s2;
    this.#s0 ^= this.#s3;
    this.#s2 ^= t;
    this.#s3 = rotl(this.#s3, 11);
    return result;
  }

  /** A float in [0, 1) with 32 bits of randomness. */
  float(): number {
    return this.uint32() / UINT32_RANGE;
  }

  /** An unbiased integer in [0, maxExclusive), by rejecting the uneven top of the range. */
  int(maxExclusive: number): number {
    assert(Number.isInteger(maxExclusive), `maxExclusive must be an integer: ${maxExclusive}`);
    assert(maxExclusive > 0, `maxExclusive must be positive: ${maxExclusive}`);
    assert(maxExclusive <= UINT32_RANGE, `maxExclusive must be at most 2^32: ${maxExclusive}`);
    const limit = UINT32_RANGE - (UINT32_RANGE % maxExclusive);
    let draw = this.uint32();
    while (draw >= limit) draw = this.uint32();
    return draw % maxExclusive;
  }

  /** Fills `bytes` with random bytes (message bodies that do not compress or repeat). */
  fillBytes(bytes: Uint8Array): void {
    let i = 0;
    for (; i + 4 <= bytes.length; i += 4) {
      const word = this.uint32();
      bytes[i] = word & 0xff;
      bytes[i + 1] = (word >>> 8) & 0xff;
      bytes[i + 2] = (word >>> 16) & 0xff;
      bytes[i + 3] = word >>> 24;
    }
    if (i < bytes.length) {
      let word = this.uint32();
      for (; i < bytes.length; i++, word >>>= 8) bytes[i] = word & 0xff;
    }
  }

  /** An independent generator seeded from this one, for a sub-task with a stream of its own. */
  fork(): SeededRandom {
    return new SeededRandom(this.uint32() * 0x20_0000 + (this.uint32() >>> 11));
  }

  #setState(s0: number, s1: number, s2: number, s3: number): void {
    assert((s0 | s1 | s2 | s3) !== 0, 'xoshiro128** state must not be all zero');
    this.#s0 = s0 | 0;
    this.#s1 = s1 | 0;
    this.#s2 = s2 | 0;
    this.#s3 = s3 | 0;
  }
}
