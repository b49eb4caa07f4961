/**
 * Design A: a file of fixed slots updated in place (the course, lesson 2, "Two Ways to Keep
 * Messages on Disk"). send writes one whole slot, somewhere in the file; delete writes the slot's
 * state byte; receive writes nothing. The file grows in preallocated chunks of zeroed slots.
 *
 * The queue lives in a directory, as design B's does: the slot file is `<dir>/slots`, its writer
 * lock `<dir>/slots.lock`; nothing else in the directory is touched.
 *
 * Slot size: a slot holds the header, an 8-byte due time (delayed messages only) and the body.
 * Unless `slotBytes` is given it is sized for `maxBodyBytes` (1 KiB by default), delayed or not,
 * rounded up to a power of two — 2,048 bytes by default — so that no slot straddles a 4 KiB page
 * and a send or delete dirties one page, never two. A `slotBytes` given without `maxBodyBytes`
 * takes a body as large as the slot holds undelayed (slotBytes - 20, the course's 1 KiB slot holds
 * 1,004 bytes); a delayed body must then leave room for its due time.
 *
 *   slot 0 is the file header:  magic u32 "LLSF" | version u32 = 2 | slotBytes u32 | zeros
 *
 *   slot i (i >= 1), big-endian:
 *   byte 0         4        5        6          8             12         20 (28)
 *        +---------+--------+--------+----------+-------------+----------+---------------+------+
 *        | crc32c  | state  | flags  | reserved | bodyBytes   | id       | [dueTimeMs]   | body |
 *        |  u32    |  u8    |  u8    |   u16    |    u32      |   u64    |     u64       |      |
 *        +---------+--------+--------+----------+-------------+----------+---------------+------+
 *   state: 0 free, 1 full, 2 deleted. flags bit 0: a due time follows the id.
 *   crc32c covers everything after the state byte (flags to the end of the body) — not the state,
 *   which delete rewrites alone. The CRC comes first so that a send's write that lands only a
 *   prefix (a short write, then a power cut) cannot put a FULL state byte over a deleted
 *   message without also putting the new CRC over it: the old message then fails its check
 *   instead of coming back.
 *
 * A full slot whose CRC fails (a torn write: the page held the slot half old, half new) is
 * reported in `corruptSkipped` and never delivered; its slot is reused. Message ids increase
 * forever and survive restarts (the largest id in the file), so a deleted id is never reused.
 */
import * as path from 'node:path';
import { crc32c } from '@node-rs/crc32';
import { writeFileAtomically } from './atomic-file.js';
import { StorageError, assert } from './errors.js';
import {
  closeAfterFailure,
  NodeFileIO,
  type FileHandle,
  type FileIO,
  type FileIOCounters,
} from './file-io.js';
import { CountingFileIO } from './counting-file-io.js';
import { checkInteger, invalidConfig } from './config-checks.js';
import { mkdirpDurable } from './durable-dir.js';
import { DurabilityEngine, type SyncPlan } from './durability-engine.js';
import {
  DEFAULT_DURABILITY,
  DEFAULT_SYNC_MODE,
  parseDurabilityPolicy,
  parseSyncMode,
  resolveGroupCommitOptions,
} from './durability.js';
import { DeliveryState, DeliveryTable, type StateStore } from './delivery-table.js';
import { KeyRing } from './deadline-heap.js';
import { readU64, writeU64 } from './record.js';
import { messageTooLarge, queueClosed, queueDirError, unknownMessage } from './queue-errors.js';
import type {
  Queue,
  QueueClock,
  QueueMessage,
  QueueOptions,
  QueueStats,
  ReceiveOptions,
  ReceiveWaitOptions,
  SendOptions,
} from './queue.js';
import {
  DEFAULT_MAX_BODY_BYTES,
  MAX_BODY_BYTES_LIMIT,
  delayMsOf,
  maxBodyBytesOf,
  visibilityTimeoutMsOf,
  waitMsOf,
  wallClock,
} from './queue.js';
import { ReceiveWaiters } from './receive-waiters.js';
import {
  acquireWriterLock,
  lockPathForSlotFile,
  releaseAfterFailure,
  type WriterLock,
} from './writer-lock.js';
import { MiB } from './units.js';

export const SLOT_HEADER_BYTES = 20;
assert(
  SLOT_HEADER_BYTES === 4 + 1 + 1 + 2 + 4 + 8,
  'slot header is crc, state, flags, reserved, length, id',
);
/** Where the state byte sits in a slot: after the CRC. */
const STATE_AT = 4;
const DUE_TIME_BYTES = 8;
const FLAG_DUE_TIME = 0x01;
const STATE_FREE = 0;
const STATE_FULL = 1;
const STATE_DELETED = 2;
const FILE_MAGIC = 0x4c4c5346; // "LLSF"
const FILE_VERSION = 2;
const MIN_SLOT_BYTES = SLOT_HEADER_BYTES + DUE_TIME_BYTES + 1;
const MAX_SLOT_BYTES = MiB;
/** The slot file's name inside the queue's directory; its lock is `slots.lock` beside it. */
export const SLOT_FILE_NAME = 'slots';
export const DEFAULT_CHUNK_SLOTS = 1024;
const STATE_BYTE = Buffer.from([STATE_DELETED]);

/**
 * The slot a body of up to `maxBodyBytes` needs, delayed or not (header, due time, body), rounded
 * up to a power of two: such a slot never straddles a 4 KiB page.
 */
export function slotBytesFor(maxBodyBytes: number): number {
  const neededBytes = SLOT_HEADER_BYTES + DUE_TIME_BYTES + maxBodyBytes;
  return Math.max(MIN_SLOT_BYTES, 2 ** Math.ceil(Math.log2(neededBytes)));
}

/**
 * The slot size when neither `slotBytes` nor `maxBodyBytes` is given: the slot a default 1 KiB
 * body needs (2,048 bytes). The course's design A has 1 KiB slots; experiments that reproduce it
 * pass `slotBytes: 1024`.
 */
export const DEFAULT_SLOT_BYTES = slotBytesFor(DEFAULT_MAX_BODY_BYTES);
assert(DEFAULT_SLOT_BYTES === 2048, 'a 1 KiB body with its header and due time takes a 2 KiB slot');
assert(
  slotBytesFor(MAX_BODY_BYTES_LIMIT) === MAX_SLOT_BYTES,
  'the largest body fills the largest slot',
);

export interface SlotFileOptions extends QueueOptions {
  /**
   * Bytes per slot, from 29 to 1,048,576; default: sized for `maxBodyBytes` (slotBytesFor).
   * Given alone, `maxBodyBytes` defaults to what the slot holds undelayed (slotBytes - 20).
   */
  readonly slotBytes?: number;
  /** Slots added each time the file grows. */
  readonly chunkSlots?: number;
}

/** Slot size and body limit, each from the other when only one is given. */
function resolveSizes(options: SlotFileOptions): { slotBytes: number; maxBodyBytes: number } {
  if (options.slotBytes === undefined) {
    const maxBodyBytes = maxBodyBytesOf(options);
    return { slotBytes: slotBytesFor(maxBodyBytes), maxBodyBytes };
  }
  const slotBytes = checkInteger('slotBytes', options.slotBytes, MIN_SLOT_BYTES, MAX_SLOT_BYTES);
  const holdsBytes = slotBytes - SLOT_HEADER_BYTES;
  const maxBodyBytes = maxBodyBytesOf(options, Math.min(holdsBytes, MAX_BODY_BYTES_LIMIT));
  if (maxBodyBytes > holdsBytes) {
    throw invalidConfig(
      'maxBodyBytes',
      `at most ${holdsBytes} (what a ${slotBytes}-byte slot ` +
        'holds after its header); raise slotBytes or leave it out to size slots for the body',
      maxBodyBytes,
    );
  }
  return { slotBytes, maxBodyBytes };
}

/**
 * Delivery state per message, kept per slot. The delivery table is keyed by message id, not slot:
 * a slot is reused, and a stale deadline of its previous message must not touch the new one.
 */
class SlotStates implements StateStore {
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

/** Lets a test damage the free-slot list as a bug would (freeSlotsForTesting); nothing else. */
let freeSlotsOf: (queue: SlotFileQueue) => number[];

export class SlotFileQueue implements Queue {
  static {
    freeSlotsOf = (queue) => queue.#freeSlots;
  }

  /** The directory the queue was opened on. */
  readonly dir: string;
  /** The slot file inside it. */
  readonly filePath: string;
  readonly slotBytes: number;
  readonly maxBodyBytes: number;
  /** Every file call goes through it, so `counters` are this queue's own. */
  readonly #io: CountingFileIO;
  /** Held from before the file is created or opened until close: one writer per slot file. */
  readonly #lock: WriterLock;
  readonly #handle: FileHandle;
  /** Owns the policy, the fence and the synced point: the newest slot known on the device. */
  readonly #engine: DurabilityEngine<number>;
  readonly #clock: QueueClock;
  readonly #chunkSlots: number;
  readonly #states = new SlotStates();
  readonly #table: DeliveryTable;
  readonly #ready = new KeyRing();
  readonly #freeSlots: number[] = [];
  readonly #buffer: Buffer;
  readonly #waiters: ReceiveWaiters;
  #slots = 0;
  #nextId = 0;
  /** The slot holding the highest id written so far (by a send, or found when opening). */
  #newestSlot = -1;
  #writes = 0;
  #closed = false;
  #corruptSkipped = 0;

  private constructor(dir: string, options: SlotFileOptions) {
    this.dir = dir;
    this.filePath = path.join(dir, SLOT_FILE_NAME);
    ({ slotBytes: this.slotBytes, maxBodyBytes: this.maxBodyBytes } = resolveSizes(options));
    this.#io = new CountingFileIO(options.io ?? new NodeFileIO());
    const group = resolveGroupCommitOptions(options.groupMaxDelayMs, options.groupMaxBytes);
    this.#engine = new DurabilityEngine<number>(
      {
        durability: parseDurabilityPolicy(options.durability ?? DEFAULT_DURABILITY),
        syncMode: parseSyncMode(options.syncMode ?? DEFAULT_SYNC_MODE),
        groupMaxDelayMs: group.maxDelayMs,
        groupMaxBytes: group.maxBytes,
        io: this.#io,
        subject: `the slot file ${this.filePath}`,
        fencedCode: 'QUEUE_FENCED',
      },
      -1,
      0,
    );
    this.#engine.attach({
      beforeSync: () => this.#beforeSync(),
      // Slots are written in place: nothing to cut back, the fence refuses what comes next.
      onFence: () => undefined,
    });
    this.#clock = options.clock ?? wallClock;
    this.#chunkSlots = options.chunkSlots ?? DEFAULT_CHUNK_SLOTS;
    this.#table = new DeliveryTable(this.#states);
    this.#buffer = Buffer.alloc(this.slotBytes);
    this.#waiters = new ReceiveWaiters(
      {
        receive: (visibilityTimeoutMs) => this.receive({ visibilityTimeoutMs }),
        nextDeadlineMs: () => this.#table.nextDeadlineMs,
      },
      this.#clock,
    );
    // Last: every check above can refuse the options without a lock or handle to leak. The
    // lock comes before the file is created, so of two racing creators only one goes on.
    this.#lock = lockQueueDir(this.#io, dir, this.filePath);
    try {
      if (!this.#io.exists(this.filePath)) createSlotFile(this.#io, this.filePath, this.slotBytes);
      this.#handle = this.#io.open(this.filePath, { create: true });
    } catch (error) {
      releaseAfterFailure(this.#lock);
      throw queueDirError(error, dir);
    }
  }

  /**
   * Opens (creating, durably, when missing) the queue in directory `dir`: its slot file is
   * `<dir>/slots`. Every full slot is ready again. Throws LOG_LOCKED while another writer, in
   * this process or another, has it open.
   */
  static open(dir: string, options: SlotFileOptions = {}): SlotFileQueue {
    const queue = new SlotFileQueue(dir, options);
    try {
      queue.#load();
    } catch (error) {
      closeAfterFailure(queue.#io, queue.#handle);
      releaseAfterFailure(queue.#lock);
      throw error;
    }
    return queue;
  }

  async send(body: Uint8Array, options: SendOptions = {}): Promise<number> {
    this.#checkWritable();
    const delayMs = delayMsOf(options);
    this.#checkBodySize(body.length, delayMs > 0);
    const slot = this.#takeFreeSlot();
    const id = this.#nextId++;
    const dueMs = delayMs > 0 ? this.#clock.nowMs() + delayMs : undefined;
    this.#encodeSlot(id, body, dueMs);
    this.#newestSlot = slot;
    const write = this.#write(this.#buffer, this.slotBytes, slot);
    this.#track(slot, id, dueMs);
    this.#waiters.notify();
    await this.#engine.acknowledged(write);
    return id;
  }

  /** maxBodyBytes; a delayed body must also leave room in its slot for the due time. */
  #checkBodySize(bodyBytes: number, delayed: boolean): void {
    if (bodyBytes > this.maxBodyBytes) {
      throw messageTooLarge(bodyBytes, this.maxBodyBytes, 'maxBodyBytes');
    }
    const delayedHoldsBytes = this.slotBytes - SLOT_HEADER_BYTES - DUE_TIME_BYTES;
    if (delayed && bodyBytes > delayedHoldsBytes) {
      throw messageTooLarge(
        bodyBytes,
        delayedHoldsBytes,
        `a delayed body shares its ${this.slotBytes}-byte slot with an 8-byte due time; ` +
          'open the queue with a larger slotBytes, or leave slotBytes out',
      );
    }
  }

  receive(options: ReceiveOptions = {}): QueueMessage | null {
    this.#checkOpen();
    const nowMs = this.#clock.nowMs();
    this.#table.expire(nowMs);
    const deadlineMs = nowMs + visibilityTimeoutMsOf(options);
    for (;;) {
      const next = this.#nextDeliverable();
      if (next === null) return null;
      let body: Buffer | null;
      try {
        body = this.#readBody(next.id);
      } catch (error) {
        // A read that failed (not a damaged slot) leaves the message where it was.
        if (next.readyAgain) this.#table.returnReadyAgain(next.id, next.attempt);
        else this.#ready.unshift(next.id, next.attempt);
        throw error;
      }
      if (body === null) continue;
      this.#table.deliver(next.id, next.attempt + 1, deadlineMs);
      return { id: next.id, body, deadlineMs, attempt: next.attempt + 1 };
    }
  }

  #nextDeliverable(): { id: number; attempt: number; readyAgain: boolean } | null {
    const again = this.#table.takeReadyAgain();
    if (again !== null) return { id: again.key, attempt: again.attempt, readyAgain: true };
    while (this.#ready.length > 0) {
      const id = this.#ready.peekKey();
      this.#ready.shift();
      if (this.#states.get(id) === DeliveryState.Pending)
        return { id, attempt: 0, readyAgain: false };
    }
    return null;
  }

  async receiveWait(options: ReceiveWaitOptions): Promise<QueueMessage | null> {
    this.#checkOpen();
    const waitMs = waitMsOf(options);
    return this.#waiters.wait(waitMs, visibilityTimeoutMsOf(options));
  }

  async delete(id: number): Promise<void> {
    this.#checkWritable();
    const slot = this.#states.slotById.get(id);
    if (slot === undefined)
      throw unknownMessage(
        id,
        Number.isSafeInteger(id) && id >= 0 && id < this.#nextId
          ? 'already deleted'
          : 'never received',
      );
    const refused = this.#table.complete(id);
    if (refused !== null) throw unknownMessage(id, refused);
    const write = this.#write(STATE_BYTE, 1, slot, STATE_AT);
    this.#release(id, slot);
    await this.#engine.acknowledged(write);
  }

  /**
   * fdatasyncs the slot file on the event loop (as the log's flush does: asked for, and rare);
   * every write so far is then durable, whatever the policy.
   */
  async flush(): Promise<void> {
    this.#checkWritable();
    this.#engine.guard('sync', () => this.#io.fdatasync(this.#handle));
    this.#engine.vouch(this.#newestSlot, this.#writes);
  }

  get counters(): FileIOCounters {
    return { ...this.#io.counters };
  }

  stats(): QueueStats {
    return {
      ready: this.#ready.length + this.#table.readyAgain,
      inFlight: this.#table.inFlight,
      delayed: this.#table.delayed,
      end: this.#nextId,
      cursor: 0,
      head: 0,
      diskBytes: (this.#slots + 1) * this.slotBytes,
      corruptSkipped: this.#corruptSkipped,
    };
  }

  /**
   * Waits for a thread-pool sync in flight (closing the file under it would fail it), syncs what
   * is left, and closes the file even when that sync fails — which fences first, so no waiter is
   * acknowledged by a later sync of pages the failed one left marked clean. The writer lock is
   * released last, whatever failed: only then may another writer open the file.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#waiters.close();
    const engine = this.#engine;
    try {
      for (let sync = engine.inFlight; sync !== null; sync = engine.inFlight) await sync;
      if (engine.fenced === null) {
        engine.guard('sync', () => this.#io.fdatasync(this.#handle));
        engine.close(this.#newestSlot, this.#writes);
      } else engine.abandon();
    } catch (error) {
      engine.abandon();
      throw error;
    } finally {
      try {
        this.#io.close(this.#handle);
      } finally {
        this.#lock.release();
      }
    }
  }

  /**
   * Asserts everything that must hold between calls, for tests and tools (it walks every slot;
   * nothing on the send path calls it): each slot either free or holding one message, never
   * both; every message's id issued; the newest and protected slots inside the file; and the
   * delivery table's counts those of the messages' states.
   */
  checkInvariants(): void {
    const states = this.#states;
    assert(states.states.length === this.#slots, 'a delivery state per slot');
    const used = new Uint8Array(this.#slots);
    for (const slot of this.#freeSlots) {
      assert(slot >= 0 && slot < this.#slots, `free slot ${slot} is in the file`);
      assert(used[slot] === 0, `slot ${slot} is listed free once`);
      used[slot] = 1;
    }
    const counts = new Map<DeliveryState, number>();
    for (const [id, slot] of states.slotById) {
      assert(id >= 0 && id < this.#nextId, `message ${id} has an issued id`);
      assert(slot >= 0 && slot < this.#slots, `message ${id}'s slot is in the file`);
      assert(used[slot] === 0, `slot ${slot} holds one message and is not free`);
      used[slot] = 1;
      const state = states.get(id);
      assert(state !== DeliveryState.Done, `message ${id} is done but still holds its slot`);
      counts.set(state, (counts.get(state) ?? 0) + 1);
    }
    assert(
      states.slotById.size + this.#freeSlots.length === this.#slots,
      'every slot is free or holds a message',
    );
    assert(
      (this.#newestSlot === -1) === (this.#nextId === 0),
      'a newest slot once an id was issued',
    );
    assert(this.#newestSlot < this.#slots, 'the newest slot is in the file');
    assert(this.#protectedSlot() < this.#slots, 'the protected slot is in the file');
    const table = this.#table;
    assert(
      (counts.get(DeliveryState.InFlight) ?? 0) === table.inFlight,
      'in-flight count agrees with the messages in flight',
    );
    assert(
      (counts.get(DeliveryState.Delayed) ?? 0) === table.delayed,
      'delayed count agrees with the delayed messages',
    );
    assert(
      (counts.get(DeliveryState.ReadyAgain) ?? 0) === table.readyAgain,
      'ready-again count agrees with the messages ready again',
    );
  }

  #encodeSlot(id: number, body: Uint8Array, dueMs: number | undefined): void {
    const buffer = this.#buffer;
    buffer.fill(0, 0, SLOT_HEADER_BYTES + DUE_TIME_BYTES);
    buffer.writeUInt8(STATE_FULL, STATE_AT);
    buffer.writeUInt8(dueMs === undefined ? 0 : FLAG_DUE_TIME, 5);
    buffer.writeUInt32BE(body.length, 8);
    writeU64(buffer, id, 12);
    const bodyStart = SLOT_HEADER_BYTES + (dueMs === undefined ? 0 : DUE_TIME_BYTES);
    if (dueMs !== undefined) writeU64(buffer, dueMs, SLOT_HEADER_BYTES);
    buffer.set(body, bodyStart);
    buffer.fill(0, bodyStart + body.length);
    buffer.writeUInt32BE(slotCrc(buffer, bodyStart + body.length), 0);
  }

  /** Reads and checks a message's slot; null (and counted) when its CRC or id fails. */
  #readBody(id: number): Buffer | null {
    const slot = this.#states.slotById.get(id)!;
    this.#readSlots(this.#buffer, 1, slot);
    const parsed = parseSlot(this.#buffer);
    if (parsed === null || parsed.state !== STATE_FULL || parsed.id !== id) {
      this.#corruptSkipped++;
      this.#table.drop(id);
      this.#release(id, slot);
      return null;
    }
    return Buffer.from(
      this.#buffer.subarray(parsed.bodyStart, parsed.bodyStart + parsed.bodyBytes),
    );
  }

  #track(slot: number, id: number, dueMs: number | undefined): void {
    this.#states.slotById.set(id, slot);
    this.#states.states[slot] = DeliveryState.Pending;
    if (dueMs !== undefined && dueMs > this.#clock.nowMs()) this.#table.delay(id, dueMs);
    else this.#ready.push(id, 0);
  }

  /** The message is gone (deleted, or corrupt): its slot is free for the next send. */
  #release(id: number, slot: number): void {
    this.#states.slotById.delete(id);
    this.#states.states[slot] = DeliveryState.Pending;
    this.#freeSlots.push(slot);
  }

  #takeFreeSlot(): number {
    if (this.#freeSlots.length === 0) this.#grow();
    const slot = this.#freeSlots.pop()!;
    if (slot !== this.#protectedSlot()) return slot;
    if (this.#freeSlots.length === 0) this.#grow();
    const other = this.#freeSlots.pop()!;
    this.#freeSlots.push(slot);
    return other;
  }

  /** Appends a chunk of zeroed (free) slots: real blocks, not a sparse hole. */
  #grow(): void {
    const chunk = Buffer.alloc(this.#chunkSlots * this.slotBytes);
    this.#engine.guard('write', () =>
      this.#io.write(this.#handle, chunk, 0, chunk.length, this.#position(this.#slots)),
    );
    this.#states.grow(this.#slots + this.#chunkSlots);
    for (let slot = this.#slots + this.#chunkSlots - 1; slot >= this.#slots; slot--)
      this.#freeSlots.push(slot);
    this.#slots += this.#chunkSlots;
  }

  /** Reads `count` slots from `first` into `buffer`; past the end of the file they read as zeros. */
  #readSlots(buffer: Buffer, count: number, first: number): void {
    const length = count * this.slotBytes;
    const got = this.#io.read(this.#handle, buffer, 0, length, this.#position(first));
    buffer.fill(0, got, length);
  }

  #position(slot: number): number {
    return (slot + 1) * this.slotBytes;
  }

  /**
   * One positional write into a slot (at `atBytes` within it), handed to the engine (which syncs
   * it under `always`); returns its ticket for the acknowledgement.
   */
  #write(bytes: Buffer, length: number, slot: number, atBytes = 0): number {
    this.#engine.guard('write', () =>
      this.#io.write(this.#handle, bytes, 0, length, this.#position(slot) + atBytes),
    );
    // Counted before the engine hears of it: `wrote` may sync at once, and that sync must cover
    // this write, or its sender waits for a sync that never comes.
    const write = this.#writes++;
    this.#engine.wrote(this.#writes, length);
    return write;
  }

  /** Slots are written at once: a sync started now covers every write so far. */
  #beforeSync(): SyncPlan<number> {
    return { handle: this.#handle, point: this.#newestSlot, endTicket: this.#writes };
  }

  /**
   * The slot holding the highest id known to be on the device; never reused while it is. The
   * next id after a restart is one past the highest id in the file, deleted slots included;
   * overwriting that slot with a write a crash tears would take the id with it, and the id of
   * an acknowledged, deleted message would be handed out again.
   */
  #protectedSlot(): number {
    return this.#engine.synced;
  }

  #load(): void {
    const sizeBytes = this.#io.sizeBytes(this.#handle);
    if (sizeBytes === 0) {
      this.#writeFileHeader();
      return;
    }
    this.#checkFileHeader();
    // A power cut can leave the size part-way through a slot (ext4 commits it at a page
    // boundary): that last slot counts, read as zeros past the end. A message may lie whole in
    // its first part; ignoring it would hand its id out again while its bytes wait on the device.
    const slots = Math.ceil(sizeBytes / this.slotBytes) - 1;
    this.#states.grow(slots);
    this.#slots = slots;
    const full = this.#scanSlots(slots);
    full.sort((a, b) => a.id - b.id);
    for (const { slot, id, dueMs } of full) this.#track(slot, id, dueMs);
  }

  /** Reads every slot in large chunks: full ones are returned, the rest become free slots. */
  #scanSlots(slots: number): Array<{ slot: number; id: number; dueMs: number | undefined }> {
    const full: Array<{ slot: number; id: number; dueMs: number | undefined }> = [];
    const chunk = Buffer.alloc(
      Math.max(1, Math.floor((1 << 20) / this.slotBytes)) * this.slotBytes,
    );
    for (let first = 0; first < slots; first += chunk.length / this.slotBytes) {
      const count = Math.min(chunk.length / this.slotBytes, slots - first);
      this.#readSlots(chunk, count, first);
      for (let i = count - 1; i >= 0; i--) {
        const slot = first + i;
        const parsed = parseSlot(chunk.subarray(i * this.slotBytes, (i + 1) * this.slotBytes));
        if (parsed !== null && parsed.id >= this.#nextId && parsed.state !== STATE_FREE) {
          this.#nextId = parsed.id + 1;
          this.#newestSlot = slot;
        }
        if (parsed !== null && parsed.state === STATE_FULL)
          full.push({ slot, id: parsed.id, dueMs: parsed.dueMs });
        else {
          if (parsed === null && chunk[i * this.slotBytes + STATE_AT] === STATE_FULL)
            this.#corruptSkipped++;
          this.#freeSlots.push(slot);
        }
      }
    }
    this.#freeSlots.reverse();
    // What the file holds is on the device as far as anyone can tell: its newest slot is protected.
    this.#engine.vouch(this.#newestSlot, 0);
    return full;
  }

  /** An empty file someone else created: give it a header. */
  #writeFileHeader(): void {
    const header = encodeFileHeader(this.slotBytes);
    this.#engine.guard('write', () => {
      this.#io.write(this.#handle, header, 0, header.length, 0);
      if (this.#engine.syncsBeforeAcknowledging) this.#io.fdatasync(this.#handle);
    });
  }

  #checkFileHeader(): void {
    const header = Buffer.alloc(12);
    this.#io.read(this.#handle, header, 0, 12, 0);
    if (header.readUInt32BE(0) !== FILE_MAGIC || header.readUInt32BE(4) !== FILE_VERSION) {
      throw new StorageError(
        'INVALID_QUEUE_FILE',
        `${this.filePath} is not a loglab slot file (bad magic or version); open the queue on ` +
          'another directory, or move that file away',
        { file: this.filePath },
      );
    }
    const slotBytes = header.readUInt32BE(8);
    if (slotBytes !== this.slotBytes) {
      throw new StorageError(
        'INVALID_CONFIG',
        `${this.filePath} has ${slotBytes}-byte slots, but ${this.slotBytes} were asked for; ` +
          `open it with slotBytes ${slotBytes}`,
        { file: this.filePath, reason: 'slotBytes' },
      );
    }
  }

  #checkOpen(): void {
    if (this.#closed) throw queueClosed(`the slot file ${this.filePath}`);
  }

  #checkWritable(): void {
    this.#checkOpen();
    this.#engine.checkNotFenced();
  }
}

/**
 * The queue's live list of free slots, for a test that proves checkInvariants fails on a slot
 * released twice. Not exported through storage/index.ts.
 */
export function freeSlotsForTesting(queue: SlotFileQueue): number[] {
  return freeSlotsOf(queue);
}

/**
 * Creates the queue's directory durably and takes the slot file's writer lock in it; a directory
 * that cannot be created or written is reported as such (queueDirError).
 */
function lockQueueDir(io: FileIO, dir: string, filePath: string): WriterLock {
  try {
    mkdirpDurable(io, dir);
    return acquireWriterLock(io, lockPathForSlotFile(filePath), `the slot file ${filePath}`);
  } catch (error) {
    throw queueDirError(error, dir);
  }
}

function encodeFileHeader(slotBytes: number): Buffer {
  const header = Buffer.alloc(slotBytes);
  header.writeUInt32BE(FILE_MAGIC, 0);
  header.writeUInt32BE(FILE_VERSION, 4);
  header.writeUInt32BE(slotBytes, 8);
  return header;
}

/**
 * A new slot file appears whole or not at all, under every policy: its header is written and
 * synced under a temporary name, renamed into place, and the rename made durable. Created in
 * place, a power cut could leave the name with a header that never landed — a file that no
 * longer opens — or take the name, and every synced slot, away.
 */
function createSlotFile(io: FileIO, filePath: string, slotBytes: number): void {
  writeFileAtomically(io, filePath, encodeFileHeader(slotBytes));
}

interface ParsedSlot {
  readonly state: number;
  readonly id: number;
  readonly dueMs: number | undefined;
  readonly bodyStart: number;
  readonly bodyBytes: number;
}

/** Checks a slot's CRC; null when a full or deleted slot fails it (free slots are not checked). */
function parseSlot(slot: Buffer): ParsedSlot | null {
  const state = slot.readUInt8(STATE_AT);
  if (state === STATE_FREE) return { state, id: 0, dueMs: undefined, bodyStart: 0, bodyBytes: 0 };
  if (state !== STATE_FULL && state !== STATE_DELETED) return null;
  const flags = slot.readUInt8(5);
  const bodyStart = SLOT_HEADER_BYTES + (flags & FLAG_DUE_TIME ? DUE_TIME_BYTES : 0);
  const bodyBytes = slot.readUInt32BE(8);
  if ((flags & ~FLAG_DUE_TIME) !== 0 || bodyStart + bodyBytes > slot.length) return null;
  if (slotCrc(slot, bodyStart + bodyBytes) !== slot.readUInt32BE(0)) return null;
  const dueMs = flags & FLAG_DUE_TIME ? readU64(slot, SLOT_HEADER_BYTES) : undefined;
  return { state, id: readU64(slot, 12), dueMs, bodyStart, bodyBytes };
}

function slotCrc(slot: Buffer, endBytes: number): number {
  return crc32c(slot.subarray(STATE_AT + 1, endBytes));
}
