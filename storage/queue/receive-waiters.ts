/**
 * Receives that wait (`receiveWait`), for both queue designs: one line of waiters, served in the
 * order they asked. A waiter is served when a message becomes ready:
 *
 * - a send: the design calls `notify()`; the waiters are served at the end of the current
 *   microtask run, so a burst of sends is looked at once;
 * - a visibility timeout running out, or a delayed message coming due: one timer, on the queue's
 *   clock, armed for the earliest deadline the design knows (`nextDeadlineMs`) while anyone
 *   waits;
 *
 * or, after its own `waitMs`, resolves with null; `close()` resolves every waiter with null.
 * Serving is the design's own synchronous `receive`, so a waiter gets exactly what a poll at
 * that moment would have got. A deadline in the past of a message deleted since is harmless: its
 * timer finds nothing ready and arms for the next one.
 */
import { assert } from '../errors.js';
import type { QueueClock, QueueMessage } from './queue.js';

/** What the waiters ask of the design they serve. */
export interface WaitSource {
  /** The design's poll: a ready message held for `visibilityTimeoutMs`, or null; may throw. */
  receive(visibilityTimeoutMs: number): QueueMessage | null;
  /** The earliest in-flight deadline or due time the design tracks (clock ms); Infinity if none. */
  nextDeadlineMs(): number;
}

interface Waiter {
  readonly visibilityTimeoutMs: number;
  readonly resolve: (message: QueueMessage | null) => void;
  readonly reject: (error: unknown) => void;
  cancelTimeout: (() => void) | null;
}

/** Node's timers cannot wait longer; a longer wait is cut into pieces and re-armed. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

function defaultTimer(delayMs: number, fire: () => void): () => void {
  const timer = setTimeout(fire, Math.min(delayMs, LONGEST_TIMER_MS));
  return () => clearTimeout(timer);
}

export class ReceiveWaiters {
  readonly #source: WaitSource;
  readonly #clock: QueueClock;
  readonly #waiters: Waiter[] = [];
  /** The timer for the earliest deadline, and when it fires (clock ms). */
  #cancelWake: (() => void) | null = null;
  #wakeAtMs = Number.POSITIVE_INFINITY;
  #serveQueued = false;
  #closed = false;

  constructor(source: WaitSource, clock: QueueClock) {
    this.#source = source;
    this.#clock = clock;
  }

  /** Waits behind everyone already waiting; the design has checked both durations. */
  wait(waitMs: number, visibilityTimeoutMs: number): Promise<QueueMessage | null> {
    assert(!this.#closed, 'the design refuses receiveWait once closed');
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { visibilityTimeoutMs, resolve, reject, cancelTimeout: null };
      this.#waiters.push(waiter);
      this.#serve();
      if (!this.#waiters.includes(waiter)) return;
      if (waitMs === 0) this.#timeOut(waiter);
      else waiter.cancelTimeout = this.#setTimer(waitMs, () => this.#timeOut(waiter));
    });
  }

  /** A message may have become ready (a send): serve the waiters once this microtask run ends. */
  notify(): void {
    if (this.#waiters.length === 0 || this.#serveQueued || this.#closed) return;
    this.#serveQueued = true;
    queueMicrotask(() => {
      this.#serveQueued = false;
      this.#serve();
    });
  }

  /** Resolves every waiter with null and stops the timers; later notices do nothing. */
  close(): void {
    this.#closed = true;
    this.#disarm();
    for (const waiter of this.#waiters.splice(0)) {
      waiter.cancelTimeout?.();
      waiter.resolve(null);
    }
  }

  /** Hands ready messages to the waiters in order, then arms the timer for the next deadline. */
  #serve(): void {
    if (this.#closed) return;
    while (this.#waiters.length > 0) {
      const waiter = this.#waiters[0]!;
      let message: QueueMessage | null;
      try {
        message = this.#source.receive(waiter.visibilityTimeoutMs);
      } catch (error) {
        // The poll would have thrown the same: this waiter learns it, the next one tries again.
        this.#remove(waiter);
        waiter.reject(error);
        continue;
      }
      if (message === null) break;
      this.#remove(waiter);
      waiter.resolve(message);
    }
    this.#arm();
  }

  /**
   * The waiter's time is up: a message ready at this very moment still goes to whoever is first
   * in line (perhaps this waiter); if this one is still waiting after that, it gets null.
   */
  #timeOut(waiter: Waiter): void {
    waiter.cancelTimeout = null;
    this.#serve();
    if (!this.#waiters.includes(waiter)) return;
    this.#remove(waiter);
    waiter.resolve(null);
    this.#arm();
  }

  #remove(waiter: Waiter): void {
    const at = this.#waiters.indexOf(waiter);
    if (at >= 0) this.#waiters.splice(at, 1);
    waiter.cancelTimeout?.();
    waiter.cancelTimeout = null;
  }

  /** One timer for the earliest deadline while anyone waits; none otherwise. */
  #arm(): void {
    const nextMs =
      this.#waiters.length === 0 ? Number.POSITIVE_INFINITY : this.#source.nextDeadlineMs();
    if (nextMs === this.#wakeAtMs && this.#cancelWake !== null) return;
    this.#disarm();
    if (nextMs === Number.POSITIVE_INFINITY) return;
    // At least 1 ms: a deadline the poll just passed over must not spin the event loop.
    const delayMs = Math.max(1, nextMs - this.#clock.nowMs());
    this.#wakeAtMs = nextMs;
    this.#cancelWake = this.#setTimer(delayMs, () => {
      this.#cancelWake = null;
      this.#wakeAtMs = Number.POSITIVE_INFINITY;
      this.#serve();
    });
  }

  #disarm(): void {
    this.#cancelWake?.();
    this.#cancelWake = null;
    this.#wakeAtMs = Number.POSITIVE_INFINITY;
  }

  #setTimer(delayMs: number, fire: () => void): () => void {
    return this.#clock.setTimer === undefined
      ? defaultTimer(delayMs, fire)
      : this.#clock.setTimer(delayMs, fire);
  }
}
