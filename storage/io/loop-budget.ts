/**
 * How long this thread's event loop has been held, for syncMode `adaptive` (durability.ts): an
 * inline fdatasync may run only while the syncs before it in the same turn of the loop, and the
 * one it expects to take, stay within the budget; one that does not fit waits for the loop's next
 * turn and runs inline there. One budget per thread, not per log: the loop is the thread's, so a
 * process with many logs still holds it for one budget a turn.
 */
import { assert } from '../errors.js';

/**
 * Half the 1 ms event-loop delay the lab holds `always` and `group` to (bench event-loop): the
 * rest is for a sync that takes longer than the one before it (0.75 ms put `always` at 16
 * producers at 1.06 ms, docs/storage.md).
 */
export const INLINE_BUDGET_MS = 0.5;

/** Where a sync expected to take some time runs (placeSync). */
export type SyncPlace = 'inline' | 'next-turn' | 'pool';

/** Milliseconds on a monotonic clock (loopClockMs). */
export type LoopClock = () => number;

let clock: LoopClock = () => performance.now();
/** When the loop was first held by an inline sync in this turn; -1 once the loop turned. */
let heldSinceMs = -1;
/** Syncs waiting for the next turn, each asking again where it runs when that turn comes. */
let waiting: Array<() => void> = [];

function holdFrom(nowMs: number): void {
  heldSinceMs = nowMs;
  // Runs in the check phase of this turn: the loop got to its other callbacks since.
  setImmediate(loopTurned);
}

function loopTurned(): void {
  heldSinceMs = -1;
  // Queued from the check phase, runWaiting runs in the next turn's, after the loop polled for
  // I/O and ran its timers: queued beside loopTurned, it would run in this check phase, holding
  // the loop for a second budget with nothing run in between.
  if (waiting.length > 0) setImmediate(runWaiting);
}

function runWaiting(): void {
  const attempts = waiting;
  waiting = [];
  for (const attempt of attempts) attempt();
}

/**
 * Where a sync expected to take `expectedMs` runs: `inline` now, within the budget of this turn
 * (the first asking in a turn starts the turn's count); `next-turn` when this turn's budget is
 * spent; `pool` when it would not fit a whole turn's budget (a slow device, or a sync not yet
 * measured).
 */
export function placeSync(expectedMs: number): SyncPlace {
  if (expectedMs > INLINE_BUDGET_MS) return 'pool';
  const nowMs = clock();
  if (heldSinceMs < 0) holdFrom(nowMs);
  return nowMs - heldSinceMs + expectedMs <= INLINE_BUDGET_MS ? 'inline' : 'next-turn';
}

/**
 * Runs `attempt` in the loop's next turn, after its poll for I/O: for a sync placeSync answered
 * `next-turn`, which asks again then (another log's sync may have taken that turn's budget).
 */
export function inNextTurn(attempt: () => void): void {
  assert(heldSinceMs >= 0, 'a sync waits for the next turn only when this one is held');
  waiting.push(attempt);
}

/** The clock the budget and the syncs' lengths are read on: `performance.now` but in a replay. */
export function loopClockMs(): number {
  return clock();
}

/**
 * Reads the budget and the syncs' lengths on `replacement` until the returned function restores
 * the clock before it (`performance.now`): the crash loop's simulated time, where a sync's length
 * is drawn from the seed and `adaptive` then places each sync the same way in every replay. Each
 * switch starts the turn's count afresh, so no hold read on one clock is compared with the other.
 */
export function useLoopClock(replacement: LoopClock): () => void {
  const previous = clock;
  switchClock(replacement);
  return () => switchClock(previous);
}

function switchClock(next: LoopClock): void {
  clock = next;
  heldSinceMs = -1;
}
