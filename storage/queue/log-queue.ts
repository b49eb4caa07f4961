/**
 * Design B: the queue on the log (the course, lesson 2). Three offsets:
 *
 *   head ............ cursor ............ end
 *   oldest not        oldest never        where the next
 *   deleted           handed out          send is appended
 *
 * send appends only; receive takes from the ready-again list first, else at the cursor (a
 * sequential read, no index); delete marks the offset done and moves the head past every done
 * offset. Between head and cursor each offset has one byte of state; the in-flight table holds
 * (offset, deadline, attempt), never bodies: a redelivery reads its body back through the index.
 *
 * The head is saved in a checkpoint file; whole segments below the saved head are deleted
 * (retention), so the disk stops growing when consumers keep up. Only the saved head counts:
 * a segment is never removed before the checkpoint that makes it unnecessary is durable.
 *
 * The log is the queue's own: nothing outside appends to it (a record appended behind the queue's
 * back would be delivered as a message). Tests that must look at it use storage/testing.
 */
import { assert, isStorageError } from '../errors.js';
import { CountingFileIO } from '../io/counting-file-io.js';
import type { FileIOCounters } from '../io/file-io.js';
import { NodeFileIO } from '../io/node-file-io.js';
import { Log } from '../log/log.js';
import type { LogReader } from '../log/log-reader.js';
import { DeliveryTable } from './delivery-table.js';
import { OffsetStates } from './offset-states.js';
import { readHeadCheckpoint, writeHeadCheckpoint } from './head-checkpoint.js';
import { recordSizeBytes } from '../record/record.js';
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
  maxBodyBytesOf,
  visibilityTimeoutMsOf,
  waitMsOf,
  wallClock,
} from './queue.js';
import {
  asQueueError,
  messageTooLarge,
  queueClosed,
  queueOpenError,
  unknownMessage,
} from './queue-errors.js';
import { ReceiveWaiters } from './receive-waiters.js';

export interface LogQueueOptions extends QueueOptions {
  readonly segmentBytes?: number;
  readonly indexIntervalBytes?: number;
  /** The log's direct writes under `always` and `group` (storage/io/direct-write.ts). */
  readonly directWrites?: boolean;
  /** Save the head at least this often while deletes happen. */
  readonly checkpointIntervalMs?: number;
  /** …and after this many deletes. */
  readonly checkpointEveryDeletes?: number;
}

/** Lets storage/testing reach a queue's log (logOfQueueForTesting); nothing else may. */
let logOf: (queue: LogQueue) => Log;

export class LogQueue implements Queue {
  static {
    logOf = (queue) => queue.#log;
  }

  /** The directory the queue was opened on (its log's). */
  readonly dir: string;
  readonly maxBodyBytes: number;
  readonly #log: Log;
  readonly #io: CountingFileIO;
  readonly #subject: string;
  readonly #clock: QueueClock;
  readonly #states: OffsetStates;
  readonly #table: DeliveryTable;
  readonly #checkpointIntervalMs: number;
  readonly #checkpointEveryDeletes: number;
  #cursor: number;
  readonly #reader: LogReader;
  #savedHead: number;
  #deletesSinceCheckpoint = 0;
  /** The message sent at the cursor without attributes, for a consumer that keeps up (#sentAtCursor). */
  #lastSent: { readonly offset: number; readonly body: Buffer } | null = null;
  #lastCheckpointMs: number;
  #corruptSkipped = 0;
  readonly #waiters: ReceiveWaiters;
  #closed = false;

  private constructor(log: Log, io: CountingFileIO, head: number, options: LogQueueOptions) {
    this.dir = log.dir;
    this.maxBodyBytes = maxBodyBytesOf(options);
    this.#log = log;
    this.#io = io;
    this.#subject = `the queue in ${log.dir}`;
    this.#clock = options.clock ?? wallClock;
    this.#states = new OffsetStates(head);
    this.#table = new DeliveryTable(this.#states);
    this.#checkpointIntervalMs = options.checkpointIntervalMs ?? 1000;
    this.#checkpointEveryDeletes = options.checkpointEveryDeletes ?? 1000;
    this.#cursor = head;
    this.#reader = log.reader(head);
    this.#savedHead = head;
    this.#lastCheckpointMs = this.#clock.nowMs();
    this.#waiters = new ReceiveWaiters(
      {
        receive: (visibilityTimeoutMs) => this.receive({ visibilityTimeoutMs }),
        nextDeadlineMs: () => this.#table.nextDeadlineMs,
      },
      this.#clock,
    );
  }

  /**
   * Opens (creating, durably, when missing, or recovering) the queue's log in directory `dir`;
   * every message from the saved head on is ready. Throws QUEUE_LOCKED while another writer, in
   * this process or another, has it open.
   */
  static open(dir: string, options: LogQueueOptions = {}): LogQueue {
    maxBodyBytesOf(options); // refused before anything is created
    const io = new CountingFileIO(options.io ?? new NodeFileIO());
    let log: Log;
    try {
      log = Log.open(dir, {
        // Time-index entries on the queue's clock, like due times (a test's clock makes them
        // exact).
        ...(options.clock === undefined ? {} : { nowMs: () => options.clock!.nowMs() }),
        ...pick(options, [
          'durability',
          'segmentBytes',
          'indexIntervalBytes',
          'groupMaxDelayMs',
          'groupMaxBytes',
          'syncMode',
          'directWrites',
        ]),
        io,
      });
    } catch (error) {
      throw queueOpenError(error, dir);
    }
    try {
      const saved = readHeadCheckpoint(io, dir);
      const head = Math.min(Math.max(saved ?? log.startOffset, log.startOffset), log.endOffset);
      // A head past the end (the log lost its tail) must not outlive this open: offsets sent
      // again from the end would read as deleted after the next restart.
      if (saved !== null && saved > head) writeHeadCheckpoint(io, dir, head);
      return new LogQueue(log, io, head, options);
    } catch (error) {
      // The error that stopped the open is the one to report.
      log.close().catch(() => undefined);
      throw error;
    }
  }

  async send(body: Uint8Array, options: SendOptions = {}): Promise<number> {
    this.#checkOpen();
    const delayMs = delayMsOf(options);
    const attributes = delayMs > 0 ? { dueTimeMs: this.#clock.nowMs() + delayMs } : undefined;
    this.#checkBodySize(body.length, attributes);
    try {
      const offset = this.#log.appendNoWait(body, attributes);
      // Only what a caught-up consumer takes next is worth a copy (the caller may reuse its
      // buffer once the send resolves); a consumer behind reads the file, many records a read.
      this.#lastSent =
        attributes === undefined && offset === this.#cursor
          ? { offset, body: Buffer.from(body) }
          : null;
      this.#waiters.notify();
      await this.#log.acknowledged(offset);
      return offset;
    } catch (error) {
      throw asQueueError(error, this.#subject);
    }
  }

  /** maxBodyBytes; the record must also fit the log's record limit (small segments lower it). */
  #checkBodySize(bodyBytes: number, attributes: { dueTimeMs: number } | undefined): void {
    if (bodyBytes > this.maxBodyBytes) {
      throw messageTooLarge(bodyBytes, this.maxBodyBytes, 'maxBodyBytes');
    }
    const { maxRecordBytes } = this.#log.config;
    const recordBytes = recordSizeBytes(bodyBytes, attributes);
    if (recordBytes > maxRecordBytes) {
      const limitBytes = bodyBytes - (recordBytes - maxRecordBytes);
      throw messageTooLarge(
        bodyBytes,
        limitBytes,
        `its record of ${recordBytes} bytes is over the log's record limit of ${maxRecordBytes} ` +
          'bytes, which a segment must hold; open the queue with a larger segmentBytes',
      );
    }
  }

  receive(options: ReceiveOptions = {}): QueueMessage | null {
    this.#checkOpen();
    try {
      return this.#receive(options);
    } catch (error) {
      throw asQueueError(error, this.#subject);
    }
  }

  async receiveWait(options: ReceiveWaitOptions): Promise<QueueMessage | null> {
    this.#checkOpen();
    const waitMs = waitMsOf(options);
    return this.#waiters.wait(waitMs, visibilityTimeoutMsOf(options));
  }

  #receive(options: ReceiveOptions): QueueMessage | null {
    const nowMs = this.#clock.nowMs();
    this.#table.expire(nowMs);
    const deadlineMs = nowMs + visibilityTimeoutMsOf(options);
    for (
      let again = this.#table.takeReadyAgain();
      again !== null;
      again = this.#table.takeReadyAgain()
    ) {
      let body: Buffer | null;
      try {
        body = this.#readBody(again.key);
      } catch (error) {
        // A read that failed (not a corrupt record) leaves the message where it was.
        this.#table.returnReadyAgain(again.key, again.attempt);
        throw error;
      }
      if (body === null) continue;
      this.#table.deliver(again.key, again.attempt + 1, deadlineMs);
      return { id: again.key, body, deadlineMs, attempt: again.attempt + 1 };
    }
    return this.#receiveAtCursor(nowMs, deadlineMs);
  }

  #receiveAtCursor(nowMs: number, deadlineMs: number): QueueMessage | null {
    for (;;) {
      const record = this.#sentAtCursor() ?? this.#nextAtCursor();
      if (record === null) return null;
      const offset = this.#cursor++;
      if (record === 'corrupt') continue;
      const dueMs = record.attributes?.dueTimeMs;
      if (dueMs !== undefined && dueMs > nowMs) {
        this.#table.delay(offset, dueMs);
        continue;
      }
      this.#table.deliver(offset, 1, deadlineMs);
      return { id: offset, body: record.body, deadlineMs, attempt: 1 };
    }
  }

  /**
   * The message at the cursor when its send landed there and kept a copy, still in the log: a
   * consumer that keeps up takes it from memory, and the reader moves past it unread. Reading it
   * back cost a read from the page cache (about 4-5 us on this lab's VM) in every cycle of a
   * caught-up design B; a message read again (redelivery) is read from the file.
   */
  #sentAtCursor(): { body: Buffer; attributes?: undefined } | null {
    const sent = this.#lastSent;
    if (sent === null || sent.offset !== this.#cursor) return null;
    this.#lastSent = null;
    // A fence may have cut the message away: the reader then reports the fence.
    if (this.#log.fenced !== null) return null;
    return this.#reader.skip(sent.offset, recordSizeBytes(sent.body.length, undefined))
      ? sent
      : null;
  }

  /**
   * The record at the cursor; a corrupt one is counted and dropped, never delivered. The reader
   * has already moved past it, so the next call reads the record after it.
   */
  #nextAtCursor(): ReturnType<LogReader['next']> | 'corrupt' {
    try {
      return this.#reader.next();
    } catch (error) {
      if (!isStorageError(error, 'CORRUPT_RECORD')) throw error;
      this.#table.drop(this.#cursor);
      this.#corruptSkipped++;
      return 'corrupt';
    }
  }

  #readBody(offset: number): Buffer | null {
    try {
      return this.#log.read(offset).body;
    } catch (error) {
      // A fence cut the message away (its write or sync failed): the queue must be reopened.
      const fence = this.#log.fenced;
      if (fence !== null && isStorageError(error, 'OFFSET_OUT_OF_RANGE')) throw fence;
      if (!isStorageError(error, 'CORRUPT_RECORD')) throw error;
      this.#table.drop(offset);
      this.#corruptSkipped++;
      return null;
    }
  }

  async delete(id: number): Promise<void> {
    this.#checkOpen();
    if (!Number.isSafeInteger(id) || id < this.#states.base || id >= this.#cursor) {
      throw unknownMessage(
        id,
        id < this.#states.base && id >= 0 ? 'already deleted' : 'never received',
      );
    }
    const refused = this.#table.complete(id);
    if (refused !== null) throw unknownMessage(id, refused);
    const head = this.#states.advance(this.#cursor);
    this.#deletesSinceCheckpoint++;
    const dueByCount = this.#deletesSinceCheckpoint >= this.#checkpointEveryDeletes;
    const dueByTime = this.#clock.nowMs() - this.#lastCheckpointMs >= this.#checkpointIntervalMs;
    if (head <= this.#savedHead || !(dueByCount || dueByTime)) return;
    try {
      await this.#checkpoint(head);
    } catch (error) {
      throw asQueueError(error, this.#subject);
    }
  }

  /**
   * Saves the head, never past what the log holds on the device (a head beyond the durable end
   * would swallow the messages a crash makes the log write again). Under `always` the log is
   * already synced; under `group` a message received before its sync forces one. Under `none`
   * the log is synced only when that lets retention drop a segment (or on close): a checkpoint
   * every N deletes must not cost an fsync of the log each time; the saved head lags instead,
   * and a crash redelivers a little more.
   */
  async #checkpoint(head: number, closing = false): Promise<void> {
    const log = this.#log;
    const lagging = head > log.syncedEndOffset;
    if (lagging && (closing || log.syncsBeforeAcknowledging || this.#segmentBelow(head)))
      await log.flush();
    const saved = Math.min(head, log.syncedEndOffset);
    this.#deletesSinceCheckpoint = 0;
    this.#lastCheckpointMs = this.#clock.nowMs();
    if (saved <= this.#savedHead) return;
    writeHeadCheckpoint(this.#io, log.dir, saved);
    this.#savedHead = saved;
    log.deleteSegmentsBelow(saved);
  }

  /** Whether a whole segment lies below `head`, so retention could drop it. */
  #segmentBelow(head: number): boolean {
    const second = this.#log.segments()[1];
    return second !== undefined && second.baseOffset <= head;
  }

  /** fdatasyncs everything the log holds, whatever the policy (Log.flush). */
  async flush(): Promise<void> {
    this.#checkOpen();
    try {
      await this.#log.flush();
    } catch (error) {
      throw asQueueError(error, this.#subject);
    }
  }

  get counters(): FileIOCounters {
    return { ...this.#io.counters };
  }

  stats(): QueueStats {
    const log = this.#log;
    return {
      ready: log.endOffset - this.#cursor + this.#table.readyAgain,
      inFlight: this.#table.inFlight,
      delayed: this.#table.delayed,
      end: log.endOffset,
      cursor: this.#cursor,
      head: this.#states.base,
      diskBytes: log.sizeBytes,
      corruptSkipped: this.#corruptSkipped,
    };
  }

  /**
   * Asserts what must hold between calls, for tests and tools: the saved head never past the
   * head, the head never past the cursor, retention never past the saved head, the saved head
   * never past what the log has on the device, the cursor inside the log (unless a fence cut
   * the log back), and the log's own (Log.checkInvariants).
   */
  checkInvariants(): void {
    const log = this.#log;
    const head = this.#states.base;
    assert(log.startOffset <= this.#savedHead, 'retention kept the saved head');
    assert(this.#savedHead <= head, 'the saved head is not past the head');
    assert(head <= this.#cursor, 'the head is not past the cursor');
    assert(this.#savedHead <= log.syncedEndOffset, 'the saved head is on the device');
    if (log.fenced === null) assert(this.#cursor <= log.endOffset, 'the cursor is in the log');
    log.checkInvariants();
  }

  /** Bytes of typed arrays behind the in-flight bookkeeping. */
  get trackingHeapBytes(): number {
    return this.#table.heapBytes + this.#states.heapBytes;
  }

  /**
   * Resolves every waiting receive with null, saves the head and closes the log (which syncs);
   * a second call does nothing.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#waiters.close();
    try {
      const fenced = this.#log.fenced !== null;
      if (!fenced && this.#states.base > this.#savedHead) {
        await this.#checkpoint(this.#states.base, true);
      }
    } catch (error) {
      throw asQueueError(error, this.#subject);
    } finally {
      await this.#log.close();
    }
  }

  #checkOpen(): void {
    if (this.#closed) throw queueClosed(this.#subject);
  }
}

/**
 * The log under a queue, for tests and crash targets that check it against the queue (its
 * synced end, its segments): exported to callers only through storage/testing.
 */
export function logOfQueueForTesting(queue: LogQueue): Log {
  return logOf(queue);
}

function pick<T extends object, K extends keyof T>(
  source: T,
  keys: readonly K[],
): Partial<Pick<T, K>> {
  const picked: Partial<Pick<T, K>> = {};
  for (const key of keys) if (source[key] !== undefined) picked[key] = source[key];
  return picked;
}
