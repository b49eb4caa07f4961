/**
 * Design B's delivery state per offset (log-queue.ts): one byte for each offset in [head,
 * cursor), kept in a ring that grows as that window does. Below the head every offset is done;
 * at or past the cursor none was handed out yet.
 */
import { DeliveryState, type StateStore } from './delivery-table.js';

/** One byte of state per offset in [head, cursor), in a ring that grows as the window does. */
export class OffsetStates implements StateStore {
  #states = new Uint8Array(4096);
  #base: number;
  #length = 0;

  constructor(base: number) {
    this.#base = base;
  }

  get base(): number {
    return this.#base;
  }

  get heapBytes(): number {
    return this.#states.byteLength;
  }

  get(offset: number): DeliveryState {
    const slot = offset - this.#base;
    if (slot < 0) return DeliveryState.Done;
    if (slot >= this.#length) return DeliveryState.Pending;
    return this.#states[offset % this.#states.length]! as DeliveryState;
  }

  set(offset: number, state: DeliveryState): void {
    const slot = offset - this.#base;
    if (slot < 0) return;
    while (slot >= this.#length) this.#append();
    this.#states[offset % this.#states.length] = state;
  }

  /** Moves the base past every done offset below `limit`; returns the new base. */
  advance(limit: number): number {
    while (this.#base < limit && this.get(this.#base) === DeliveryState.Done) {
      this.#base++;
      this.#length--;
    }
    return this.#base;
  }

  #append(): void {
    if (this.#length === this.#states.length) this.#grow();
    this.#states[(this.#base + this.#length) % this.#states.length] = DeliveryState.Pending;
    this.#length++;
  }

  #grow(): void {
    const grown = new Uint8Array(this.#states.length * 2);
    for (let i = 0; i < this.#length; i++) {
      const offset = this.#base + i;
      grown[offset % grown.length] = this.#states[offset % this.#states.length]!;
    }
    this.#states = grown;
  }
}
