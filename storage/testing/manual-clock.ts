/**
 * A queue clock moved by hand, with timers: `advance(ms)` moves it and fires, in time order,
 * every timer that comes due on the way, so a test of `receiveWait` needs no real waiting and
 * no timing assertion. Setting `ms` directly moves the clock without firing anything.
 */
import { assert } from '../errors.js';
import type { QueueClock } from '../queue/queue.js';

interface Timer {
  readonly dueMs: number;
  readonly order: number;
  readonly fire: () => void;
}

export class ManualTimerClock implements QueueClock {
  ms = 1_700_000_000_000;
  #timers: Timer[] = [];
  #order = 0;

  nowMs(): number {
    return this.ms;
  }

  setTimer(delayMs: number, fire: () => void): () => void {
    assert(delayMs >= 0, 'a timer cannot fire in the past');
    const timer: Timer = { dueMs: this.ms + delayMs, order: this.#order++, fire };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((other) => other !== timer);
    };
  }

  /** Timers set and not yet fired or cancelled. */
  get pendingTimers(): number {
    return this.#timers.length;
  }

  /** Moves the clock `ms` forward, firing each timer due by then at its own time. */
  advance(ms: number): void {
    assert(ms >= 0, 'the clock only moves forward');
    const endMs = this.ms + ms;
    for (let next = this.#nextDue(endMs); next !== null; next = this.#nextDue(endMs)) {
      this.#timers = this.#timers.filter((timer) => timer !== next);
      this.ms = Math.max(this.ms, next.dueMs);
      next.fire();
    }
    this.ms = endMs;
  }

  #nextDue(endMs: number): Timer | null {
    let next: Timer | null = null;
    for (const timer of this.#timers) {
      if (timer.dueMs > endMs) continue;
      if (
        next === null ||
        timer.dueMs < next.dueMs ||
        (timer.dueMs === next.dueMs && timer.order < next.order)
      )
        next = timer;
    }
    return next;
  }
}
