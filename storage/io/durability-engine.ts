/**
 * The durability engine: the one place that knows the policies. Each log, batched log and slot
 * file has one; the designs differ only in layout and in which writes they ask it to cover.
 *
 * A design writes into the page cache and reports each write with `wrote(endTicket, sizeBytes)`
 * (a ticket is the design's own count: the log's next offset, the slot file's write number);
 * `acknowledged(ticket)` resolves once the policy allows answering OK for it:
 *
 * - `none`: at once; the engine never syncs on its own.
 * - `always`: one fdatasync per write, in order (what `fdatasync=1` in fio and
 *   `flush.messages=1` in Kafka do); a write is acknowledged by the first sync that started
 *   after it was written.
 * - `group`: leader/follower, as in PostgreSQL's and RocksDB's write paths. With no sync running,
 *   one starts at the end of this event-loop turn, so every producer ready in this turn joins it
 *   (after `maxDelayMs` only when the caller asked for a delay). Writes made while it runs gather
 *   and are synced, when it ends, together with the writes of the producers it released (at the
 *   end of that turn). `maxBytes` gathered start one at once.
 *
 * Syncs run on libuv's thread pool (`thread-pool`) so the event loop never waits for the device;
 * `inline` runs them on the event loop, which costs the loop but saves two thread hand-offs per
 * sync (docs/storage.md has the measurement); `adaptive`, the default, runs each inline while it
 * fits the loop's budget (loop-budget.ts), in the loop's next turn when this turn's is spent, and
 * on the pool when it would not fit a turn or covers several writes.
 *
 * The synced point (`synced`) is what the last successful sync vouches for, in the design's own
 * terms (P). Before each sync the engine asks the design, through `beforeSync`, to write what it
 * holds back and to say what the sync will cover: the only call from the engine into a design
 * besides the fence's notice.
 *
 * The fence: after any write or sync fails, every later write is refused until the design is
 * reopened, because after a failed fsync the kernel may have dropped the dirty pages while the file
 * still looks fine (PostgreSQL's fsyncgate): retrying and pretending is how acknowledged data
 * gets lost. A sync that starts after a failed one succeeds on the pages the failed one left
 * marked clean, so nothing after the synced point is ever vouched for again; the design is told
 * (`onFence`) so it can cut back to the synced point.
 */
import { StorageError, assert } from '../errors.js';
import type { FileHandle, FileIO } from './file-io.js';
import { type DurabilityPolicy, type SyncMode, syncsBeforeAcknowledging } from './durability.js';
import { type SyncPlace, inNextTurn, loopClockMs, placeSync } from './loop-budget.js';

/** What a sync started now will cover. */
export interface SyncPlan<P> {
  readonly handle: FileHandle;
  /** What the sync vouches for when it succeeds. */
  readonly point: P;
  /** Every ticket below this is covered. */
  readonly endTicket: number;
}

/** Which kind of call failed: what the design cuts away depends on it. */
export type FailedCall = 'write' | 'sync';

export interface DurableDesign<P> {
  /** Writes what waits in memory for the next sync, and says what a sync started now covers. */
  beforeSync(): SyncPlan<P>;
  /** The engine fenced after a failed `call`; cut back to what `synced` vouches for. */
  onFence(call: FailedCall, synced: P): void;
  /** A sync of the engine's own succeeded (the design may save a recovery point now and then). */
  afterSync?(point: P): void;
}

/** A log's or queue's config carries these fields under these names: it can be passed whole. */
export interface EngineOptions {
  readonly durability: DurabilityPolicy;
  readonly syncMode: SyncMode;
  readonly groupMaxDelayMs: number;
  readonly groupMaxBytes: number;
  readonly io: FileIO;
  /** How errors name the design: "the log in /data/q". */
  readonly subject: string;
  readonly fencedCode: 'LOG_FENCED' | 'QUEUE_FENCED';
}

interface Waiter {
  readonly ticket: number;
  readonly resolve: (ticket: number) => void;
  readonly reject: (error: Error) => void;
}

const COMPACT_WAITERS_AFTER = 1024;
/** What's left of a sync's length in `adaptive`'s estimate one sync later (#timed). */
const SYNC_ESTIMATE_FADE = 0.9;

export class DurabilityEngine<P> {
  readonly policy: DurabilityPolicy;
  readonly #options: EngineOptions;
  #design: DurableDesign<P> | null = null;
  #synced: P;
  /** The ticket `#synced` ends at: the point only ever moves forward. */
  #syncedEnd: number;
  /** Every ticket below this is durable and may be acknowledged. */
  #durableEnd: number;
  readonly #waiters: Waiter[] = [];
  #firstWaiter = 0;
  /**
   * `always`: the end tickets of writes whose own sync has not started yet, oldest first. Sync
   * number j acknowledges write number j only, though it covers every write made before it
   * started: each append waits for a sync of its own, as the policy promises.
   */
  readonly #owedEnds: number[] = [];
  /** `group`: bytes written since the last sync started. */
  #gatheredBytes = 0;
  #timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  /** A sync queued as a microtask (group, thread pool, no delay): cleared to call it off. */
  #microtaskArmed = false;
  /**
   * The sync running on the thread pool now, or waiting for the loop's next turn (`adaptive`),
   * settling once its outcome is handled; null between syncs. Whoever closes the file it syncs
   * waits for it (closing under it fails it with EBADF).
   */
  #inFlight: Promise<void> | null = null;
  /** Vouched for by another path while a sync was in flight: released when that one succeeds. */
  #deferredEnd = 0;
  #fence: StorageError | null = null;
  #closed = false;
  /** Callers of `exclusive` waiting or running: no sync of the engine's starts meanwhile. */
  #exclusive = 0;
  /** `adaptive`'s guess at how long the next sync takes (#timed); unknown before the first. */
  #syncEstimateMs = Number.POSITIVE_INFINITY;
  /** Writes reported since the last sync started: what the next one covers. */
  #writesSinceSync = 0;
  /** When the running sync started: after its wait for a turn, so #timed sees the device. */
  #syncStartedMs = 0;

  constructor(options: EngineOptions, synced: P, durableEnd: number) {
    assert(
      options.groupMaxDelayMs >= 0 && options.groupMaxBytes > 0,
      'group commit bounds are positive',
    );
    this.policy = options.durability;
    this.#options = options;
    this.#synced = synced;
    this.#syncedEnd = durableEnd;
    this.#durableEnd = durableEnd;
  }

  /** Set once, by the design that owns this engine, before its first write. */
  attach(design: DurableDesign<P>): void {
    assert(this.#design === null, 'an engine serves one design');
    this.#design = design;
  }

  /** Whether an acknowledgement waits for an fdatasync (`always`, `group`). */
  get syncsBeforeAcknowledging(): boolean {
    return syncsBeforeAcknowledging(this.policy);
  }

  /**
   * Whether a design may hold writes in memory until the next sync, to write them with one call
   * (`group`, as WAL group commit does): acknowledgements wait for that sync anyway.
   */
  get gathersWrites(): boolean {
    return this.policy === 'group';
  }

  get synced(): P {
    return this.#synced;
  }

  get fenced(): StorageError | null {
    return this.#fence;
  }

  /** The sync in flight (on the pool or waiting for a turn), or null (see #inFlight). */
  get inFlight(): Promise<void> | null {
    return this.#inFlight;
  }

  /**
   * Runs `action` (a flush, a close: syncs of the design's own) once no sync of the engine's is in
   * flight (on the pool or waiting for a turn), starting none meanwhile. A sync in flight may yet
   * fail, leaving the pages it covered marked clean: a sync of the same file made meanwhile would
   * succeed without writing them and vouch for what is not on the device. Waiting for it, and
   * holding the next one back so a busy log cannot starve the caller, closes that race.
   */
  async exclusive<T>(action: () => T): Promise<T> {
    this.#exclusive++;
    try {
      while (this.#inFlight !== null) await this.#inFlight;
      return action();
    } finally {
      this.#exclusive--;
      if (this.#exclusive === 0) this.#startNext();
    }
  }

  /** Throws the fence when there is one. */
  checkNotFenced(): void {
    if (this.#fence !== null) throw this.#fence;
  }

  /**
   * A write ending at `endTicket` reached the page cache (or, under `group`, waits in the design's
   * memory for the next sync). Inline, a sync that fails throws here, after fencing.
   */
  wrote(endTicket: number, sizeBytes: number): void {
    if (this.policy === 'none') return;
    assert(endTicket >= this.#durableEnd, 'tickets only grow');
    this.#writesSinceSync++;
    if (this.policy === 'always') {
      this.#owedEnds.push(endTicket);
      this.#startSync();
    } else {
      this.#gatheredBytes += sizeBytes;
      if (this.#gatheredBytes >= this.#options.groupMaxBytes) this.#startSyncQuietly();
      else this.#arm();
    }
  }

  /**
   * Resolves with `ticket` once the policy allows acknowledging it (a caller can return the
   * promise as its own, with no async function around it); rejects with the fence.
   */
  acknowledged(ticket: number): Promise<number> {
    if (this.#fence !== null) return Promise.reject(this.#fence);
    if (this.policy === 'none' || ticket < this.#durableEnd) return Promise.resolve(ticket);
    return new Promise((resolve, reject) => this.#enqueue({ ticket, resolve, reject }));
  }

  /**
   * Runs a call that writes or syncs the design's files; an I/O failure fences before it is
   * rethrown. Rolls, flushes and closes sync through it and then `vouch` for what they synced.
   */
  guard<T>(call: FailedCall, action: () => T): T {
    try {
      return action();
    } catch (error) {
      this.fenceOnIoError(error, call);
      throw error;
    }
  }

  /** Fences when `error` is an I/O failure (not a refusal such as a record too large). */
  fenceOnIoError(error: unknown, call: FailedCall): void {
    if (error instanceof StorageError && (error.code === 'IO_ERROR' || error.code === 'SHORT_IO'))
      this.fence(error, call);
  }

  /**
   * Another path (a roll, a flush, a close) synced everything up to `point`. While a thread-pool
   * sync is in flight, its waiters are released only when it succeeds: it may yet fail, and a sync
   * after a failed one does not make durable what was written before it (Linux since 4.13 reports
   * the error once, then succeeds).
   */
  vouch(point: P, endTicket: number): void {
    this.#moveSynced(point, endTicket);
    if (this.#inFlight !== null) {
      this.#deferredEnd = Math.max(this.#deferredEnd, endTicket);
      return;
    }
    this.#advance(endTicket);
  }

  /** Fences: every waiter, present and future, gets the error; the design cuts back. */
  fence(cause: Error, call: FailedCall): void {
    if (this.#fence !== null) return;
    this.#fence = new StorageError(
      this.#options.fencedCode,
      `${this.#options.subject} stopped accepting writes after an I/O failure (${cause.message}); ` +
        'fix the disk, then reopen it: recovery keeps only what reached the device',
      { cause },
    );
    this.#cancelTimer();
    for (let i = this.#firstWaiter; i < this.#waiters.length; i++)
      this.#waiters[i]!.reject(this.#fence);
    this.#waiters.length = 0;
    this.#firstWaiter = 0;
    // A sync that fails after close has nothing to cut: the files may be another writer's by now.
    if (!this.#closed) this.#design?.onFence(call, this.#synced);
  }

  /** Stops the timer; the design has synced everything up to `point` (a clean close). */
  close(point: P, endTicket: number): void {
    this.#cancelTimer();
    this.vouch(point, endTicket);
    this.#closed = true;
  }

  /** Marks the engine closed without a sync (a failed or fenced close). */
  abandon(): void {
    this.#cancelTimer();
    this.#closed = true;
  }

  /**
   * With no sync running, starts one soon: after the delay the caller asked for; `afterThisTurn`
   * (a sync just ended, #startNext), at the end of this event-loop turn; with none, on the
   * thread pool, once the microtasks queued now have run (every producer a completed sync released
   * appends in them, so they join, and a lone producer waits no event-loop turn: measured, that
   * turn made group commit 8% slower than always at one producer); inline, at the end of this
   * event-loop turn, since the sync then holds the loop anyway and may as well cover more.
   */
  #arm(afterThisTurn = false): void {
    if (this.#timer !== null || this.#microtaskArmed || this.#inFlight !== null) return;
    const delayMs = this.#options.groupMaxDelayMs;
    if (delayMs >= 1) this.#timer = setTimeout(this.#fire, delayMs);
    else if (this.#options.syncMode === 'inline' || afterThisTurn)
      this.#timer = setImmediate(this.#fire);
    else {
      this.#microtaskArmed = true;
      queueMicrotask(this.#fireArmedMicrotask);
    }
  }

  // Made once, not per #arm: under tsx (esbuild's keepNames) every named closure made costs an
  // Object.defineProperty of its name, about 0.4 µs, and the lab's benches run under tsx.
  readonly #fire = (): void => {
    this.#timer = null;
    this.#startSyncQuietly();
  };

  readonly #fireArmedMicrotask = (): void => {
    if (!this.#microtaskArmed) return;
    this.#microtaskArmed = false;
    this.#startSyncQuietly();
  };

  #cancelTimer(): void {
    this.#microtaskArmed = false;
    if (this.#timer === null) return;
    if (this.#options.groupMaxDelayMs < 1) clearImmediate(this.#timer as NodeJS.Immediate);
    else clearTimeout(this.#timer as NodeJS.Timeout);
    this.#timer = null;
  }

  /** Starts the next sync unless one runs (its end starts the next) or the engine is fenced. */
  #startSync(): void {
    if (this.#inFlight !== null || this.#fence !== null || this.#closed || this.#exclusive > 0)
      return;
    this.#cancelTimer();
    const acknowledgedEnd = this.#nextAcknowledgedEnd();
    if (acknowledgedEnd === null) return;
    this.#gatheredBytes = 0;
    const writes = this.#writesSinceSync;
    this.#writesSinceSync = 0;
    const plan = this.guard('write', () => this.#design!.beforeSync());
    const ackEnd = acknowledgedEnd === 'all' ? plan.endTicket : acknowledgedEnd;
    const place = this.#placeOf(writes);
    if (place === 'inline') {
      this.guard('sync', () => this.#syncHere(plan.handle));
      this.#timed();
      this.#recordSynced(plan, ackEnd);
      // Writes owed a sync while a thread-pool one ran (`adaptive`) each get theirs now.
      this.#startNext();
      return;
    }
    const before = this.#synced;
    const beforeEnd = this.#syncedEnd;
    const sync = place === 'pool' ? this.#syncOnPool(plan.handle) : this.#syncNextTurn(plan.handle);
    this.#inFlight = sync.then(
      () => {
        this.#inFlight = null;
        this.#timed();
        this.#recordSynced(plan, ackEnd);
        this.#startNext();
      },
      (error: Error) => {
        this.#inFlight = null;
        // Nothing vouched for since this sync started counts: cut back to before it.
        this.#synced = before;
        this.#syncedEnd = beforeEnd;
        this.fence(error, 'sync');
      },
    );
  }

  /**
   * `adaptive`: inline only a sync that covers one write at most (one producer waits on it, so
   * the hand-off is a large share of its wait; a sync many writes share pays it once and keeps
   * the loop free for them), and only within the loop's budget (loop-budget.ts); when this turn's
   * budget is spent, in the next turn, where it is still cheaper than the hand-off.
   */
  #placeOf(writes: number): SyncPlace {
    const mode = this.#options.syncMode;
    if (mode !== 'adaptive') return mode === 'inline' ? 'inline' : 'pool';
    return writes <= 1 ? placeSync(this.#syncEstimateMs) : 'pool';
  }

  /** Syncs on the event loop, timed for #timed. */
  #syncHere(handle: FileHandle): void {
    this.#syncStartedMs = loopClockMs();
    this.#options.io.fdatasync(handle);
  }

  #syncOnPool(handle: FileHandle): Promise<void> {
    this.#syncStartedMs = loopClockMs();
    return this.#options.io.fdatasyncAsync(handle);
  }

  /**
   * Syncs inline in the loop's next turn that has budget for it: meanwhile the loop runs its
   * timers and I/O as it would while a pool sync ran, and the sync pays no hand-off. Made once
   * per turn a log runs out of budget, so the closure costs nothing an append would feel.
   */
  #syncNextTurn(handle: FileHandle): Promise<void> {
    return new Promise((resolve, reject) => {
      const attempt = (): void => {
        // The estimate has not moved since this sync was placed: the answer is inline or wait.
        if (placeSync(this.#syncEstimateMs) === 'next-turn') {
          inNextTurn(attempt);
          return;
        }
        try {
          this.#syncHere(handle);
          resolve();
        } catch (error) {
          reject(error);
        }
      };
      inNextTurn(attempt);
    });
  }

  /**
   * The sync started at #syncStartedMs ended (a pool's hand-off included). The estimate is the
   * longest recent sync, fading by a tenth a sync: a device that stalls (behind the write-back of
   * other files' data, one inline sync in a run of the event-loop bench took 20 ms) is synced on
   * the pool for the 20-odd syncs after a stall, not inline again at the next fast one.
   */
  #timed(): void {
    const tookMs = loopClockMs() - this.#syncStartedMs;
    const fading = this.#syncEstimateMs * SYNC_ESTIMATE_FADE;
    this.#syncEstimateMs = Number.isFinite(fading) ? Math.max(tookMs, fading) : tookMs;
  }

  /**
   * A thread-pool sync ended: what gathered meanwhile is synced together with what the producers
   * it released append next, at the end of this event-loop turn (after the delay, when the caller
   * asked for one). Started at once, the next sync would cover only the producers that appended
   * while this one ran, and those it released would wait for the one after: two cohorts taking
   * turns, about half the producers a sync (measured at 16 producers: 10.5 messages a sync
   * where 16 could share it, group 7.6x always instead of 10x).
   */
  #startNext(): void {
    if (this.#owedEnds.length > 0) this.#startSyncQuietly();
    else if (this.#gatheredBytes > 0) this.#arm(true);
  }

  /**
   * For syncs no caller waits on the call of (timers, the end of the previous sync, group's
   * byte bound): a failure reaches the waiters through the fence instead of being thrown.
   */
  #startSyncQuietly(): void {
    try {
      this.#startSync();
    } catch (error) {
      this.fence(error as Error, 'write');
    }
  }

  #moveSynced(point: P, endTicket: number): void {
    if (endTicket < this.#syncedEnd) return;
    this.#synced = point;
    this.#syncedEnd = endTicket;
  }

  /**
   * What the next sync acknowledges: under `always` the oldest write still owed a sync of its
   * own (skipping those a roll or flush made durable meanwhile; null when none is left), under
   * `group` everything it covers.
   */
  #nextAcknowledgedEnd(): number | 'all' | null {
    if (this.policy !== 'always') return 'all';
    while (this.#owedEnds.length > 0) {
      const end = this.#owedEnds.shift()!;
      if (end > this.#durableEnd) return end;
    }
    return null;
  }

  #recordSynced(plan: SyncPlan<P>, ackEnd: number): void {
    // A roll while the sync ran synced further and moved on: nothing to record but the release.
    if (plan.endTicket > this.#syncedEnd) this.#moveSynced(plan.point, plan.endTicket);
    this.#advance(Math.max(ackEnd, this.#deferredEnd));
    this.#deferredEnd = 0;
    if (this.#fence === null && !this.#closed) this.#design!.afterSync?.(plan.point);
  }

  #advance(endTicket: number): void {
    if (endTicket <= this.#durableEnd) return;
    this.#durableEnd = endTicket;
    this.#releaseWaiters();
  }

  /** Keeps the queue in ticket order: an older ticket asked for late goes before newer ones. */
  #enqueue(waiter: Waiter): void {
    const waiters = this.#waiters;
    let at = waiters.length;
    while (at > this.#firstWaiter && waiters[at - 1]!.ticket > waiter.ticket) at--;
    if (at === waiters.length) waiters.push(waiter);
    else waiters.splice(at, 0, waiter);
  }

  #releaseWaiters(): void {
    while (this.#firstWaiter < this.#waiters.length) {
      const waiter = this.#waiters[this.#firstWaiter]!;
      if (waiter.ticket >= this.#durableEnd) break;
      this.#firstWaiter++;
      waiter.resolve(waiter.ticket);
    }
    if (this.#firstWaiter > COMPACT_WAITERS_AFTER && this.#firstWaiter * 2 > this.#waiters.length) {
      this.#waiters.splice(0, this.#firstWaiter);
      this.#firstWaiter = 0;
    }
  }
}
