/**
 * Design A's delivery state per message, kept per slot (slot-file.ts). The delivery table is
 * keyed by message id, not slot: a slot is reused, and a stale deadline of its previous message
 * must not touch the new one.
 */
import { DeliveryState, type StateStore } from './delivery-table.js';

export class SlotStates implements StateStore {
  states = new Uint8Array(0);
  readonly slotById = new Map<number, number>();

  get(id: number): DeliveryState {
    const slot = this.slotById.get(id);
    return slot === undefined ? DeliveryState.Done : (this.states[slot]! as DeliveryState);
  }

  set(id: number, state: DeliveryState): void {
    const slot = this.slotById.get(id);
    if (slot !== undefined) this.states[slot] = state;
  }

  grow(slots: number): void {
    const states = new Uint8Array(slots);
    states.set(this.states);
    this.states = states;
  }
}
