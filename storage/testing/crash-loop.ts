/**
 * The deterministic crash loop (issue 5): one iteration is one seed. It opens a target (the raw
 * Log, LogQueue or SlotFileQueue) on a SimDisk under one durability policy, runs random
 * operations against a model, and ends each round with a power cut — armed at a random FileIO
 * call, or a crash() between operations — sometimes after an injected I/O fault, sometimes with
 * the power failing again during recovery. After every reopen the model checks what survived
 * (crash-model.ts). Everything, the target's choices and the disk's, follows from the seed:
 * `runCrashIteration({ seed, target, durability })` replays a failing iteration exactly.
 *
 * Outside events (crash-outside-events.ts, issue 14) come on top, from their own stream seeded
 * from the same seed: a second writer while the target is open, and, between a crash and the
 * reopen, a removed or renamed segment (refused, then put back), bytes appended to a sealed
 * segment, a recovery point moved to another record boundary.
 *
 * Segment reuse (log.ts) comes on top for half the iterations of the raw log, drawn from a
 * stream of its own too (crash-target.ts, ReuseProfile): a consumer that keeps up and frequent
 * retention, so rolls under `always` and `group` reuse the spare retention left, with bodies of
 * one length (older records in a reused file line up with the new ones) or of lengths that
 * change from round to round (they do not). Iterations that draw no profile run as before.
 *
 * Group commit runs with groupMaxDelayMs 0, the syncs inline, on the pool or placed by `adaptive`
 * on simulated time as the seed draws (TargetConfig.syncMode, sim-loop-clock.ts), and every
 * acknowledgement is awaited before the next operation, so the order of FileIO calls depends on
 * the seed only.
 *
 * Why this file is over 450 lines: one iteration's state (the disk, the model, the target, the
 * seeded streams, the counts) is what every step of the loop reads and moves; the targets, the
 * model and the outside events already have files of their own.
 */
import { type DurabilityPolicy, SYNC_MODES } from '../io/durability.js';
import { useLoopClock } from '../io/loop-budget.js';
import { isStorageError } from '../errors.js';
import type { Log } from '../log/log.js';
import { SimDisk, type SimFault } from '../sim/sim-disk.js';
import { SeededRandom } from '../sim/prng.js';
import { CrashModel } from './crash-model.js';
import { logDriver } from './crash-log-target.js';
import {
  OutsideEvents,
  type OutsideCounts,
  addOutsideCounts,
  emptyOutsideCounts,
  formatOutsideCounts,
} from './crash-outside-events.js';
import { logQueueDriver, slotFileDriver } from './crash-queue-target.js';
import { SimLoopClock } from './sim-loop-clock.js';
import {
  CRASH_DATA_DIR,
  CRASH_TARGETS,
  type CrashTargetName,
  ManualClock,
  type OpenTarget,
  type StepContext,
  type ReuseProfile,
  type TargetConfig,
  type TargetDriver,
  bodyMaxBytes,
  describeError as describe,
  isPowerCut,
} from './crash-target.js';

export { CRASH_TARGETS, type CrashTargetName } from './crash-target.js';

export interface CrashIterationOptions {
  readonly seed: number;
  readonly target: CrashTargetName;
  readonly durability: DurabilityPolicy;
}

/** Counts over one iteration or many. */
export interface CrashCounts {
  iterations: number;
  crashes: number;
  faultsInjected: number;
  /** Acknowledged, undeleted sends whose presence was checked after a reopen. */
  ackedChecked: number;
  /** …of which were not found (must stay 0 under `always` and `group`). */
  lost: number;
  /** The most acknowledged sends one crash lost. */
  lossWindowMsgs: number;
  /** Rolls that renamed retention's spare into place instead of a new file (segment reuse). */
  segmentsReused: number;
  /** Rolls that renamed a laid-out spare into place (spare-segment.ts). */
  segmentsLaidOut: number;
  /** Reopens whose cut removed an older segment's records behind a reused segment's tail. */
  recycledTailsCut: number;
  /** …of which with a torn record of the segment's own over those older records. */
  tornOverRecycled: number;
  /** Rounds of the raw log that wrote its records directly (direct-write.ts). */
  directWriteRounds: number;
  /** Outside events injected, by kind. */
  outside: OutsideCounts;
}

export interface CrashIterationResult {
  readonly options: CrashIterationOptions;
  readonly counts: CrashCounts;
  /** What went wrong, each line naming the seed so it can be replayed. */
  readonly violations: readonly string[];
}

const DRIVERS: Readonly<Record<CrashTargetName, TargetDriver>> = {
  log: logDriver,
  'log-queue': logQueueDriver,
  'slot-file': slotFileDriver,
};
const ALLOWED_ERROR_CODES = new Set(['IO_ERROR', 'SHORT_IO', 'LOG_FENCED', 'QUEUE_FENCED']);
const MAX_ROUNDS = 3;

export function emptyCounts(): CrashCounts {
  return {
    iterations: 0,
    crashes: 0,
    faultsInjected: 0,
    ackedChecked: 0,
    lost: 0,
    lossWindowMsgs: 0,
    segmentsReused: 0,
    segmentsLaidOut: 0,
    recycledTailsCut: 0,
    tornOverRecycled: 0,
    directWriteRounds: 0,
    outside: emptyOutsideCounts(),
  };
}

export function addCounts(total: CrashCounts, more: CrashCounts): void {
  total.iterations += more.iterations;
  total.crashes += more.crashes;
  total.faultsInjected += more.faultsInjected;
  total.ackedChecked += more.ackedChecked;
  total.lost += more.lost;
  total.lossWindowMsgs = Math.max(total.lossWindowMsgs, more.lossWindowMsgs);
  total.segmentsReused += more.segmentsReused;
  total.segmentsLaidOut += more.segmentsLaidOut;
  total.recycledTailsCut += more.recycledTailsCut;
  total.directWriteRounds += more.directWriteRounds;
  total.tornOverRecycled += more.tornOverRecycled;
  addOutsideCounts(total.outside, more.outside);
}

/**
 * The one-line summary: iterations, crashes, faults injected, acknowledged messages checked,
 * what was lost per policy (0 under `always` and `group`; `none` with its loss window), and the
 * outside events injected.
 */
export function formatCrashSummary(
  countsByPolicy: ReadonlyMap<DurabilityPolicy, CrashCounts>,
): string {
  const total = emptyCounts();
  for (const counts of countsByPolicy.values()) addCounts(total, counts);
  const lost = [...countsByPolicy].map(([policy, counts]) => {
    const window = policy === 'none' ? ` (at most ${counts.lossWindowMsgs} in one crash)` : '';
    return `${policy} ${counts.lost}${window}`;
  });
  return (
    `crash loop: ${total.iterations} iterations, ${total.crashes} crashes, ` +
    `${total.faultsInjected} faults injected, ${total.ackedChecked} acknowledged messages ` +
    `checked, lost: ${lost.join(', ')}; segment reuse: ${total.segmentsReused} rolls reused ` +
    `a spare, ${total.segmentsLaidOut} took a laid-out one, ${total.recycledTailsCut} reopens cut older records behind a reused segment's ` +
    `tail (${total.tornOverRecycled} with a torn record over them); ` +
    `${total.directWriteRounds} rounds wrote directly; ` +
    formatOutsideCounts(total.outside)
  );
}

/** Salt of the segment-reuse stream, so drawing a profile never moves the operations' stream. */
const REUSE_STREAM_SALT = 0x5e6_2e05;
/** Salt of the page-fill draw of a reuse profile (ReuseProfile.pageBytes). */
const PAGE_FILL_STREAM_SALT = 0x9a6_e0f1;
/** Salt of the spare-layout draw of a reuse profile (ReuseProfile.layOutSpares). */
const LAYOUT_STREAM_SALT = 0x1a7_0075;
/** Salt of the page-alignment draw (TargetConfig.pageAlign). */
const ALIGN_STREAM_SALT = 0x0a1_16e5;
/** Salt of the direct-writes draw (TargetConfig.directWrites). */
const DIRECT_STREAM_SALT = 0xd1e_c7ed;
/** Salt of the sync-mode draw (TargetConfig.syncMode). */
const SYNC_MODE_STREAM_SALT = 0x5c_1d0e;
/** Salt of the sync lengths `adaptive` iterations read on their SimLoopClock. */
const SYNC_LENGTH_STREAM_SALT = 0x5e_c1e7;
/**
 * Turns of the event loop after an `adaptive` iteration: a sync a crashed target left waiting for
 * a turn (loop-budget.ts) runs in the second; the third ends the hold it started.
 */
const TURNS_TO_SETTLE = 3;
/** Body length ranges a `by-round` profile draws from, one a round. */
const ROUND_BODY_SIZES = [
  { minBytes: 8, maxBytes: 8 },
  { minBytes: 40, maxBytes: 40 },
  { minBytes: 8, maxBytes: 60 },
  { minBytes: 100, maxBytes: 200 },
  { minBytes: 8, maxBytes: 200 },
] as const;

/**
 * A stream of the seed's own for one draw, apart from the iteration's main one: a draw added
 * this way moves no seed's earlier draws.
 */
function saltedStream(seed: number, salt: number): SeededRandom {
  return new SeededRandom((seed ^ salt) >>> 0);
}

/** Half the raw log's iterations exercise segment reuse (ReuseProfile); the others none. */
function drawReuse(rng: SeededRandom, target: CrashTargetName, seed: number): ReuseProfile | null {
  if (target !== 'log' || !rng.chance(0.5)) return null;
  return {
    bodies: rng.pick(['one-size', 'mixed', 'by-round'] as const),
    bodyBytes: rng.pick([8, 24, 57, 120, 200]),
    pageBytes: saltedStream(seed, PAGE_FILL_STREAM_SALT).pick([0, 512, 4096]),
    layOutSpares: saltedStream(seed, LAYOUT_STREAM_SALT).chance(0.5),
  };
}

function drawConfig(
  rng: SeededRandom,
  durability: DurabilityPolicy,
): Omit<TargetConfig, 'reuse' | 'pageAlign' | 'directWrites' | 'syncMode'> {
  return {
    durability,
    segmentBytes: rng.pick([1024, 2048, 4096]),
    preallocateExtentBytes: rng.pick([512, 1024, 4096]),
    indexIntervalBytes: rng.pick([0, 100, 1024]),
    groupMaxBytes: rng.pick([256, 1 << 20]),
    slotBytes: rng.pick([256, 640, 1024]),
    chunkSlots: rng.pick([4, 16]),
    checkpointEveryDeletes: rng.pick([1, 3, 20]),
  };
}

/** One seed: up to MAX_ROUNDS rounds of open, verify, operate, crash; then a last verify. */
export async function runCrashIteration(
  options: CrashIterationOptions,
): Promise<CrashIterationResult> {
  const iteration = new CrashIteration(options);
  await iteration.run();
  return iteration.result();
}

class CrashIteration {
  readonly #options: CrashIterationOptions;
  readonly #rng: SeededRandom;
  readonly #driver: TargetDriver;
  readonly #config: TargetConfig;
  readonly #model: CrashModel;
  readonly #clock = new ManualClock();
  readonly #counts = emptyCounts();
  readonly #violations: string[] = [];
  readonly #outside: OutsideEvents;
  /** The segment-reuse stream (drawReuse, ROUND_BODY_SIZES). */
  readonly #reuseRng: SeededRandom;
  #disk: SimDisk;
  #round = 0;

  constructor(options: CrashIterationOptions) {
    this.#options = options;
    this.#rng = new SeededRandom(options.seed);
    this.#driver = DRIVERS[options.target];
    this.#reuseRng = saltedStream(options.seed, REUSE_STREAM_SALT);
    const reuse = drawReuse(this.#reuseRng, options.target, options.seed);
    const pageAlign =
      reuse?.pageBytes !== 0 && saltedStream(options.seed, ALIGN_STREAM_SALT).chance(0.5);
    const directWrites =
      options.target === 'log' &&
      options.durability !== 'none' &&
      saltedStream(options.seed, DIRECT_STREAM_SALT).chance(0.5);
    const syncMode = saltedStream(options.seed, SYNC_MODE_STREAM_SALT).pick(SYNC_MODES);
    const config = {
      ...drawConfig(this.#rng, options.durability),
      reuse,
      pageAlign,
      directWrites,
      syncMode,
    };
    // Small segments with reuse: every few appends a roll, which finds a spare.
    if (reuse !== null) config.segmentBytes = this.#reuseRng.pick([1024, 1024, 2048]);
    this.#config = config;
    this.#model = new CrashModel({
      acksAreDurable: options.durability !== 'none',
      deletesAreDurable: this.#driver.deletesAreDurable(options.durability),
      bodyMaxBytes: bodyMaxBytes(this.#config),
    });
    if (reuse?.bodies === 'one-size') {
      this.#model.setBodySizes({ minBytes: reuse.bodyBytes, maxBytes: reuse.bodyBytes });
    }
    this.#disk = new SimDisk({ seed: this.#rng.nextU32() });
    this.#outside = new OutsideEvents(
      options.seed,
      `${options.target}/${options.durability}`,
      (text) => void this.#violations.push(text),
    );
    // The directory the target lives in is the caller's, made durable before the test starts.
    this.#disk.mkdirp(CRASH_DATA_DIR);
    this.#disk.fsyncDir('/');
  }

  async run(): Promise<void> {
    if (this.#config.syncMode !== 'adaptive') return this.#rounds();
    const clock = new SimLoopClock(
      saltedStream(this.#options.seed, SYNC_LENGTH_STREAM_SALT),
      () => this.#disk.counters,
    );
    const restore = useLoopClock(clock.nowMs);
    try {
      await this.#rounds();
    } finally {
      // What crashed targets left waiting for a turn runs now, on this iteration's clock.
      for (let turn = 0; turn < TURNS_TO_SETTLE; turn++) await new Promise(setImmediate);
      restore();
    }
  }

  async #rounds(): Promise<void> {
    const rounds = 1 + this.#rng.nextInt(MAX_ROUNDS);
    for (this.#round = 0; this.#round <= rounds; this.#round++) {
      const last = this.#round === rounds;
      if (this.#round > 0) await this.#outsideEventsBetweenRounds();
      if (this.#outside.failed) return;
      // Sometimes the power fails again while the target recovers.
      if (!last && this.#rng.chance(0.15)) {
        this.#arm({ kind: 'power-cut', nth: 1 + this.#rng.nextInt(40) });
      }
      const target = this.#openAndVerify();
      if (target === 'stop') return;
      if (last) return this.#close(target);
      if (this.#config.reuse?.bodies === 'by-round') {
        this.#model.setBodySizes(this.#reuseRng.pick(ROUND_BODY_SIZES));
      }
      if (target !== null && !this.#powerIsOff()) await this.#operate(target);
      this.#counts.segmentsReused += target?.log?.segmentsReused ?? 0;
      this.#counts.segmentsLaidOut += target?.log?.segmentsLaidOut ?? 0;
      this.#countDirectWrites(target?.log ?? null);
      if (this.#outside.failed) return;
      this.#crash();
    }
  }

  async #close(target: OpenTarget | null): Promise<void> {
    try {
      await target?.close();
    } catch (error) {
      this.#violations.push(`closing after the last check failed: ${describe(error)}`);
    }
  }

  result(): CrashIterationResult {
    const { seed, target, durability } = this.#options;
    const prefix = `seed ${seed} (${target}, ${durability})`;
    const done = this.#outside.done;
    // What the outside events did, to read a failure by; a passing iteration needs no story.
    const story =
      this.#violations.length > 0 && done.length > 0 ? [`outside events: ${done.join('; ')}`] : [];
    return {
      options: this.#options,
      counts: { ...this.#counts, iterations: 1, outside: { ...this.#outside.counts } },
      violations: [...this.#violations, ...story].map((text) => `${prefix}: ${text}`),
    };
  }

  /** The simulated disk takes every aligned direct write: a refusal there is a misaligned one. */
  #countDirectWrites(log: Log | null): void {
    if (log === null || log.directWrites === 'off') return;
    if (log.directWrites === 'on') this.#counts.directWriteRounds++;
    else this.#violations.push(`round ${this.#round}: ${log.directWritesRefusal}`);
  }

  /** Opens, drains and checks; null when the power failed during recovery, 'stop' on a bug. */
  #openAndVerify(): OpenTarget | null | 'stop' {
    const where = `round ${this.#round}`;
    const report = (text: string): void => void this.#violations.push(`${where}: ${text}`);
    try {
      const target = this.#openTarget(report);
      this.#countRecycledCut(target);
      this.#outside.checkReopen(target.log, where);
      if (this.#round > 0) this.#verify(target, where);
      return target;
    } catch (error) {
      if (this.#powerIsOff() && isPowerCut(error)) {
        this.#outside.reopenCut();
        return null;
      }
      report(`reopening failed: ${describe(error)}`);
      return 'stop';
    }
  }

  /** What the reopen cut behind a reused segment's tail (RecoveryReport.truncation). */
  #countRecycledCut(target: OpenTarget): void {
    const cut = target.log?.recovery.truncation ?? null;
    if (cut === null || cut.recycledBytes === 0) return;
    this.#counts.recycledTailsCut++;
    if (cut.discardedRecords > 0) this.#counts.tornOverRecycled++;
  }

  #openTarget(report: (text: string) => void): OpenTarget {
    return this.#driver.open(this.#disk, this.#config, this.#clock, report);
  }

  /** After a crash, before the reopen: an operator's changes to the log's directory. */
  async #outsideEventsBetweenRounds(): Promise<void> {
    const dir = this.#driver.logDir;
    if (dir === null) return;
    const where = `round ${this.#round}`;
    const report = (text: string): void => void this.#violations.push(`${where}: ${text}`);
    await this.#outside.betweenRounds(this.#disk, dir, () => this.#openTarget(report), where);
  }

  #verify(target: OpenTarget, where: string): void {
    const model = this.#model;
    const found = target.drain(this.#context());
    const check = model.afterRecovery(found, where);
    this.#counts.ackedChecked += check.ackedChecked;
    this.#counts.lost += check.lost;
    this.#counts.lossWindowMsgs = Math.max(this.#counts.lossWindowMsgs, check.lost);
    if (model.rules.acksAreDurable && target.endKey <= model.maxAckedKey) {
      this.#violations.push(
        `${where}: the next key ${target.endKey} is not past acknowledged key ${model.maxAckedKey}`,
      );
    }
    // The model's own lines name the round already.
    this.#violations.push(...model.violations.splice(0));
  }

  async #operate(target: OpenTarget): Promise<void> {
    const rng = this.#rng;
    const where = `round ${this.#round}`;
    // Segment reuse: rolls take spares first, with nothing armed, so that the faults and the
    // power cut armed next (and the log target's cut bursts) land in reused files.
    if (this.#config.reuse !== null) {
      await this.#steps(target, 20 + this.#reuseRng.nextInt(80), null, where);
    }
    const steps = 5 + rng.nextInt(40);
    if (rng.chance(0.5)) this.#arm({ kind: 'power-cut', nth: 1 + rng.nextInt(steps * 4) });
    if (rng.chance(0.35)) this.#arm(drawFault(rng));
    const secondWriterAt = this.#outside.secondWriterStep(steps);
    await this.#steps(target, steps, secondWriterAt, where);
    this.#violations.push(...this.#model.violations.splice(0).map((text) => `${where}: ${text}`));
  }

  async #steps(
    target: OpenTarget,
    steps: number,
    secondWriterAt: number | null,
    where: string,
  ): Promise<void> {
    const context = this.#context();
    for (let i = 0; i < steps && !this.#powerIsOff(); i++) {
      if (i === secondWriterAt) await this.#secondWriter(where);
      await target.step(context);
      this.#model.markAckedDurable();
      if (!this.#powerIsOff()) this.#model.markSyncedBelow(target.syncedKeyBound);
    }
  }

  /** Another writer opens the target while it is open: refused, and nothing changes. */
  async #secondWriter(where: string): Promise<void> {
    const report = (text: string): void => void this.#violations.push(`${where}: ${text}`);
    const openAgain = (): OpenTarget => this.#openTarget(report);
    await this.#outside.secondWriter(this.#disk, openAgain, this.#driver.lockedCode, where);
  }

  #context(): StepContext {
    return {
      rng: this.#rng,
      model: this.#model,
      clock: this.#clock,
      onError: (error, operation) => {
        if (isAllowedError(error)) return;
        this.#violations.push(`round ${this.#round}: ${operation} threw ${describe(error)}`);
      },
      cutPowerWithin: (calls) =>
        this.#arm({ kind: 'power-cut', nth: 1 + this.#rng.nextInt(calls) }),
    };
  }

  #arm(fault: SimFault): void {
    this.#disk.injectFault(fault);
  }

  #powerIsOff(): boolean {
    return this.#disk.injectedFaults.some((fault) => fault.kind === 'power-cut');
  }

  #crash(): void {
    this.#counts.faultsInjected += this.#disk.faultsInjected;
    this.#counts.crashes++;
    this.#disk = this.#disk.crash();
  }
}

/**
 * One I/O fault: the kinds the issue names (fsync EIO, ENOSPC, short writes, EMFILE), and failures
 * of the namespace calls a log makes durable with (directory fsync, rename, unlink, truncate).
 */
function drawFault(rng: SeededRandom): SimFault {
  const nth = 1 + rng.nextInt(12);
  switch (rng.nextInt(7)) {
    case 5:
      return {
        kind: 'error',
        call: rng.pick(['fsyncDir', 'rename', 'unlink'] as const),
        nth: 1 + rng.nextInt(4),
        errno: 'EIO',
      };
    case 6:
      return { kind: 'error', call: 'truncate', nth: 1 + rng.nextInt(4), errno: 'EIO' };
    case 0:
      return { kind: 'error', call: 'fdatasync', nth, errno: 'EIO', sticky: rng.chance(0.5) };
    case 1:
      return { kind: 'error', call: 'write', nth, errno: rng.pick(['EIO', 'ENOSPC'] as const) };
    case 2:
      return {
        kind: 'short-write',
        nth,
        landedBytes: 1 + rng.nextInt(100),
        then: rng.pick(['ENOSPC', 'no-progress'] as const),
      };
    case 3:
      return { kind: 'error', call: 'open', nth: 1 + rng.nextInt(3), errno: 'EMFILE' };
    default:
      return { kind: 'error', call: 'read', nth, errno: 'EIO', sticky: rng.chance(0.5) };
  }
}

function isAllowedError(error: unknown): boolean {
  if (isPowerCut(error)) return true;
  return isStorageError(error) && ALLOWED_ERROR_CODES.has(error.code);
}

export interface CrashLoopOptions {
  readonly durability: DurabilityPolicy;
  readonly firstSeed: number;
  /** Asked before each iteration; the loop stops when it returns false. */
  readonly keepGoing: (counts: CrashCounts) => boolean;
}

export interface CrashLoopResult {
  readonly counts: CrashCounts;
  readonly violations: readonly string[];
}

/** Iterations with consecutive seeds, the targets in turn, while `keepGoing` says so. */
export async function runCrashLoop(options: CrashLoopOptions): Promise<CrashLoopResult> {
  const counts = emptyCounts();
  const violations: string[] = [];
  for (let seed = options.firstSeed; options.keepGoing(counts); seed++) {
    const target = CRASH_TARGETS[(seed - options.firstSeed) % CRASH_TARGETS.length]!;
    const result = await runCrashIteration({ seed, target, durability: options.durability });
    addCounts(counts, result.counts);
    violations.push(...result.violations);
  }
  return { counts, violations };
}
