/** Lookup targets: offsets drawn from the experiment's seeded random source. */
import type { SeededRandom } from '../../lab/index.js';
import { assert } from '../../storage/testing/index.js';

/** `count` offsets drawn uniformly from [0, endOffset). */
export function randomOffsets(random: SeededRandom, endOffset: number, count: number): number[] {
  assert(endOffset > 0, `offsets need a log that holds records: end ${endOffset}`);
  return Array.from({ length: count }, () => random.nextInt(endOffset));
}
