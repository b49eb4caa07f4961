/**
 * What both queue designs track in memory about delivered messages (the course, lesson 2, "Where
 * Ready, In Flight and Deleted Live"): an in-flight table of (key, deadline, attempt) — no bodies —
 * a ready-again list for messages whose deadline passed, and delayed messages waiting for their due
 * time. A key is an offset (design B) or a slot number (design A); the per-key state lives in the
 * design's own compact store.
 */
import { DeadlineHeap, KeyRing } from './deadline-heap.js';

export enum DeliveryState {
  /** Not handed out since the last restart; design B's cursor has not reached it. */
  Pending = 0,
  InFlight = 1,
  ReadyAgain = 2,
  Delayed = 3,
  Done = 4,
}

export interface StateStore {
  get(key: number): DeliveryState;
  set(key: number, state: DeliveryState): void;
}

export class DeliveryTable {
  readonly #states: StateStore;
  readonly #deadlines = new DeadlineHeap();
  readonly #readyAgain = new KeyRing();
  #inFlight = 0;
  #delayed = 0;
  #readyAgainCount = 0;

  constructor(states: StateStore) {
    this.#states = states;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  get delayed(): number {
    return this.#delayed;
  }

  get readyAgain(): number {
    return this.#readyAgainCount;
  }

  /** Bytes of typed arrays behind the table (the lab divides by messages in flight). */
  get heapBytes(): number {
    return this.#deadlines.heapBytes + this.#readyAgain.heapBytes;
  }

  /**
   * The earliest deadline or due time in the table (Infinity when none): when `expire` may next
   * make a key ready again. It may belong to a key completed since, which `expire` then skips.
   */
  get nextDeadlineMs(): number {
    return this.#deadlines.peekDeadlineMs();
  }

  /** Moves every in-flight or delayed key whose deadline is <= now to the ready-again list. */
  expire(nowMs: number): void {
    while (this.#deadlines.peekDeadlineMs() <= nowMs) {
      const key = this.#deadlines.peekKey();
      const attempt = this.#deadlines.peekAttempt();
      this.#deadlines.pop();
      const state = this.#states.get(key);
      if (state !== DeliveryState.InFlight && state !== DeliveryState.Delayed) continue;
      if (state === DeliveryState.InFlight) this.#inFlight--;
      else this.#delayed--;
      this.#states.set(key, DeliveryState.ReadyAgain);
      this.#readyAgain.push(key, attempt);
      this.#readyAgainCount++;
    }
  }

  /** The oldest ready-again key and its last attempt, removed from the list; null when none. */
  takeReadyAgain(): { key: number; attempt: number } | null {
    while (this.#readyAgain.length > 0) {
      const key = this.#readyAgain.peekKey();
      const attempt = this.#readyAgain.peekAttempt();
      this.#readyAgain.shift();
      if (this.#states.get(key) !== DeliveryState.ReadyAgain) continue;
      this.#readyAgainCount--;
      return { key, attempt };
    }
    return null;
  }

  /** Undoes takeReadyAgain: reading the message failed before it was handed out. */
  returnReadyAgain(key: number, attempt: number): void {
    this.#readyAgain.unshift(key, attempt);
    this.#readyAgainCount++;
  }

  deliver(key: number, attempt: number, deadlineMs: number): void {
    this.#states.set(key, DeliveryState.InFlight);
    this.#deadlines.push(deadlineMs, key, attempt);
    this.#inFlight++;
  }

  delay(key: number, dueMs: number): void {
    this.#states.set(key, DeliveryState.Delayed);
    this.#deadlines.push(dueMs, key, 0);
    this.#delayed++;
  }

  /** A key that was read but must not be delivered (a corrupt body): never comes back. */
  drop(key: number): void {
    this.#states.set(key, DeliveryState.Done);
  }

  /**
   * Marks a delivered key done (null), or says why it cannot be: only a key in flight or ready
   * again was received. A delayed key was not, whatever its design's cursor passed (queue.ts).
   */
  complete(key: number): 'never received' | 'already deleted' | null {
    const state = this.#states.get(key);
    if (state === DeliveryState.InFlight) this.#inFlight--;
    else if (state === DeliveryState.ReadyAgain) this.#readyAgainCount--;
    else return state === DeliveryState.Done ? 'already deleted' : 'never received';
    this.#states.set(key, DeliveryState.Done);
    this.#compactIfMostlyStale();
    return null;
  }

  #compactIfMostlyStale(): void {
    const live = this.#inFlight + this.#delayed;
    if (this.#deadlines.length < 4096 || this.#deadlines.length < 4 * live) return;
    this.#deadlines.compact((key) => {
      const state = this.#states.get(key);
      return state === DeliveryState.InFlight || state === DeliveryState.Delayed;
    });
  }
}
