/**
 * Group commit: one fdatasync acknowledges every append that was written before it started.
 *
 * Appends report their bytes with `noteWrite`; the first unsynced write arms a timer of
 * `maxDelayMs`, and `maxBytes` of unsynced writes start a sync at once. Node's timers cannot wait
 * less than 1 ms, so a delay below 1 ms means "the next turn of the event loop" (setImmediate),
 * which lets every producer that is ready in this turn join the sync. Only one sync runs at a time; writes made while it runs wait for the next one.
 * Waiters are kept in offset order, so acknowledging is a walk from the front of a queue.
 */
import { assert } from './errors.js';
import type { GroupCommitOptions } from './durability.js';

interface Waiter {
  readonly offset: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/** Starts an fdatasync of what was written so far; resolves to the end offset it covers (an inline one that fails throws at once). */
export type StartSync = () => Promise<number>;

export class GroupCommit {
  readonly #options: GroupCommitOptions;
  readonly #startSync: StartSync;
  readonly #onFailure: (error: Error) => void;
  readonly #waiters: Waiter[] = [];
  #firstWaiter = 0;
  #durableEndOffset: number;
  #unsyncedBytes = 0;
  #timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  /**
   * The sync running now, settling when its outcome is handled; null between syncs. Whoever closes
   * the file it syncs waits for it (closing under a thread-pool fdatasync fails it with EBADF).
   */
  #inFlight: Promise<void> | null = null;
  /** Marked durable by another path while a sync was in flight: applied when that one succeeds. */
  #deferredEndOffset = 0;
  #failure: Error | null = null;

  constructor(options: GroupCommitOptions, durableEndOffset: number, startSync: StartSync, onFailure: (error: Error) => void) {
    assert(options.maxDelayMs >= 0 && options.maxBytes > 0, 'group commit bounds are positive');
    this.#options = options;
    this.#durableEndOffset = durableEndOffset;
    this.#startSync = startSync;
    this.#onFailure = onFailure;
  }

  get #usesImmediate(): boolean {
    return this.#options.maxDelayMs < 1;
  }

  /** The sync in flight (see #inFlight), or null. */
  get inFlight(): Promise<void> | null {
    return this.#inFlight;
  }

  get durableEndOffset(): number {
    return this.#durableEndOffset;
  }

  noteWrite(sizeBytes: number): void {
    this.#unsyncedBytes += sizeBytes;
    if (this.#unsyncedBytes >= this.#options.maxBytes) this.#syncNow();
    else this.#arm();
  }

  /** Resolves once `offset` is covered by a completed fdatasync. */
  waitFor(offset: number): Promise<void> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    if (offset < this.#durableEndOffset) return Promise.resolve();
    return new Promise((resolve, reject) => this.#enqueue({ offset, resolve, reject }));
  }

  /** Keeps the queue in offset order: an older offset asked for late goes before newer ones. */
  #enqueue(waiter: Waiter): void {
    const waiters = this.#waiters;
    let at = waiters.length;
    while (at > this.#firstWaiter && waiters[at - 1]!.offset > waiter.offset) at--;
    if (at === waiters.length) waiters.push(waiter);
    else waiters.splice(at, 0, waiter);
  }

  /**
   * Another path (a roll, a flush) made everything below `endOffset` durable. Not while a sync
   * is in flight: it may yet fail, and a sync that started after a failed one does not make
   * durable what was written before it (Linux since 4.13 reports the error once, then succeeds).
   */
  markDurable(endOffset: number): void {
    if (this.#inFlight !== null) {
      this.#deferredEndOffset = Math.max(this.#deferredEndOffset, endOffset);
      return;
    }
    if (endOffset <= this.#durableEndOffset) return;
    this.#durableEndOffset = endOffset;
    this.#releaseWaiters();
  }

  /** A sync failed: every waiter, present and future, gets the error. */
  fail(error: Error): void {
    this.#failure = error;
    this.#cancelTimer();
    for (let i = this.#firstWaiter; i < this.#waiters.length; i++) this.#waiters[i]!.reject(error);
    this.#waiters.length = 0;
    this.#firstWaiter = 0;
  }

  /** Stops the timer; the caller has synced everything (clean close). */
  close(endOffset: number): void {
    this.#cancelTimer();
    this.markDurable(endOffset);
  }

  #arm(): void {
    if (this.#timer !== null || this.#inFlight !== null) return;
    const fire = (): void => {
      this.#timer = null;
      this.#syncNow();
    };
    this.#timer = this.#usesImmediate ? setImmediate(fire) : setTimeout(fire, this.#options.maxDelayMs);
  }

  #cancelTimer(): void {
    if (this.#timer === null) return;
    if (this.#usesImmediate) clearImmediate(this.#timer as NodeJS.Immediate);
    else clearTimeout(this.#timer as NodeJS.Timeout);
    this.#timer = null;
  }

  #syncNow(): void {
    if (this.#inFlight !== null || this.#failure !== null) return;
    this.#cancelTimer();
    this.#unsyncedBytes = 0;
    this.#inFlight = this.#started().then(
      (endOffset) => {
        this.#inFlight = null;
        this.markDurable(Math.max(endOffset, this.#deferredEndOffset));
        if (this.#unsyncedBytes > 0) this.#arm();
      },
      (error: Error) => {
        this.#inFlight = null;
        this.#onFailure(error);
        if (this.#failure === null) this.fail(error);
      },
    );
  }

  /** The sync, started; one that fails before it returns (inline) is a rejected one. */
  #started(): Promise<number> {
    try {
      return this.#startSync();
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  #releaseWaiters(): void {
    while (this.#firstWaiter < this.#waiters.length) {
      const waiter = this.#waiters[this.#firstWaiter]!;
      if (waiter.offset >= this.#durableEndOffset) break;
      this.#firstWaiter++;
      waiter.resolve();
    }
    if (this.#firstWaiter > 1024 && this.#firstWaiter * 2 > this.#waiters.length) {
      this.#waiters.splice(0, this.#firstWaiter);
      this.#firstWaiter = 0;
    }
  }
}
