/**
 * Which slot design A's next send takes (slot-file.ts): a free one, else the file grows by a
 * chunk of zeroed slots; never the protected slot (SlotFileQueue says why), while another is free.
 */
export class FreeSlots {
  /** Free slot numbers; sends take from the end. */
  readonly #free: number[] = [];
  #slots = 0;
  readonly #chunkSlots: number;
  /** Adds `count` zeroed slots from `first` to the file and the queue's bookkeeping. */
  readonly #addSlots: (first: number, count: number) => void;

  constructor(chunkSlots: number, addSlots: (first: number, count: number) => void) {
    this.#chunkSlots = chunkSlots;
    this.#addSlots = addSlots;
  }

  /** Slots in the file after its header. */
  get slots(): number {
    return this.#slots;
  }

  /** The free slots, for the invariant check. */
  get list(): readonly number[] {
    return this.#free;
  }

  /** What opening the file found (slot-file-scan.ts), before any slot is taken. */
  adopt(slots: number, free: readonly number[]): void {
    this.#slots = slots;
    for (const slot of free) this.#free.push(slot);
  }

  take(protectedSlot: number): number {
    if (this.#free.length === 0) this.#grow();
    const slot = this.#free.pop()!;
    if (slot !== protectedSlot) return slot;
    if (this.#free.length === 0) this.#grow();
    const other = this.#free.pop()!;
    this.#free.push(slot);
    return other;
  }

  /** The slot's message is gone (deleted, or corrupt): the next send may take it. */
  release(slot: number): void {
    this.#free.push(slot);
  }

  /** Appends a chunk of zeroed (free) slots: real blocks, not a sparse hole. */
  #grow(): void {
    this.#addSlots(this.#slots, this.#chunkSlots);
    for (let slot = this.#slots + this.#chunkSlots - 1; slot >= this.#slots; slot--)
      this.#free.push(slot);
    this.#slots += this.#chunkSlots;
  }
}
