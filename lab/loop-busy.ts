/**
 * The event loop's busy time over stretches of work (perf_hooks' eventLoopUtilization): the time
 * the loop spent outside its wait for I/O, so in JavaScript and in synchronous calls. Unlike a
 * rate, it barely moves with the disk's speed: a program that waits longer for each sync waits
 * idle, not busy. Two programs taking turns on one disk can so be told apart by what they cost
 * the CPU even where the disk's rate drowns the difference in their rates.
 */
import { performance } from 'node:perf_hooks';

export class LoopBusy {
  #activeMs = 0;
  #idleMs = 0;

  /** Runs `work`, adding the loop's busy and idle time while it ran. */
  async over<T>(work: () => Promise<T>): Promise<T> {
    const before = performance.eventLoopUtilization();
    try {
      return await work();
    } finally {
      const used = performance.eventLoopUtilization(before);
      this.#activeMs += used.active;
      this.#idleMs += used.idle;
    }
  }

  get activeMs(): number {
    return this.#activeMs;
  }

  /** The busy share of the time measured: near 1, the loop never waited. NaN before any. */
  get share(): number {
    return this.#activeMs / (this.#activeMs + this.#idleMs);
  }

  /** The busy time per operation, for `operations` done over the work measured. */
  nsPerOperation(operations: number): number {
    return operations > 0 ? (this.#activeMs * 1e6) / operations : Number.NaN;
  }
}
