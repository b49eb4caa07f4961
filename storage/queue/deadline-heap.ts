/**
 * The in-flight table's deadlines: a binary min-heap of (deadline, key, attempt) in typed arrays,
 * O(log n) per push and pop with no allocation per entry (20 bytes each). Entries are not removed
 * when a message is deleted: the owner marks the key and skips it when it surfaces; when skipped
 * entries outnumber live ones the heap is compacted, so memory stays proportional to what is
 * really in flight.
 */
export class DeadlineHeap {
  #deadlinesMs = new Float64Array(1024);
  #keys = new Float64Array(1024);
  #attempts = new Uint32Array(1024);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  get heapBytes(): number {
    return this.#deadlinesMs.byteLength + this.#keys.byteLength + this.#attempts.byteLength;
  }

  push(deadlineMs: number, key: number, attempt: number): void {
    if (this.#length === this.#keys.length) this.#grow(this.#keys.length * 2);
    let slot = this.#length++;
    while (slot > 0) {
      const parent = (slot - 1) >> 1;
      if (this.#deadlinesMs[parent]! <= deadlineMs) break;
      this.#move(parent, slot);
      slot = parent;
    }
    this.#set(slot, deadlineMs, key, attempt);
  }

  /** The earliest deadline, or Infinity when empty. */
  peekDeadlineMs(): number {
    return this.#length === 0 ? Number.POSITIVE_INFINITY : this.#deadlinesMs[0]!;
  }

  peekKey(): number {
    return this.#keys[0]!;
  }

  peekAttempt(): number {
    return this.#attempts[0]!;
  }

  pop(): void {
    const last = --this.#length;
    if (last === 0) return;
    const deadlineMs = this.#deadlinesMs[last]!;
    const key = this.#keys[last]!;
    const attempt = this.#attempts[last]!;
    let slot = 0;
    for (;;) {
      const left = 2 * slot + 1;
      if (left >= last) break;
      const right = left + 1;
      const child =
        right < last && this.#deadlinesMs[right]! < this.#deadlinesMs[left]! ? right : left;
      if (this.#deadlinesMs[child]! >= deadlineMs) break;
      this.#move(child, slot);
      slot = child;
    }
    this.#set(slot, deadlineMs, key, attempt);
  }

  /** Keeps only entries for which `live(key)` holds; rebuilds the heap in O(n). */
  compact(live: (key: number) => boolean): void {
    const entries: Array<[number, number, number]> = [];
    for (let i = 0; i < this.#length; i++) {
      if (live(this.#keys[i]!))
        entries.push([this.#deadlinesMs[i]!, this.#keys[i]!, this.#attempts[i]!]);
    }
    this.#length = 0;
    if (entries.length * 4 < this.#keys.length && this.#keys.length > 1024)
      this.#grow(Math.max(1024, entries.length * 2));
    for (const [deadlineMs, key, attempt] of entries) this.push(deadlineMs, key, attempt);
  }

  #move(from: number, to: number): void {
    this.#set(to, this.#deadlinesMs[from]!, this.#keys[from]!, this.#attempts[from]!);
  }

  #set(slot: number, deadlineMs: number, key: number, attempt: number): void {
    this.#deadlinesMs[slot] = deadlineMs;
    this.#keys[slot] = key;
    this.#attempts[slot] = attempt;
  }

  #grow(capacity: number): void {
    const deadlines = new Float64Array(capacity);
    const keys = new Float64Array(capacity);
    const attempts = new Uint32Array(capacity);
    deadlines.set(this.#deadlinesMs.subarray(0, this.#length));
    keys.set(this.#keys.subarray(0, this.#length));
    attempts.set(this.#attempts.subarray(0, this.#length));
    this.#deadlinesMs = deadlines;
    this.#keys = keys;
    this.#attempts = attempts;
  }
}

/** A FIFO of (key, attempt) in a growable ring of typed arrays: the ready-again list. */
export class KeyRing {
  #keys = new Float64Array(256);
  #attempts = new Uint32Array(256);
  #first = 0;
  #length = 0;

  get length(): number {
    return this.#length;
  }

  get heapBytes(): number {
    return this.#keys.byteLength + this.#attempts.byteLength;
  }

  push(key: number, attempt: number): void {
    if (this.#length === this.#keys.length) this.#grow();
    const slot = (this.#first + this.#length) % this.#keys.length;
    this.#keys[slot] = key;
    this.#attempts[slot] = attempt;
    this.#length++;
  }

  peekKey(): number {
    return this.#keys[this.#first]!;
  }

  peekAttempt(): number {
    return this.#attempts[this.#first]!;
  }

  shift(): void {
    this.#first = (this.#first + 1) % this.#keys.length;
    this.#length--;
  }

  /** Puts a key back at the front: one taken whose delivery failed before it was handed out. */
  unshift(key: number, attempt: number): void {
    if (this.#length === this.#keys.length) this.#grow();
    this.#first = (this.#first - 1 + this.#keys.length) % this.#keys.length;
    this.#keys[this.#first] = key;
    this.#attempts[this.#first] = attempt;
    this.#length++;
  }

  #grow(): void {
    const keys = new Float64Array(this.#keys.length * 2);
    const attempts = new Uint32Array(this.#keys.length * 2);
    for (let i = 0; i < this.#length; i++) {
      const from = (this.#first + i) % this.#keys.length;
      keys[i] = this.#keys[from]!;
      attempts[i] = this.#attempts[from]!;
    }
    this.#keys = keys;
    this.#attempts = attempts;
    this.#first = 0;
  }
}
