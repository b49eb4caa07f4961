/**
 * One queue contract, two designs (the course, lessons 1 and 2):
 *
 * - design A, `SlotFileQueue` (slot-file.ts): a file of fixed slots updated in place;
 * - design B, `LogQueue` (log-queue.ts): a log appended at the end, with end, cursor and head.
 *
 * Both open the same way (`open(dir, options)`: a directory, created durably when missing), take
 * the same options and limits (a body of up to `maxBodyBytes`, 1 KiB by default), throw the same
 * codes (QUEUE_CLOSED, QUEUE_FENCED, MESSAGE_TOO_LARGE, UNKNOWN_MESSAGE) and count the same file
 * calls (`counters`).
 *
 * Both keep the same promise: when `send` resolves, the message survives a restart as the
 * durability policy defines (`none`: a process restart; `always`/`group`: a power failure too).
 * `receive` writes nothing to disk; after a restart every message not deleted is ready again, so a
 * message can be delivered more than once (at-least-once). `delete` of an id that was never
 * received or was already deleted is a typed error and changes nothing.
 *
 * `receive` is a poll: a ready message or null at once. `receiveWait` waits up to `waitMs` for
 * one: it resolves as soon as a message is ready (a send, a visibility timeout that ran out, a
 * delayed message coming due), waiters are served in the order they asked, and `close` resolves
 * every one still waiting with null (receive-waiters.ts).
 */
import type { DurabilityPolicy, SyncMode } from '../io/durability.js';
import type { FileIOCounters, FileIO } from '../io/file-io.js';
import { wallClockMs } from '../io/wall-clock.js';
import { checkInteger, checkMs } from '../config-checks.js';
import { MiB } from '../units.js';

export interface QueueMessage {
  readonly id: number;
  readonly body: Buffer;
  /** When the visibility timeout ends and the message becomes ready again (clock ms). */
  readonly deadlineMs: number;
  /**
   * 1 on the first delivery, then 2, 3, … after each expired deadline. Attempts are not stored:
   * after a restart every message starts at 1 again.
   */
  readonly attempt: number;
}

export interface QueueStats {
  /** Deliverable now: never delivered, or ready again after a deadline passed. */
  readonly ready: number;
  readonly inFlight: number;
  /** Sent with a delay that has not passed yet. */
  readonly delayed: number;
  /** Design B's offsets (design A reports the next id as end, and 0 for cursor and head). */
  readonly end: number;
  readonly cursor: number;
  readonly head: number;
  /** Bytes the queue occupies on disk. */
  readonly diskBytes: number;
  /** Messages found corrupt since open: reported here, never delivered. */
  readonly corruptSkipped: number;
}

export interface SendOptions {
  /** Deliver no earlier than this many ms from now. */
  readonly delayMs?: number;
}

export interface ReceiveOptions {
  /**
   * How long the receiver holds the message before it is ready again; default
   * DEFAULT_VISIBILITY_TIMEOUT_MS (30 s, as SQS's default).
   */
  readonly visibilityTimeoutMs?: number;
}

export interface ReceiveWaitOptions extends ReceiveOptions {
  /**
   * How long to wait for a message before resolving with null: from 0 (a poll that answers
   * through a promise) to LONGEST_RECEIVE_WAIT_MS (Node's longest timer, about 24.8 days). Like
   * any timer, a wait keeps the process alive until it ends or the queue is closed.
   */
  readonly waitMs: number;
}

export interface Queue {
  /** The largest body `send` takes (QueueOptions.maxBodyBytes). */
  readonly maxBodyBytes: number;
  send(body: Uint8Array, options?: SendOptions): Promise<number>;
  /** A ready message, or null at once (a poll). */
  receive(options?: ReceiveOptions): QueueMessage | null;
  /** A ready message as soon as there is one, or null after `waitMs`. */
  receiveWait(options: ReceiveWaitOptions): Promise<QueueMessage | null>;
  delete(id: number): Promise<void>;
  /** fdatasyncs everything written so far, whatever the policy (under `none` too). */
  flush(): Promise<void>;
  stats(): QueueStats;
  /**
   * The file calls this queue made since it opened (writes, reads, fdatasyncs, directory
   * fsyncs, and their bytes), counted by the queue itself whatever `io` it was given: a copy.
   */
  readonly counters: FileIOCounters;
  close(): Promise<void>;
}

/**
 * Milliseconds on the clock deadlines and due times use (wall clock by default: due times are
 * stored).
 */
export interface QueueClock {
  nowMs(): number;
  /**
   * Calls `fire` once `delayMs` have passed on this clock; returns what cancels it. Optional:
   * without it `receiveWait` waits with `setTimeout`. A test clock moved by hand implements it
   * so that its waits end when the test moves it.
   */
  setTimer?(delayMs: number, fire: () => void): () => void;
}

export interface QueueOptions {
  readonly durability?: DurabilityPolicy;
  readonly groupMaxDelayMs?: number;
  readonly groupMaxBytes?: number;
  readonly syncMode?: SyncMode;
  readonly clock?: QueueClock;
  readonly io?: FileIO;
  /**
   * The largest body `send` takes, from 1 to MAX_BODY_BYTES_LIMIT; default
   * DEFAULT_MAX_BODY_BYTES (1 KiB). Larger bodies are refused with MESSAGE_TOO_LARGE.
   */
  readonly maxBodyBytes?: number;
}

export const wallClock: QueueClock = { nowMs: wallClockMs };

/** The visibility timeout of a receive that names none: SQS's default. */
export const DEFAULT_VISIBILITY_TIMEOUT_MS = 30_000;

/** The largest body a queue takes unless `maxBodyBytes` says otherwise: 1 KiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024;

/**
 * The largest `maxBodyBytes` either design accepts: what design A's largest slot (1 MiB) holds
 * after its 20-byte header and an 8-byte due time. Design B's record of such a body (with its
 * due time) still fits the log's default 1 MiB record limit.
 */
export const MAX_BODY_BYTES_LIMIT = MiB - 28;

/** Node's longest timer (2^31 - 1 ms, about 24.8 days): the longest `waitMs`. */
export const LONGEST_RECEIVE_WAIT_MS = 2 ** 31 - 1;

/** About 285 years: any longer wait is a mistake, and every deadline must stay a safe integer. */
const LONGEST_WAIT_MS = 9e12;

/**
 * The send's delay, checked: a NaN or infinite one would sit at the top of the deadline heap for
 * good and stop every deadline behind it.
 */
export function delayMsOf(options: SendOptions): number {
  return checkMs('delayMs', options.delayMs ?? 0, 0, LONGEST_WAIT_MS);
}

/** The receive's visibility timeout, default filled in and checked (see delayMsOf). */
export function visibilityTimeoutMsOf(options: ReceiveOptions): number {
  const timeoutMs = options.visibilityTimeoutMs ?? DEFAULT_VISIBILITY_TIMEOUT_MS;
  return checkMs('visibilityTimeoutMs', timeoutMs, 0, LONGEST_WAIT_MS);
}

/** The wait of a `receiveWait`, checked: a timer cannot wait longer. */
export function waitMsOf(options: ReceiveWaitOptions): number {
  return checkMs('waitMs', options.waitMs, 0, LONGEST_RECEIVE_WAIT_MS);
}

/** `maxBodyBytes`, checked, or `fallback` when none was given. */
export function maxBodyBytesOf(options: QueueOptions, fallback = DEFAULT_MAX_BODY_BYTES): number {
  return checkInteger('maxBodyBytes', options.maxBodyBytes ?? fallback, 1, MAX_BODY_BYTES_LIMIT);
}
