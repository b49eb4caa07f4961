/**
 * What must hold between calls of a slot-file queue (SlotFileQueue.checkInvariants), checked on
 * the state the queue hands over. For tests and tools only: it walks every slot.
 */
import { DeliveryState, type DeliveryTable } from './delivery-table.js';
import { assert } from '../errors.js';
import type { SlotStates } from './slot-states.js';

export interface SlotBookkeeping {
  readonly slots: number;
  readonly freeSlots: readonly number[];
  readonly states: SlotStates;
  readonly table: DeliveryTable;
  readonly nextId: number;
  readonly newestSlot: number;
  readonly protectedSlot: number;
}

/**
 * Asserts that each slot is either free or holds one message, never both; that every message's
 * id was issued; that the newest and protected slots are inside the file; and that the delivery
 * table's counts are those of the messages' states.
 */
export function checkSlotBookkeeping(book: SlotBookkeeping): void {
  const { slots, states, table } = book;
  assert(states.states.length === slots, 'a delivery state per slot');
  const used = new Uint8Array(slots);
  for (const slot of book.freeSlots) {
    assert(slot >= 0 && slot < slots, `free slot ${slot} is in the file`);
    assert(used[slot] === 0, `slot ${slot} is listed free once`);
    used[slot] = 1;
  }
  const counts = new Map<DeliveryState, number>();
  for (const [id, slot] of states.slotById) {
    assert(id >= 0 && id < book.nextId, `message ${id} has an issued id`);
    assert(slot >= 0 && slot < slots, `message ${id}'s slot is in the file`);
    assert(used[slot] === 0, `slot ${slot} holds one message and is not free`);
    used[slot] = 1;
    const state = states.get(id);
    assert(state !== DeliveryState.Done, `message ${id} is done but still holds its slot`);
    counts.set(state, (counts.get(state) ?? 0) + 1);
  }
  assert(
    states.slotById.size + book.freeSlots.length === slots,
    'every slot is free or holds a message',
  );
  assert((book.newestSlot === -1) === (book.nextId === 0), 'a newest slot once an id was issued');
  assert(book.newestSlot < slots, 'the newest slot is in the file');
  assert(book.protectedSlot < slots, 'the protected slot is in the file');
  const countOf = (state: DeliveryState): number => counts.get(state) ?? 0;
  assert(countOf(DeliveryState.InFlight) === table.inFlight, 'in-flight count agrees with states');
  assert(countOf(DeliveryState.Delayed) === table.delayed, 'delayed count agrees with states');
  assert(
    countOf(DeliveryState.ReadyAgain) === table.readyAgain,
    'ready-again count agrees with states',
  );
}
