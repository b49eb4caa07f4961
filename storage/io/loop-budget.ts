/**
 * How long this thread's event loop has been held, for syncMode `adaptive` (durability.ts): an
 * inline fdatasync may run only while the syncs before it in the same turn of the loop, and the
 * one it expects to take, stay within the budget. One per thread, not per log: the loop is the
 * thread's, so a process with many logs still holds it for one budget a turn.
 */

/**
 * Half the 1 ms event-loop delay the lab holds `always` and `group` to (bench event-loop): the
 * rest is for a sync that takes longer than the one before it (0.75 ms put `always` at 16
 * producers at 1.06 ms, docs/storage.md).
 */
export const INLINE_BUDGET_MS = 0.5;

/** When the loop was first held by an inline sync in this turn; -1 once the loop turned. */
let heldSinceMs = -1;

function loopTurned(): void {
  heldSinceMs = -1;
}

/**
 * Whether a sync expected to take `expectedMs` may run on the event loop now, within the budget
 * of this turn; the first asking in a turn starts the turn's count.
 */
export function inlineSyncFits(expectedMs: number): boolean {
  const nowMs = performance.now();
  if (heldSinceMs < 0) {
    heldSinceMs = nowMs;
    // Runs in the check phase of this turn: the loop got to its other callbacks since.
    setImmediate(loopTurned);
  }
  return nowMs - heldSinceMs + expectedMs <= INLINE_BUDGET_MS;
}
