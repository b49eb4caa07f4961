/**
 * Simulated monotonic time for the crash loop's `adaptive` iterations (syncMode, durability.ts):
 * `adaptive` places each sync by how long syncs take (loop-budget.ts), which on the machine's
 * clock would make the order of FileIO calls depend on the machine and not the seed alone. On this
 * clock every FileIO call the simulated disk has counted since the last reading moves time on: an
 * fdatasync (of a file or a directory) by a length drawn from the seed's own stream, any other
 * call by a hundredth of a millisecond. The lengths are drawn so every path of `adaptive` runs:
 * most syncs fit a turn's budget two or three at a time (then one waits for the loop's next
 * turn), some overrun it (the next go to the pool), and now and then one stalls for milliseconds.
 */
import type { FileIOCounters } from '../io/file-io.js';
import type { SeededRandom } from '../sim/prng.js';

const OTHER_CALL_MS = 0.01;

export class SimLoopClock {
  readonly #rng: SeededRandom;
  readonly #countersOf: () => FileIOCounters;
  #ms = 0;
  /** The disk read last: a power cut makes a new one, whose counts start at zero. */
  #counters: FileIOCounters | null = null;
  #syncsSeen = 0;
  #otherCallsSeen = 0;

  constructor(rng: SeededRandom, countersOf: () => FileIOCounters) {
    this.#rng = rng;
    this.#countersOf = countersOf;
  }

  readonly nowMs = (): number => {
    const counters = this.#countersOf();
    if (counters !== this.#counters) {
      this.#counters = counters;
      this.#syncsSeen = 0;
      this.#otherCallsSeen = 0;
    }
    const syncs = counters.fdatasyncCalls + counters.dirFsyncCalls;
    for (; this.#syncsSeen < syncs; this.#syncsSeen++) this.#ms += this.#syncMs();
    const otherCalls = counters.writeCalls + counters.readCalls;
    this.#ms += (otherCalls - this.#otherCallsSeen) * OTHER_CALL_MS;
    this.#otherCallsSeen = otherCalls;
    return this.#ms;
  };

  /** An SSD's sync mostly; one in ten over the 0.5 ms budget; one in thirty a stall. */
  #syncMs(): number {
    const kind = this.#rng.nextFloat();
    if (kind < 0.033) return 2 + 4 * this.#rng.nextFloat();
    if (kind < 0.133) return 0.3 + 0.5 * this.#rng.nextFloat();
    return 0.08 + 0.12 * this.#rng.nextFloat();
  }
}
