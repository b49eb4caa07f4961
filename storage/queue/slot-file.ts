/**
 * Design A: a file of fixed slots updated in place (the course, lesson 2, "Two Ways to Keep
 * Messages on Disk"). send writes one whole slot, somewhere in the file; delete writes the slot's
 * state byte; receive writes nothing. The file grows in preallocated chunks of zeroed slots.
 *
 * The queue lives in a directory, as design B's does: the slot file is `<dir>/slots`, its writer
 * lock `<dir>/slots.lock`; nothing else in the directory is touched.
 *
 * The slot sizes are slot-sizes.ts's, the bytes of a slot and of the file header slot-format.ts's
 * (drawn there), and what opening finds slot-file-scan.ts's.
 *
 * A full slot whose CRC fails (a torn write: the page held the slot half old, half new) is
 * reported in `corruptSkipped` and never delivered; its slot is reused. Message ids increase
 * forever and survive restarts (the largest id in the file), so a deleted id is never reused.
 *
 * Why this file is over 450 lines: SlotFileQueue's private state (the handle, the engine, the
 * slots' states, the delivery table, the free slots) is the queue, and every method here reads
 * or moves it; what stands apart from that state already has its file.
 */
import * as path from 'node:path';
import {
  closeAfterFailure,
  type FileHandle,
  type FileIO,
  type FileIOCounters,
} from '../io/file-io.js';
import { NodeFileIO } from '../io/node-file-io.js';
import { CountingFileIO } from '../io/counting-file-io.js';
import { mkdirpDurable } from '../io/durable-dir.js';
import { type FileUse, checkDirectoryEntries } from '../io/directory-entries.js';
import { TEMPORARY_SUFFIX } from '../io/atomic-file.js';
import { DurabilityEngine, type SyncPlan } from '../io/durability-engine.js';
import {
  DEFAULT_DURABILITY,
  DEFAULT_SYNC_MODE,
  parseDurabilityPolicy,
  parseSyncMode,
  resolveGroupCommitOptions,
} from '../io/durability.js';
import { DeliveryState, DeliveryTable } from './delivery-table.js';
import { KeyRing } from './deadline-heap.js';
import { queueClosed, queueDirError, queueOpenError, unknownMessage } from './queue-errors.js';
import {
  type Queue,
  type QueueClock,
  type QueueMessage,
  type QueueOptions,
  type QueueStats,
  type ReceiveOptions,
  type ReceiveWaitOptions,
  type SendOptions,
  delayMsOf,
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
} from '../io/writer-lock.js';
import {
  STATE_AT,
  STATE_DELETED,
  STATE_FULL,
  checkFileHeader,
  createSlotFile,
  encodeFileHeader,
  encodeSlot,
  parseSlot,
  readSlots,
  slotPositionBytes,
} from './slot-format.js';
import { checkSlotBody, resolveSlotSizes } from './slot-sizes.js';
import { SlotStates } from './slot-states.js';
import { FreeSlots } from './free-slots.js';
import { scanSlotFile } from './slot-file-scan.js';
import { checkSlotBookkeeping } from './slot-file-invariants.js';

/** The slot file's name inside the queue's directory; its lock is `slots.lock` beside it. */
export const SLOT_FILE_NAME = 'slots';
export const DEFAULT_CHUNK_SLOTS = 1024;
const STATE_BYTE = Buffer.from([STATE_DELETED]);

export interface SlotFileOptions extends QueueOptions {
  /**
   * Bytes per slot, from 29 to 1,048,576; default: sized for `maxBodyBytes` (slotBytesFor).
   * Given alone, `maxBodyBytes` defaults to what the slot holds undelayed (slotBytes - 20).
   */
  readonly slotBytes?: number;
  /** Slots added each time the file grows. */
  readonly chunkSlots?: number;
}

/** Lets a test damage the free slots as a bug would (freeSlotsForTesting); nothing else. */
let freeSlotsOf: (queue: SlotFileQueue) => FreeSlots;

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
  readonly #states = new SlotStates();
  readonly #table: DeliveryTable;
  readonly #ready = new KeyRing();
  readonly #freeSlots: FreeSlots;
  readonly #buffer: Buffer;
  readonly #waiters: ReceiveWaiters;
  #nextId = 0;
  /** The slot holding the highest id written so far (by a send, or found when opening). */
  #newestSlot = -1;
  #writes = 0;
  #closed = false;
  #corruptSkipped = 0;

  private constructor(dir: string, options: SlotFileOptions) {
    this.dir = dir;
    this.filePath = path.join(dir, SLOT_FILE_NAME);
    ({ slotBytes: this.slotBytes, maxBodyBytes: this.maxBodyBytes } = resolveSlotSizes(options));
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
    this.#freeSlots = new FreeSlots(options.chunkSlots ?? DEFAULT_CHUNK_SLOTS, (first, count) =>
      this.#addSlots(first, count),
    );
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
      checkDirectoryEntries(this.#io, dir, () => slotFileUse, true);
      if (!this.#io.exists(this.filePath)) createSlotFile(this.#io, this.filePath, this.slotBytes);
      this.#handle = this.#io.open(this.filePath, { create: true });
    } catch (error) {
      releaseAfterFailure(this.#lock);
      throw queueDirError(error, dir);
    }
  }

  /**
   * Opens (creating, durably, when missing) the queue in directory `dir`: its slot file is
   * `<dir>/slots`. Every full slot is ready again. Throws QUEUE_LOCKED while another writer, in
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
    checkSlotBody(body.length, delayMs > 0, this);
    const slot = this.#freeSlots.take(this.#protectedSlot());
    const id = this.#nextId++;
    const dueMs = delayMs > 0 ? this.#clock.nowMs() + delayMs : undefined;
    encodeSlot(this.#buffer, id, body, dueMs);
    this.#newestSlot = slot;
    const write = this.#write(this.#buffer, this.slotBytes, slot);
    this.#track(slot, id, dueMs);
    this.#waiters.notify();
    await this.#engine.acknowledged(write);
    return id;
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
      diskBytes: (this.#freeSlots.slots + 1) * this.slotBytes,
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
    checkSlotBookkeeping({
      slots: this.#freeSlots.slots,
      freeSlots: this.#freeSlots.list,
      states: this.#states,
      table: this.#table,
      nextId: this.#nextId,
      newestSlot: this.#newestSlot,
      protectedSlot: this.#protectedSlot(),
    });
  }

  /** Reads and checks a message's slot; null (and counted) when its CRC or id fails. */
  #readBody(id: number): Buffer | null {
    const slot = this.#states.slotById.get(id)!;
    readSlots(this.#io, this.#handle, this.slotBytes, this.#buffer, 1, slot);
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
    this.#freeSlots.release(slot);
  }

  /** Zeroed slots at the end of the file: the free slots grow. */
  #addSlots(first: number, count: number): void {
    const chunk = Buffer.alloc(count * this.slotBytes);
    this.#engine.guard('write', () =>
      this.#io.write(this.#handle, chunk, 0, chunk.length, this.#position(first)),
    );
    this.#states.grow(first + count);
  }

  #position(slot: number): number {
    return slotPositionBytes(slot, this.slotBytes);
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
    checkFileHeader(this.#io, this.#handle, this.filePath, this.slotBytes);
    const scan = scanSlotFile(this.#io, this.#handle, this.slotBytes, sizeBytes);
    this.#states.grow(scan.slots);
    this.#freeSlots.adopt(scan.slots, scan.free);
    this.#nextId = scan.nextId;
    this.#newestSlot = scan.newestSlot;
    this.#corruptSkipped = scan.corruptSkipped;
    // What the file holds is on the device as far as anyone can tell: its newest slot is protected.
    this.#engine.vouch(this.#newestSlot, 0);
    for (const { slot, id, dueMs } of scan.full) this.#track(slot, id, dueMs);
  }

  /** An empty file someone else created: give it a header. */
  #writeFileHeader(): void {
    const header = encodeFileHeader(this.slotBytes);
    this.#engine.guard('write', () => {
      this.#io.write(this.#handle, header, 0, header.length, 0);
      if (this.#engine.syncsBeforeAcknowledging) this.#io.fdatasync(this.#handle);
    });
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
 * The queue's free slots, for a test that proves checkInvariants fails on a slot released twice.
 * Not exported through storage/index.ts.
 */
export function freeSlotsForTesting(queue: SlotFileQueue): FreeSlots {
  return freeSlotsOf(queue);
}

/**
 * Creates the queue's directory durably and takes the slot file's writer lock in it; a directory
 * that cannot be created or written, or another writer's lock, is reported in the queue's words
 * (queueOpenError).
 */
/**
 * The slot file, its temporary name (a new file's header is written atomically) and its lock,
 * each written in place: what directory-entries.ts's rules apply to in the queue's directory.
 */
function slotFileUse(name: string): FileUse | null {
  const own = [
    SLOT_FILE_NAME,
    `${SLOT_FILE_NAME}${TEMPORARY_SUFFIX}`,
    path.basename(lockPathForSlotFile(SLOT_FILE_NAME)),
  ];
  return own.includes(name) ? 'in-place' : null;
}

function lockQueueDir(io: FileIO, dir: string, filePath: string): WriterLock {
  try {
    mkdirpDurable(io, dir);
    return acquireWriterLock(io, lockPathForSlotFile(filePath), `the slot file ${filePath}`);
  } catch (error) {
    throw queueOpenError(error, dir);
  }
}
