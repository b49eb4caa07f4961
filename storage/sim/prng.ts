/**
 * loglab's one seeded pseudo-random generator: xoshiro128**, its 128-bit state expanded from one
 * integer seed by SplitMix32 so that nearby seeds give unrelated streams. The simulated disk and
 * the crash loop draw from it, so a crash is reproducible from its seed alone; the lab hands one to
 * every experiment (`ctx.random`), so every sample, key and resample can be drawn again from the
 * seed recorded in the results. It lives in storage/ because storage/ imports nothing from lab/.
 *
 * Math.random cannot be seeded; xoshiro128** is fast, has a 2^128 - 1 period and passes BigCrush,
 * far more than fault schedules, workload generation and bootstrap resampling need.
 */
import { assert } from '../errors.js';

const TWO_POW_32 = 0x1_0000_0000;

function splitmix32(state: number): { next: number; value: number } {
  const next = (state + 0x9e37_79b9) >>> 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x85eb_ca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2_ae35) >>> 0;
  return { next, value: (z ^ (z >>> 16)) >>> 0 };
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

export class SeededRandom {
  #s0 = 0;
  #s1 = 0;
  #s2 = 0;
  #s3 = 0;

  constructor(seed: number) {
    assert(Number.isSafeInteger(seed), `seed must be a safe integer: ${seed}`);
    assert(seed >= 0, `seed must be >= 0: ${seed}`);
    // Fold the high bits in so seeds above 2^32 do not collide with their low halves.
    let state = (seed ^ Math.floor(seed / TWO_POW_32)) >>> 0;
    const words: number[] = [];
    for (let i = 0; i < 4; i++) {
      const step = splitmix32(state);
      state = step.next;
      words.push(step.value);
    }
    [this.#s0, this.#s1, this.#s2, this.#s3] = words as [number, number, number, number];
    // xoshiro must not start from the all-zero state; splitmix32 makes that practically
    // impossible, but a seed that hits it would loop on zero forever.
    if ((this.#s0 | this.#s1 | this.#s2 | this.#s3) === 0) this.#s0 = 1;
  }

  /** A generator with exactly this state, for checking against the reference vectors. */
  static fromState(words: readonly [number, number, number, number]): SeededRandom {
    const [s0, s1, s2, s3] = words;
    assert((s0 | s1 | s2 | s3) !== 0, 'xoshiro128** state must not be all zero');
    const random = new SeededRandom(0);
    random.#s0 = s0 >>> 0;
    random.#s1 = s1 >>> 0;
    random.#s2 = s2 >>> 0;
    random.#s3 = s3 >>> 0;
    return random;
  }

  /** A uniformly distributed unsigned 32-bit integer. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.#s1, 5) >>> 0, 7), 9) >>> 0;
    const t = (this.#s1 << 9) >>> 0;
    this.#s2 = (this.#s2 ^ this.#s0) >>> 0;
    this.#s3 = (this.#s3 ^ this.#s1) >>> 0;
    this.#s1 = (this.#s1 ^ this.#s2) >>> 0;
    this.#s0 = (this.#s0 ^ this.#s3) >>> 0;
    this.#s2 = (this.#s2 ^ t) >>> 0;
    this.#s3 = rotl(this.#s3, 11);
    return result;
  }

  /** A float in [0, 1) with 32 bits of randomness. */
  nextFloat(): number {
    return this.nextU32() / TWO_POW_32;
  }

  /**
   * An integer in [0, maxExclusive): one draw, scaled down. A value is at most
   * maxExclusive / 2^32 more likely than another, nothing for the ranges drawn here; exactly one
   * draw per call is what the crash loop's recorded seeds replay.
   */
  nextInt(maxExclusive: number): number {
    assert(Number.isSafeInteger(maxExclusive), `maxExclusive must be an integer: ${maxExclusive}`);
    assert(maxExclusive > 0, `maxExclusive must be > 0: ${maxExclusive}`);
    assert(maxExclusive <= TWO_POW_32, `maxExclusive must be <= 2^32: ${maxExclusive}`);
    return Math.floor(this.nextFloat() * maxExclusive);
  }

  /** True with the given probability; 0 never, 1 always. */
  chance(probability: number): boolean {
    assert(probability >= 0 && probability <= 1, `probability must be in [0, 1]: ${probability}`);
    return this.nextFloat() < probability;
  }

  pick<T>(items: readonly T[]): T {
    assert(items.length > 0, 'cannot pick from an empty list');
    return items[this.nextInt(items.length)] as T;
  }

  /** Fills `target` with random bytes (bodies that do not compress or repeat), 4 a draw. */
  fillBytes(target: Uint8Array): void {
    for (let i = 0; i < target.length; i += 4) {
      let word = this.nextU32();
      for (let j = i; j < Math.min(i + 4, target.length); j++) {
        target[j] = word & 0xff;
        word >>>= 8;
      }
    }
  }

  /** An independent generator seeded from this one, for a sub-task with a stream of its own. */
  fork(): SeededRandom {
    return new SeededRandom(this.nextU32() * 0x20_0000 + (this.nextU32() >>> 11));
  }
}
