/**
 * The runner: the loops every I/O figure in loglab is measured with.
 *
 * Closed loops (`measureSync`, `measureAsync`) start the next operation when the previous one
 * returns. Open loops (`measureOpenLoopSync`, `measureOpenLoopAsync`) start operations on a fixed
 * schedule and measure latency from each operation's intended start, so a stalled disk shows in
 * the percentiles instead of silently slowing the schedule (coordinated omission, the mistake
 * YCSB and the OpenMessaging benchmark had to fix).
 *
 * The sync loop allocates nothing per operation except the timer's own bigints: latencies go into
 * the measurement's preallocated histogram and each result is folded into its checksum. Async
 * loops necessarily allocate a promise per operation. CPU-bound micro-measurements (codec, CRC,
 * index search) belong to tinybench, not here.
 */
import { setImmediate as yieldToLoop, setTimeout as sleepMs } from 'node:timers/promises';
import { assert } from '../storage/errors.js';
import { Measurement, type Repetition, type RunMode, type RunSummary } from './measurement.js';
import type { Labels } from './metric.js';
import { silentProgress, type ProgressReporter } from './progress.js';
import type { SeededRandom } from '../storage/sim/prng.js';

/** How much work one repetition (or warm-up) does: a count of operations or a time. */
export type Budget = { readonly ops: number } | { readonly seconds: number };
/** One operation, given a running index; the number it returns is folded into the checksum. */
export type SyncOperation = (index: number) => number;
export type AsyncOperation = (index: number) => Promise<number>;

/** How often a loop reports progress. */
const PROGRESS_INTERVAL_NS = 200_000_000n;
/** Below this the wait for an open-loop start yields to the event loop instead of a timer. */
const SPIN_BELOW_NS = 2_000_000n;

function assertBudget(budget: Budget): void {
  if ('ops' in budget) {
    assert(Number.isSafeInteger(budget.ops), `budget ops must be an integer: ${budget.ops}`);
    assert(budget.ops > 0, `budget ops must be positive: ${budget.ops}`);
  } else {
    assert(Number.isFinite(budget.seconds), `budget seconds must be finite: ${budget.seconds}`);
    assert(budget.seconds > 0, `budget seconds must be positive: ${budget.seconds}`);
  }
}

/** Workers of a closed loop: `concurrency`, default 1. */
function concurrencyOf(options: { readonly concurrency?: number }): number {
  const concurrency = options.concurrency ?? 1;
  assert(Number.isSafeInteger(concurrency), `concurrency must be an integer: ${concurrency}`);
  assert(concurrency > 0, `concurrency must be positive: ${concurrency}`);
  return concurrency;
}

function opsLimit(budget: Budget): number {
  return 'ops' in budget ? budget.ops : Number.POSITIVE_INFINITY;
}

/** The end of a timed budget; far in the future for a counted one. */
function deadlineNs(budget: Budget, startNs: bigint): bigint {
  if ('ops' in budget) return startNs + (1n << 62n);
  return startNs + BigInt(Math.round(budget.seconds * 1e9));
}

/** Collects garbage before a repetition when node runs with --expose-gc, so it is not timed. */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function assertMode(measurement: Measurement, mode: RunMode): void {
  const { name, mode: actual } = measurement;
  assert(actual === mode, `${name} is a ${actual} measurement, not ${mode}`);
}

/**
 * What a warm-up did: measured, so the results can say how long it took and how fast it ran, and
 * discarded, so no figure includes it (LabContext.recordWarmUp puts it in the results).
 */
export interface WarmUp {
  readonly ops: number;
  readonly elapsedNs: number;
}

/** Runs `op` for `budget` without recording latencies, so caches and the JIT settle first. */
export function warmUpSync(measurement: Measurement, op: SyncOperation, budget: Budget): WarmUp {
  assertMode(measurement, 'sync');
  assertBudget(budget);
  const limit = opsLimit(budget);
  const base = measurement.nextIndex;
  const startNs = process.hrtime.bigint();
  const deadline = deadlineNs(budget, startNs);
  let endNs = startNs;
  let ops = 0;
  while (ops < limit) {
    measurement.consume(op(base + ops));
    ops++;
    endNs = process.hrtime.bigint();
    if (endNs >= deadline) break;
  }
  measurement.advanceIndexes(ops);
  return { ops, elapsedNs: Number(endNs - startNs) };
}

/** One closed-loop repetition of a synchronous operation. */
export function measureSync(
  measurement: Measurement,
  op: SyncOperation,
  budget: Budget,
  options: { readonly progress?: ProgressReporter } = {},
): Repetition {
  assertMode(measurement, 'sync');
  assertBudget(budget);
  const progress = options.progress ?? silentProgress;
  const histogram = measurement.repetitionLatencyNs;
  const limit = opsLimit(budget);
  const base = measurement.nextIndex;
  measurement.beginRepetition();
  collectGarbage();
  const startNs = process.hrtime.bigint();
  const deadline = deadlineNs(budget, startNs);
  let nextProgressNs = startNs + PROGRESS_INTERVAL_NS;
  let endNs = startNs;
  let ops = 0;
  while (ops < limit) {
    const beforeNs = process.hrtime.bigint();
    const value = op(base + ops);
    endNs = process.hrtime.bigint();
    histogram.recordValue(Number(endNs - beforeNs));
    measurement.consume(value);
    ops++;
    if (endNs >= deadline) break;
    if (endNs >= nextProgressNs) {
      progress.update(ops);
      nextProgressNs = endNs + PROGRESS_INTERVAL_NS;
    }
  }
  measurement.advanceIndexes(ops);
  return measurement.endRepetition(ops, Number(endNs - startNs));
}

/**
 * Runs an async `op` for `budget` without recording latencies, from `concurrency` workers
 * (default 1) as the measured loop will run it.
 */
export async function warmUpAsync(
  measurement: Measurement,
  op: AsyncOperation,
  budget: Budget,
  options: { readonly concurrency?: number } = {},
): Promise<WarmUp> {
  assertMode(measurement, 'async');
  assertBudget(budget);
  const concurrency = concurrencyOf(options);
  const limit = opsLimit(budget);
  const base = measurement.nextIndex;
  const startNs = process.hrtime.bigint();
  const deadline = deadlineNs(budget, startNs);
  let endNs = startNs;
  let started = 0;
  let completed = 0;
  let stop = false;
  const worker = async () => {
    while (!stop && started < limit) {
      const value = await op(base + started++).catch((error: unknown) => {
        stop = true;
        throw error;
      });
      measurement.consume(value);
      completed++;
      endNs = process.hrtime.bigint();
      if (endNs >= deadline) stop = true;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  measurement.advanceIndexes(started);
  return { ops: completed, elapsedNs: Number(endNs - startNs) };
}

export interface AsyncLoopOptions {
  readonly progress?: ProgressReporter;
  /** Operations in flight at once, each worker starting its next when its last returns. */
  readonly concurrency?: number;
}

/** What a closed loop's workers did: operations completed, from the start to the last one. */
interface WorkersRun {
  readonly completed: number;
  readonly startNs: bigint;
  readonly endNs: bigint;
}

/**
 * `concurrency` workers, each starting its next operation when its last returns, until the
 * budget is spent; latencies go into the measurement's open repetition.
 */
async function runWorkers(
  measurement: Measurement,
  op: AsyncOperation,
  budget: Budget,
  concurrency: number,
  progress: ProgressReporter,
): Promise<WorkersRun> {
  const histogram = measurement.repetitionLatencyNs;
  const limit = opsLimit(budget);
  const base = measurement.nextIndex;
  const startNs = process.hrtime.bigint();
  const deadline = deadlineNs(budget, startNs);
  let nextProgressNs = startNs + PROGRESS_INTERVAL_NS;
  let endNs = startNs;
  let started = 0;
  let completed = 0;
  let stop = false;
  const worker = async () => {
    while (!stop && started < limit) {
      const index = base + started++;
      const beforeNs = process.hrtime.bigint();
      let value: number;
      try {
        value = await op(index);
      } catch (error) {
        stop = true;
        throw error;
      }
      endNs = process.hrtime.bigint();
      histogram.recordValue(Number(endNs - beforeNs));
      measurement.consume(value);
      completed++;
      if (endNs >= deadline) stop = true;
      if (endNs >= nextProgressNs) {
        progress.update(completed);
        nextProgressNs = endNs + PROGRESS_INTERVAL_NS;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  measurement.advanceIndexes(started);
  return { completed, startNs, endNs };
}

/**
 * One closed-loop repetition of an asynchronous operation: `concurrency` workers (default 1),
 * each starting its next operation when its last one returns, share the budget.
 */
export async function measureAsync(
  measurement: Measurement,
  op: AsyncOperation,
  budget: Budget,
  options: AsyncLoopOptions = {},
): Promise<Repetition> {
  assertMode(measurement, 'async');
  assertBudget(budget);
  const concurrency = concurrencyOf(options);
  measurement.beginRepetition();
  collectGarbage();
  const progress = options.progress ?? silentProgress;
  const run = await runWorkers(measurement, op, budget, concurrency, progress);
  return measurement.endRepetition(run.completed, Number(run.endNs - run.startNs));
}

/** Waits until `targetNs`: a timer for most of the gap, then yields to the event loop. */
async function waitUntil(targetNs: bigint): Promise<void> {
  for (;;) {
    const remainingNs = targetNs - process.hrtime.bigint();
    if (remainingNs <= 0n) return;
    if (remainingNs > SPIN_BELOW_NS) await sleepMs(Number(remainingNs / 1_000_000n) - 1);
    else await yieldToLoop();
  }
}

export interface OpenLoopOptions {
  /** Operations started per second, on a fixed schedule. */
  readonly ratePerSec: number;
  /** How many operations to schedule: a count, or the rate times the seconds. */
  readonly budget: Budget;
  readonly progress?: ProgressReporter;
}

function scheduledOps(options: OpenLoopOptions): number {
  const { ratePerSec } = options;
  assert(Number.isFinite(ratePerSec), `ratePerSec must be finite: ${ratePerSec}`);
  assert(ratePerSec > 0, `ratePerSec must be positive: ${ratePerSec}`);
  assertBudget(options.budget);
  if ('ops' in options.budget) return options.budget.ops;
  return Math.max(1, Math.round(options.ratePerSec * options.budget.seconds));
}

/**
 * One open-loop repetition of a synchronous operation. Operations run one at a time; when one
 * overruns its slot, the next starts late and its latency, counted from its intended start,
 * includes the wait.
 */
export async function measureOpenLoopSync(
  measurement: Measurement,
  op: SyncOperation,
  options: OpenLoopOptions,
): Promise<Repetition> {
  assertMode(measurement, 'open-loop-sync');
  const total = scheduledOps(options);
  const progress = options.progress ?? silentProgress;
  const intervalNs = 1e9 / options.ratePerSec;
  const base = measurement.nextIndex;
  measurement.beginRepetition();
  collectGarbage();
  const startNs = process.hrtime.bigint();
  let endNs = startNs;
  for (let i = 0; i < total; i++) {
    const intendedNs = startNs + BigInt(Math.round(i * intervalNs));
    await waitUntil(intendedNs);
    const actualNs = process.hrtime.bigint();
    const value = op(base + i);
    endNs = process.hrtime.bigint();
    measurement.repetitionLatencyNs.recordValue(Number(endNs - intendedNs));
    measurement.repetitionServiceNs.recordValue(Number(endNs - actualNs));
    measurement.consume(value);
    progress.update(i + 1);
  }
  measurement.advanceIndexes(total);
  return measurement.endRepetition(total, Number(endNs - startNs));
}

export interface OpenLoopAsyncOptions extends OpenLoopOptions {
  /** Operations allowed in flight at once; a start that finds them all busy waits its turn. */
  readonly maxInFlight: number;
}

/** Counts operations in flight and wakes the scheduler when one finishes. */
class InFlight {
  count = 0;
  failure: unknown = undefined;
  #wake: (() => void) | null = null;

  finished(): void {
    this.count--;
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  async below(limit: number): Promise<void> {
    while (this.count >= limit) await new Promise<void>((resolve) => (this.#wake = resolve));
  }
}

/**
 * One open-loop repetition of an asynchronous operation: operations start on schedule whether or
 * not earlier ones have finished, up to `maxInFlight` at once. The first failure stops the
 * schedule; it is thrown once the operations in flight have settled.
 */
export async function measureOpenLoopAsync(
  measurement: Measurement,
  op: AsyncOperation,
  options: OpenLoopAsyncOptions,
): Promise<Repetition> {
  assertMode(measurement, 'open-loop-async');
  const { maxInFlight } = options;
  assert(Number.isSafeInteger(maxInFlight), `maxInFlight must be an integer: ${maxInFlight}`);
  assert(maxInFlight > 0, `maxInFlight must be positive: ${maxInFlight}`);
  const total = scheduledOps(options);
  const progress = options.progress ?? silentProgress;
  const intervalNs = 1e9 / options.ratePerSec;
  const base = measurement.nextIndex;
  const inFlight = new InFlight();
  measurement.beginRepetition();
  collectGarbage();
  const startNs = process.hrtime.bigint();
  let endNs = startNs;
  let completed = 0;
  for (let i = 0; i < total && inFlight.failure === undefined; i++) {
    const intendedNs = startNs + BigInt(Math.round(i * intervalNs));
    await waitUntil(intendedNs);
    await inFlight.below(options.maxInFlight);
    if (inFlight.failure !== undefined) break;
    const actualNs = process.hrtime.bigint();
    inFlight.count++;
    op(base + i).then(
      (value) => {
        endNs = process.hrtime.bigint();
        measurement.repetitionLatencyNs.recordValue(Number(endNs - intendedNs));
        measurement.repetitionServiceNs.recordValue(Number(endNs - actualNs));
        measurement.consume(value);
        progress.update(++completed);
        inFlight.finished();
      },
      (error: unknown) => {
        inFlight.failure ??= error;
        inFlight.finished();
      },
    );
  }
  await inFlight.below(1);
  if (inFlight.failure !== undefined) throw inFlight.failure;
  measurement.advanceIndexes(total);
  return measurement.endRepetition(total, Number(endNs - startNs));
}

export interface RunOptions {
  readonly measure: Budget;
  readonly repetitions: number;
  /** Seeds the bootstrap intervals of the summary. */
  readonly random: SeededRandom;
  readonly warmup?: Budget;
  readonly labels?: Labels;
  readonly progress?: ProgressReporter;
  /** runAsync only: operations in flight at once (closed loop per worker). */
  readonly concurrency?: number;
}

function assertRepetitions(repetitions: number): void {
  assert(Number.isSafeInteger(repetitions), `repetitions must be an integer: ${repetitions}`);
  assert(repetitions > 0, `repetitions must be positive: ${repetitions}`);
}

/** Warm-up, then `repetitions` closed-loop repetitions of a synchronous operation. */
export function runSync(name: string, op: SyncOperation, options: RunOptions): RunSummary {
  assertRepetitions(options.repetitions);
  const measurement = new Measurement(name, 'sync', options.labels);
  const progress = options.progress ?? silentProgress;
  if (options.warmup !== undefined) {
    progress.phase(`${name}: warm-up`);
    warmUpSync(measurement, op, options.warmup);
  }
  for (let r = 0; r < options.repetitions; r++) {
    progress.phase(`${name}: repetition ${r + 1}/${options.repetitions}`);
    measureSync(measurement, op, options.measure, { progress });
  }
  return measurement.summarize(options.random);
}

/** Warm-up, then `repetitions` closed-loop repetitions of an asynchronous operation. */
export async function runAsync(
  name: string,
  op: AsyncOperation,
  options: RunOptions,
): Promise<RunSummary> {
  assertRepetitions(options.repetitions);
  const measurement = new Measurement(name, 'async', options.labels);
  const progress = options.progress ?? silentProgress;
  if (options.warmup !== undefined) {
    progress.phase(`${name}: warm-up`);
    await warmUpAsync(measurement, op, options.warmup);
  }
  for (let r = 0; r < options.repetitions; r++) {
    progress.phase(`${name}: repetition ${r + 1}/${options.repetitions}`);
    const loop =
      options.concurrency === undefined
        ? { progress }
        : { progress, concurrency: options.concurrency };
    await measureAsync(measurement, op, options.measure, loop);
  }
  return measurement.summarize(options.random);
}

export interface InterleavedDesign<T> {
  readonly name: string;
  /** Runs one round of this design (typically one repetition into its Measurement). */
  round(roundIndex: number): T | Promise<T>;
}

/**
 * Runs the designs in rounds so that drift over the run (a filling disk, a warming cache, a
 * neighbour's load) hits every design alike instead of whichever ran last, and each round starts
 * one design later (A, B; B, A; … and A, B, C; B, C, A; C, A, B; …) so that no design always
 * follows the same one: a round that leaves the disk busy (a close's sync, a journal commit,
 * write-back) would otherwise always slow the same neighbour. Returns each design's round
 * results in round order.
 */
export async function interleave<T>(
  rounds: number,
  designs: readonly InterleavedDesign<T>[],
  progress: ProgressReporter = silentProgress,
): Promise<Map<string, T[]>> {
  assertRepetitions(rounds);
  assert(designs.length >= 2, `interleaving needs two designs or more, got ${designs.length}`);
  const results = new Map<string, T[]>();
  for (const design of designs) {
    assert(!results.has(design.name), `two designs are named ${design.name}`);
    results.set(design.name, []);
  }
  for (let round = 0; round < rounds; round++) {
    for (let turn = 0; turn < designs.length; turn++) {
      const design = designs[(round + turn) % designs.length]!;
      progress.phase(`${design.name}: round ${round + 1}/${rounds}`);
      results.get(design.name)?.push(await design.round(round));
    }
  }
  return results;
}

/**
 * How long a side's turn lasts where sides take turns (takeTurns says why turns): long enough
 * for hundreds of synced appends on a disk, short enough that a jump in the disk's rate lands on
 * every side of a round.
 */
export const TURN_SECONDS = 0.1;

export interface TurnTakingDesign {
  readonly name: string;
  /** Runs for about `seconds`; returns how many operations completed. */
  turn(seconds: number): Promise<number>;
}

/** A turn that runs `op` one at a time, each awaited, for `seconds`; returns how many completed. */
export function oneAtATime(op: () => Promise<unknown>): (seconds: number) => Promise<number> {
  return async (seconds) => {
    const endNs = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
    let operations = 0;
    while (process.hrtime.bigint() < endNs) {
      await op();
      operations++;
    }
    return operations;
  };
}

/** What one design did over its turns of a round. */
export interface TurnTotals {
  readonly operations: number;
  readonly seconds: number;
}

/**
 * The orders of the passes of turns: a Williams design, in which every design follows every other
 * one equally often (for an even count, each ordered pair once in `count` passes; for an odd one,
 * twice in `2 * count`). A turn inherits what the one before it left (the disk's cache and its
 * write-back, the page cache): rotating one fixed order gave each design the same predecessor in
 * nearly every pass, and with four logs taking turns the page-cache group log, always right after
 * the page-cache always log, sent 7-11 µs a message slower than that log at one producer, against
 * 0-2 µs faster when the two took turns alone (measured, twenty rounds of 1 s, twice each).
 */
export function turnOrders(count: number): number[][] {
  assert(Number.isInteger(count) && count >= 1, `a count of designs, got ${count}`);
  const first = [0];
  for (let low = 1, high = count - 1; first.length < count; )
    first.push(first.length % 2 === 1 ? low++ : high--);
  const passes = first.map((_, shift) => first.map((design) => (design + shift) % count));
  return count % 2 === 0 ? passes : [...passes, ...passes.map((pass) => [...pass].reverse())];
}

/**
 * One round of designs taking turns of `turnSeconds` until each has run about `roundSeconds`,
 * one turn each a pass, the passes in the orders of turnOrders (each round starting one pass
 * later than the last). Where the disk's rate moves from one second
 * to the next (a virtual disk's host, write-back elsewhere), rounds a second long each, one
 * design after the other, put a jump between two designs into their ratio; turns a tenth of a
 * second long put it on both. A round of 1 s rounds of a log and a plain loop under `always`
 * gave ratios from 0.76 to 1.30 on this lab's disk; in turns of 0.1 s, 0.90 to 1.00. Each
 * design's operations and the seconds its turns took, measured here.
 */
export async function takeTurns(
  designs: readonly TurnTakingDesign[],
  roundSeconds: number,
  turnSeconds: number,
  roundIndex = 0,
): Promise<Map<string, TurnTotals>> {
  assert(designs.length >= 2, `taking turns needs two designs or more, got ${designs.length}`);
  assert(turnSeconds > 0 && roundSeconds > 0, 'turns and rounds take time');
  const names = new Set(designs.map((design) => design.name));
  assert(names.size === designs.length, 'designs that take turns have names of their own');
  const totals = designs.map(() => ({ operations: 0, elapsedNs: 0n }));
  // A round shorter than a turn (a test's tiny parameters) is one turn of the round's length.
  const turnLength = Math.min(turnSeconds, roundSeconds);
  const turns = Math.max(1, Math.round(roundSeconds / turnLength));
  const orders = turnOrders(designs.length);
  for (let t = 0; t < turns; t++) {
    for (const index of orders[(roundIndex + t) % orders.length]!) {
      const startNs = process.hrtime.bigint();
      const operations = await designs[index]!.turn(turnLength);
      totals[index]!.elapsedNs += process.hrtime.bigint() - startNs;
      totals[index]!.operations += operations;
    }
  }
  return new Map(
    designs.map((design, i) => [
      design.name,
      { operations: totals[i]!.operations, seconds: Number(totals[i]!.elapsedNs) / 1e9 },
    ]),
  );
}

/** A design that takes turns inside rounds it opens and closes (ClosedLoopTurns, or one wrapping it). */
export interface RoundTurnTaker<R> extends TurnTakingDesign {
  beginRound(): void;
  endRound(): R;
}

/**
 * One round of `sides`: each opens it, they take turns of TURN_SECONDS for about `seconds` each
 * (a lone side runs one turn as long), and each closes it. Returns what the sides' `endRound`
 * returned, in their order.
 */
export async function roundInTurns<R>(
  sides: readonly RoundTurnTaker<R>[],
  seconds: number,
  roundIndex: number,
): Promise<R[]> {
  for (const side of sides) side.beginRound();
  if (sides.length === 1) await sides[0]!.turn(seconds);
  else await takeTurns(sides, seconds, TURN_SECONDS, roundIndex);
  return sides.map((side) => side.endRound());
}

/**
 * A closed loop that takes turns (takeTurns): each turn runs `concurrency` workers as
 * measureAsync does, and every turn between `beginRound` and `endRound` goes into one repetition
 * of the measurement, so a round's rate is its operations over the time its turns ran, and its
 * latencies are its turns'. Workers stop starting operations when a turn's time is up and the
 * turn ends when the last one returns: each turn ramps up and drains, as every side's does.
 */
export class ClosedLoopTurns implements TurnTakingDesign {
  readonly name: string;
  readonly #measurement: Measurement;
  readonly #op: AsyncOperation;
  readonly #concurrency: number;
  #round: { operations: number; elapsedNs: bigint } | null = null;

  constructor(
    name: string,
    measurement: Measurement,
    op: AsyncOperation,
    options: { readonly concurrency?: number } = {},
  ) {
    assertMode(measurement, 'async');
    this.name = name;
    this.#measurement = measurement;
    this.#op = op;
    this.#concurrency = concurrencyOf(options);
  }

  /** Opens the round's repetition; garbage is collected here (with --expose-gc), not per turn. */
  beginRound(): void {
    assert(this.#round === null, `${this.name}: a round is already open`);
    this.#measurement.beginRepetition();
    collectGarbage();
    this.#round = { operations: 0, elapsedNs: 0n };
  }

  async turn(seconds: number): Promise<number> {
    const round = this.#round;
    assert(round !== null, `${this.name}: a turn outside a round (call beginRound first)`);
    const budget = { seconds };
    assertBudget(budget);
    const run = await runWorkers(
      this.#measurement,
      this.#op,
      budget,
      this.#concurrency,
      silentProgress,
    );
    round.operations += run.completed;
    round.elapsedNs += run.endNs - run.startNs;
    return run.completed;
  }

  /** Closes the round's repetition: its operations over its turns' time. */
  endRound(): Repetition {
    const round = this.#round;
    assert(round !== null, `${this.name}: no round is open`);
    this.#round = null;
    return this.#measurement.endRepetition(round.operations, Number(round.elapsedNs));
  }
}
