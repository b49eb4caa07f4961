/**
 * One queue contract, two designs (lesson 1 and lesson 2 of the seed):
 *
 * - design A, `SlotFileQueue` (slot-file.ts): a file of fixed slots updated in place;
 * - design B, `LogQueue` (log-queue.ts): a log appended at the end, with end, cursor and head.
 *
 * Both keep the same promise: when `send` resolves, the message survives a restart as the
 * durability policy defines (`none`: a process restart; `always`/`group`: a power failure too).
 * `receive` writes nothing to disk; after a restart every message not deleted is ready again, so a
 * message can be delivered more than once (at-least-once). `delete` of an id that was never
 * received or was already deleted is a typed error and changes nothing.
 */
import type { DurabilityPolicy, SyncMode } from './durability.js';
import type { FileIO } from './file-io.js';
import { wallClockMs } from './wall-clock.js';
import { checkMs } from './config-checks.js';

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
  /** How long the receiver holds the message before it is ready again. */
  readonly visibilityTimeoutMs: number;
}

export interface Queue {
  send(body: Uint8Array, options?: SendOptions): Promise<number>;
  receive(options: ReceiveOptions): QueueMessage | null;
  delete(id: number): Promise<void>;
  stats(): QueueStats;
  close(): Promise<void>;
}

/** Milliseconds on the clock deadlines and due times use (wall clock by default: due times are stored). */
export interface QueueClock {
  nowMs(): number;
}

export interface QueueOptions {
  readonly durability?: DurabilityPolicy;
  readonly groupMaxDelayMs?: number;
  readonly groupMaxBytes?: number;
  readonly syncMode?: SyncMode;
  readonly clock?: QueueClock;
  readonly io?: FileIO;
}

export const wallClock: QueueClock = { nowMs: wallClockMs };

/** About 285 years: any longer wait is a mistake, and every deadline must stay a safe integer. */
const LONGEST_WAIT_MS = 9e12;

/**
 * The send's delay, checked: a NaN or infinite one would sit at the top of the deadline heap for
 * good and stop every deadline behind it.
 */
export function delayMsOf(options: SendOptions): number {
  return checkMs('delayMs', options.delayMs ?? 0, 0, LONGEST_WAIT_MS);
}

/** The receive's visibility timeout, checked (see delayMsOf). */
export function visibilityTimeoutMsOf(options: ReceiveOptions): number {
  return checkMs('visibilityTimeoutMs', options.visibilityTimeoutMs, 0, LONGEST_WAIT_MS);
}
