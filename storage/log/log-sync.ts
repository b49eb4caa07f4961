/**
 * How a log's data becomes durable (log.ts): the durability engine's syncs, the sync of the
 * segment each roll seals, recovery points, and the fence's cut back to what the log can vouch
 * for.
 *
 * After any write or sync fails the log is fenced: every later append throws LOG_FENCED until the
 * log is reopened, because after a failed fsync the kernel may have dropped the dirty pages while
 * the file still looks fine (PostgreSQL's fsyncgate): retrying and pretending is how acknowledged
 * data gets lost. The fence also cuts the active segment back to what it can vouch for: after a
 * failed write, to where that write began (no partial record stays behind); after a failed sync,
 * to where the last successful sync ended. The kernel marks the pages of a failed sync clean
 * while still showing their data, and no later fdatasync writes them again, so served or
 * recovered they would be data that looks durable and is not. Reopening recovers from the files.
 */
import { ignoreFailure } from '../errors.js';
import { DurabilityEngine, type FailedCall, type SyncPlan } from '../io/durability-engine.js';
import type { LogConfig } from './log-config.js';
import {
  type RecoveryPoint,
  sealingUnder,
  writeRecoveryPoint,
} from '../segments/recovery-point.js';
import type { Segment } from './segment.js';
import {
  type SegmentList,
  type SyncedPoint as ListSyncedPoint,
  closeSegments,
  deleteSegmentsDurably,
} from '../segments/segment-list.js';
import { asOffset, asPosition } from '../units.js';

/** What a LogSync needs of the log it serves. */
export interface SyncedLog {
  readonly dir: string;
  readonly config: LogConfig;
  /** The log's segments, oldest first: a roll adds, a fence removes. */
  readonly segments: SegmentList<Segment>;
  /** Writes the records held back for the group's sync. */
  writePending(): void;
  /** Drops the records held back: never written, never acknowledged. */
  dropPending(): void;
  /** The segment a roll starts at `baseOffset` (the spare or a new file). */
  newSegment(baseOffset: number): Segment;
  isClosed(): boolean;
}

/** How far the active segment is known to be on the device: the engine's synced point. */
type SyncedPoint = ListSyncedPoint<Segment>;

/**
 * Under `none`, the fdatasync of the segment a roll sealed, running on the thread pool (see
 * rollIfFull). `done` once it, or a blocking sync that stood in for it, made the segment durable.
 */
interface RollSync {
  readonly sealed: Segment;
  readonly next: Segment;
  promise: Promise<void>;
  done: boolean;
}

/** One promise that settles when every one given has; null when none is given. */
function settled(
  promises: ReadonlyArray<Promise<unknown> | null | undefined>,
): Promise<unknown> | null {
  const pending = promises.filter((promise) => promise != null);
  return pending.length === 0 ? null : Promise.allSettled(pending);
}

/** A segment's start: the point a roll makes, or a fence goes back to. */
function startOf(segment: Segment): SyncedPoint {
  return { segment, positionBytes: asPosition(0), nextOffset: asOffset(segment.baseOffset) };
}

export class LogSync {
  /** Owns the policy, the fence and the synced point; opening synced what is in the files. */
  readonly engine: DurabilityEngine<SyncedPoint>;
  readonly #log: SyncedLog;
  #bytesSinceRecoveryPoint = 0;
  #rollSync: RollSync | null = null;
  /** Where the engine's latest sync started from: what it proves nothing beyond until it ends. */
  #syncStartedFrom: SyncedPoint;
  /** The point a roll made while a thread-pool sync ran could not save yet (#syncForRoll). */
  #pointAfterSync: SyncedPoint | null = null;
  /** The recovery point on the device: opening's, then the last this log saved. */
  #saved: RecoveryPoint | null;

  /** `savedPoint`: the recovery point opening left on the device (LoadedLog). */
  constructor(log: SyncedLog, savedPoint: RecoveryPoint | null) {
    this.#log = log;
    this.engine = new DurabilityEngine<SyncedPoint>(
      { ...log.config, subject: `the log in ${log.dir}`, fencedCode: 'LOG_FENCED' },
      this.#syncedPointOf(this.#active()),
      this.#active().nextOffset,
    );
    this.#syncStartedFrom = this.engine.synced;
    this.#saved = savedPoint;
    this.engine.attach({
      beforeSync: () => this.#beforeSync(),
      onFence: (call, synced) => this.#cutBack(call, synced),
      afterSync: () => this.#afterSync(),
    });
  }

  #active(): Segment {
    return this.#log.segments.active;
  }

  /** `sizeBytes` were written to the active segment: toward the next recovery point. */
  wrote(sizeBytes: number): void {
    this.#bytesSinceRecoveryPoint += sizeBytes;
  }

  /**
   * Retention removes `segment`: a roll's background sync of it is no longer needed. Returns
   * what still holds its file open (that sync, the engine's sync in flight), null when nothing.
   */
  releaseForRemoval(segment: Segment): Promise<unknown> | null {
    const sync = this.#rollSync?.sealed === segment ? this.#rollSync : null;
    if (sync !== null) sync.done = true;
    return settled([sync?.promise, this.engine.inFlight]);
  }

  /** What closing the files waits for: the engine's sync and a roll's background sync. */
  inUse(): Promise<unknown> | null {
    return settled([this.engine.inFlight, this.#rollSync?.promise]);
  }

  /** The close's last point is saved: the engine acknowledges everything up to the end. */
  close(): void {
    this.engine.close(this.#syncedPointOf(this.#active()), this.#active().nextOffset);
  }

  /** The engine is about to sync: the group's records are written, and the sync covers them. */
  #beforeSync(): SyncPlan<SyncedPoint> {
    this.#log.writePending();
    this.#syncStartedFrom = this.engine.synced;
    const active = this.#active();
    return {
      handle: active.handle,
      point: this.#syncedPointOf(active),
      endTicket: active.nextOffset,
    };
  }

  /**
   * After a sync of the engine's: a recovery point once enough bytes were synced since the last,
   * or the one a roll made while it ran left to save (#syncForRoll).
   */
  #afterSync(): void {
    const afterRoll = this.#pointAfterSync;
    this.#pointAfterSync = null;
    const due = this.#bytesSinceRecoveryPoint >= this.#log.config.recoveryPointIntervalBytes;
    if (!due && (afterRoll === null || !this.#log.segments.all.includes(afterRoll.segment))) return;
    try {
      this.engine.guard('sync', () => {
        if (due) this.saveRecoveryPoint();
        else this.#writeRecoveryPointAt(afterRoll!);
      });
    } catch {
      // Fenced: the appends waiting learn it from the engine.
    }
  }

  /**
   * Every finished segment is synced, and a recovery point saved at the start of the next one
   * (NSQ syncs at each new file; Kafka flushes up to the new segment). Under `always` and `group`
   * before the next segment is created. Under `none`, where nothing waits for the disk, on the
   * thread pool (as Kafka does): a roll waits only when the previous roll's sync has not finished
   * (a disk slower than the appends), so at most the last sealed segment is not yet durable. A
   * crash can then tear only what follows the recovery point — the active segment, and under
   * `none` the one sealed just before it — and opening tells a removed or cut segment anywhere
   * else (a broken chain it refuses) from a crash (a tail it cuts).
   */
  rollIfFull(nextRecordBytes: number): void {
    const active = this.#active();
    if (
      active.sizeBytes === 0 ||
      active.writeStartFor(nextRecordBytes) + nextRecordBytes <= this.#log.config.segmentBytes
    )
      return;
    this.#roll(active);
  }

  /**
   * Apart from rollIfFull's check, which runs on every append: the closure below captures
   * `active`, and V8 allocates the captured variables' context on entry to the function that
   * declares them, before any early return (56 bytes per append, measured).
   */
  #roll(active: Segment): void {
    const background = !this.engine.syncsBeforeAcknowledging;
    this.engine.guard('sync', () => {
      this.#finishRollSync();
      active.trim();
      const sealingAt = background ? this.#sealingPointToSave() : this.#syncForRoll(active);
      // Said before the next segment exists: a crash may now leave this one short of it.
      if (sealingAt !== null) this.#writeRecoveryPointAt(sealingAt, true);
      active.seal();
      const next = this.#log.newSegment(active.nextOffset);
      this.#log.segments.rolled(next);
      // The new names are durable before a point names them: a point naming a missing segment
      // then always means a segment removed from outside, which opening refuses.
      this.#log.config.io.fsyncDir(this.#log.dir);
      const start = startOf(next);
      if (background) {
        this.#rollSync = this.#startRollSync(active, next);
        return;
      }
      this.#vouch(start);
      if (sealingAt === null) this.#writeRecoveryPointAt(start);
      else this.#pointAfterSync = start;
    });
  }

  /**
   * Under `none`, the point a roll saves before it seals without waiting: the synced point, with
   * the sealing flag. Null when the point saved last is that one already, as it is once each
   * roll's sync ended and after opening (every point saved under `none`, opening's too, carries
   * the flag); not after a close under another policy. Saving it again cost a third of a roll's
   * time on the event loop: an fdatasync, a rename and a directory fsync, about 1.5 ms here.
   */
  #sealingPointToSave(): SyncedPoint | null {
    // Retention may have removed the segment of the synced point while its roll's sync ran: a
    // point naming it would leave recovery no point to start from, and this roll unflagged.
    const synced = this.#syncedPointStillHere(this.engine.synced);
    const saved = this.#saved;
    const alreadySaved =
      saved?.sealing === true &&
      saved.segmentBaseOffset === synced.segment.baseOffset &&
      saved.nextOffset === synced.nextOffset;
    return alreadySaved ? null : synced;
  }

  /**
   * Syncs the segment a roll seals under `always` and `group`. A sync of the engine's still on
   * the thread pool may yet fail on pages of this segment that this sync, succeeding, did not
   * write: the failed one left them marked clean, and the kernel reports its error once. Until
   * its outcome is known, nothing past the point it started from is proven, so that is the point
   * the roll saves, sealing (as under `none`), and the next segment's start is saved once the
   * sync succeeds (#afterSync); when it fails, the fence cuts back to the same point. Returns
   * that point; null when no sync is in flight. Without it a power cut before the failure came
   * back left a sealed segment that the chain check trusts with records that never reached the
   * device (crash-loop seed 2088, log under group).
   */
  #syncForRoll(active: Segment): SyncedPoint | null {
    active.sync();
    this.#vouch(this.#syncedPointOf(active));
    return this.engine.inFlight === null ? null : this.#syncStartedFrom;
  }

  #startRollSync(sealed: Segment, next: Segment): RollSync {
    const sync: RollSync = { sealed, next, promise: Promise.resolve(), done: false };
    sync.promise = this.#log.config.io.fdatasyncAsync(sealed.handle).then(
      () => this.#afterRollSync(sync, null),
      (error: unknown) => this.#afterRollSync(sync, error),
    );
    return sync;
  }

  /** The background sync settled; a roll, flush or close may have stood in for it already. */
  #afterRollSync(sync: RollSync, error: unknown): void {
    if (this.#rollSync === sync) this.#rollSync = null;
    if (sync.done || this.engine.fenced !== null || this.#log.isClosed()) return;
    try {
      if (error !== null) throw error;
      this.#rollSynced(sync);
    } catch (failure) {
      this.engine.fenceOnIoError(failure, 'sync');
    }
  }

  /**
   * Makes the last roll's sealed segment durable now, on this thread, if it is not yet. Without a
   * point: each caller (a roll, a flush, a close) saves one of its own next.
   */
  #finishRollSync(): void {
    const sync = this.#rollSync;
    if (sync !== null && !sync.done) this.#rollSynced(sync, false);
  }

  /**
   * The sealed segment's data is synced: its indexes follow, and the engine may vouch for the
   * next segment's start; a point there unless the caller saves one of its own next.
   */
  #rollSynced(sync: RollSync, savePoint = true): void {
    sync.done = true;
    sync.sealed.sync();
    const next = startOf(sync.next);
    if (
      !this.#log.segments.all.includes(sync.next) ||
      this.engine.synced.segment.baseOffset >= next.segment.baseOffset
    )
      return;
    this.#vouch(next);
    if (savePoint) this.#writeRecoveryPointAt(next);
  }

  /** Syncs the active segment, then records that everything up to here is on the device. */
  saveRecoveryPoint(trim = false): void {
    this.#finishRollSync();
    const active = this.#active();
    if (trim) active.trim();
    active.sync();
    // The data is on the device now (rolls made the names of new segments durable): a recovery
    // point that then fails to save must not make the fence cut synced records, which a
    // recovery point whose rename did reach the device may already vouch for.
    this.#vouch(this.#syncedPointOf(active));
    this.#writeRecoveryPoint(active);
  }

  #vouch(point: SyncedPoint): void {
    this.engine.vouch(point, point.nextOffset);
  }

  /** Also makes new segment files durable: it fsyncs the directory that holds them. */
  #writeRecoveryPoint(active: Segment): void {
    this.#pointAfterSync = null;
    this.#writeRecoveryPointAt(this.#syncedPointOf(active));
  }

  /**
   * `sealing`: the point's segment may be sealed without waiting for its sync (rollIfFull). Under
   * `none` every point says so, where a roll would otherwise save the same point again to say it.
   */
  #writeRecoveryPointAt(point: SyncedPoint, sealing = false): void {
    const saved = {
      segmentBaseOffset: point.segment.baseOffset,
      positionBytes: point.positionBytes,
      nextOffset: point.nextOffset,
      sealing: sealing || sealingUnder(this.engine.policy),
    };
    writeRecoveryPoint(this.#log.config.io, this.#log.dir, saved);
    this.#saved = saved;
    this.#bytesSinceRecoveryPoint = 0;
  }

  /**
   * See the top of this file: what a failed write or sync leaves is not served. The last good
   * sync can lie in an older segment (a roll made while a thread-pool sync that then failed ran):
   * the segments after it go, with their files, and it becomes the active segment again. The
   * steps keep the segment chain whole whatever a power cut keeps of them: the recovery point
   * moves back first (recovery then treats everything after it as unsynced), the later segments
   * are removed newest first, each durably before the next, and only then is the kept segment
   * cut.
   */
  #cutBack(call: FailedCall, synced: SyncedPoint): void {
    // Never written, never acknowledged: the fence drops them with the rest.
    this.#log.dropPending();
    const keep =
      call === 'sync' ? this.#syncedPointStillHere(synced) : this.#syncedPointOf(this.#active());
    const removed: Segment[] = [];
    while (this.#active() !== keep.segment) removed.push(this.#log.segments.takeActive());
    // Best effort throughout: the log is fenced either way, and reopening recovers from the files.
    try {
      // A roll or flush during a failed thread-pool sync may have saved a point past `keep`.
      // Files of later segments may outlive this fence (being removed below, or left by a roll
      // that failed part-way): `keep`'s segment may end before the next one begins.
      if (call === 'sync') this.#writeRecoveryPointAt(keep, true);
    } catch {
      // Without a point moved back, removing segments could leave one naming a missing segment.
      closeSegments(removed);
      return;
    }
    // Newest first, each durably before the next (deleteSegmentsDurably); on a failure the rest
    // stay, older than the one that failed.
    ignoreFailure(() => deleteSegmentsDurably(this.#log.config.io, this.#log.dir, removed));
    ignoreFailure(() => {
      keep.segment.activate(keep.positionBytes, keep.nextOffset);
      // A write that failed part-way left bytes past the end that activate does not know of.
      this.#log.config.io.truncate(keep.segment.handle, keep.positionBytes);
    });
  }

  /** The synced point, or the start of the log when retention removed the segment it was in. */
  #syncedPointStillHere(synced: SyncedPoint): SyncedPoint {
    if (this.#log.segments.all.includes(synced.segment)) return synced;
    return startOf(this.#log.segments.oldest);
  }

  #syncedPointOf(segment: Segment): SyncedPoint {
    return {
      segment,
      positionBytes: asPosition(segment.sizeBytes),
      nextOffset: asOffset(segment.nextOffset),
    };
  }
}
