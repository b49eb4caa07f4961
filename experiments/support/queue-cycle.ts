/**
 * The course's queue work, shared by the puzzle and write-amplification experiments: messages are
 * sent, received and deleted on design A (a file of 1 KiB slots updated in place) or design B (a
 * log), at one durability policy.
 *
 * A round is two phases measured by the runner: producers send for a while, then consumers
 * receive and delete as many messages as were sent, so the queue stays the same size. The queue
 * holds a backlog, and consumers hold a window of messages in flight and delete a random one of
 * them each time — workers finish out of order — so design A's deletes land on scattered slots
 * and its sends reuse them (its free list is last-in first-out). Every write goes through a
 * TracingFileIO, so the disk models can price the same run.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  Measurement,
  type SeededRandom,
  TracingFileIO,
  type WriteTrace,
  measureAsync,
  traceSlice,
  warmUpAsync,
} from '../../lab/index.js';
import type { WarmUp } from '../../lab/runner.js';
import {
  type DurabilityPolicy,
  type FileIO,
  LogQueue,
  NodeFileIO,
  type Queue,
  SlotFileQueue,
} from '../../storage/index.js';
import { SLOT_HEADER_BYTES, assert } from '../../storage/testing/index.js';
import type { OpenLoopRound, OpenLoopSeries } from './open-loop.js';

export type Design = 'A' | 'B';

/** The workload's parameters, shared by every experiment that runs it (puzzle, write-amplification). */
export const QUEUE_CYCLE_PARAMS = {
  slotBytes: { quick: 1024, full: 1024 },
  backlogMessages: { quick: 2048, full: 16384 },
  inFlightMessages: { quick: 32, full: 256 },
  // Six rounds at least: fewer give no exact 95% interval of a median (lab/stats.ts), and
  // compare could not tell a rerun's noise from a change.
  rounds: { quick: 6, full: 10 },
} as const;
export const DESIGNS: readonly Design[] = ['A', 'B'];

/** Share of the time budget the measured rounds get; the rest fills and warms the queues. */
const MEASURED_SHARE = 0.6;
const SHORTEST_PHASE_SECONDS = 0.02;

/** Seconds for each of `phases` measured phases of an experiment on the queue workload. */
export function phaseSeconds(secondsBudget: number, phases: number): number {
  return Math.max(SHORTEST_PHASE_SECONDS, (secondsBudget * MEASURED_SHARE) / phases);
}

export interface QueueCycleOptions {
  readonly design: Design;
  readonly policy: DurabilityPolicy;
  /** A directory of this queue's own. */
  readonly dir: string;
  /** Design A's slot; both designs send the body that fills it. */
  readonly slotBytes: number;
  readonly backlogMessages: number;
  readonly inFlightMessages: number;
  readonly groupMaxDelayMs: number;
  readonly random: SeededRandom;
  /**
   * Design B only: save the head after this many deletes (the log queue's default, 1,000, or
   * every second, whichever comes first). 1 saves it at every delete that moves it.
   */
  readonly checkpointEveryDeletes?: number;
  /**
   * Design B only: end each round with one fdatasync of the log, timed as part of the round —
   * the course's design B streaming at the disk's bandwidth under `none`, made durable once.
   */
  readonly syncAtRoundEnd?: boolean;
}

/** Long enough that no message comes back during a run: redeliveries are not this work. */
const VISIBILITY_TIMEOUT_MS = 3_600_000;

/** The body both designs send: what one design-A slot holds after its header. */
export function bodyBytesFor(slotBytes: number): number {
  return slotBytes - SLOT_HEADER_BYTES;
}

function openQueue(options: QueueCycleOptions, policy: DurabilityPolicy, io: FileIO): Queue {
  assert(
    options.design === 'B' || options.checkpointEveryDeletes === undefined,
    'design A has no head to save: checkpointEveryDeletes is for design B',
  );
  assert(
    options.design === 'B' || options.syncAtRoundEnd !== true,
    'design A syncs per write or per group: syncAtRoundEnd is for design B',
  );
  // Both designs take the body that fills design A's slot, whatever slotBytes is.
  const common = {
    durability: policy,
    groupMaxDelayMs: options.groupMaxDelayMs,
    io,
    maxBodyBytes: bodyBytesFor(options.slotBytes),
  };
  if (options.design === 'A') {
    return SlotFileQueue.open(options.dir, { ...common, slotBytes: options.slotBytes });
  }
  const every = options.checkpointEveryDeletes;
  return LogQueue.open(
    path.join(options.dir, 'log'),
    every === undefined ? common : { ...common, checkpointEveryDeletes: every },
  );
}

export interface CycleRound {
  readonly messages: number;
  /** Both phases, send and consume, and the sync ending the round when there is one. */
  readonly elapsedNs: number;
  /** The sync ending the round (`syncAtRoundEnd`); absent or 0 without one. */
  readonly syncNs?: number;
}

export class QueueCycle {
  readonly options: QueueCycleOptions;
  readonly io: TracingFileIO;
  readonly #queue: Queue;
  readonly #body: Buffer;
  readonly #inFlight: number[] = [];
  /** The open-loop rounds' consumers run through it unmeasured (warmUpAsync needs one). */
  readonly #untimedConsume = new Measurement('open-loop.consume', 'async');
  #messagesSent = 0;
  #measuredFromEvent = 0;
  #measuredFromMessage = 0;

  private constructor(options: QueueCycleOptions, queue: Queue, io: TracingFileIO, body: Buffer) {
    this.options = options;
    this.#queue = queue;
    this.io = io;
    this.#body = body;
  }

  /**
   * Fills the backlog without syncing, reopens the queue at the policy under test with a tracing
   * FileIO, and takes the in-flight window: what follows is the steady state the rounds measure.
   */
  static async open(options: QueueCycleOptions): Promise<QueueCycle> {
    assert(options.backlogMessages > 0, 'the queue needs a backlog');
    assert(options.inFlightMessages > 0, 'consumers need a window of messages in flight');
    const body = Buffer.alloc(bodyBytesFor(options.slotBytes));
    options.random.fillBytes(body);
    fs.mkdirSync(options.dir, { recursive: true });
    const filling = openQueue(options, 'none', new NodeFileIO());
    for (let i = 0; i < options.backlogMessages + options.inFlightMessages; i++) {
      await filling.send(body);
    }
    await filling.close();
    const io = new TracingFileIO(new NodeFileIO());
    const cycle = new QueueCycle(options, openQueue(options, options.policy, io), io, body);
    for (let i = 0; i < options.inFlightMessages; i++) cycle.#receive();
    return cycle;
  }

  /** Messages sent since the warm-up: what `measuredTrace` covers. */
  get messagesMeasured(): number {
    return this.#messagesSent - this.#measuredFromMessage;
  }

  /** The writes and syncs since the warm-up, without the set-up before (a preallocated segment). */
  measuredTrace(): WriteTrace {
    return traceSlice(this.io.trace, this.#measuredFromEvent);
  }

  readonly send = async (): Promise<number> => {
    const id = await this.#queue.send(this.#body);
    this.#messagesSent++;
    return id;
  };

  /** Receives one message into the window, then deletes a random one from it. */
  readonly consume = async (): Promise<number> => {
    this.#receive();
    const window = this.#inFlight;
    const at = this.options.random.nextInt(window.length);
    const id = window[at] as number;
    window[at] = window[window.length - 1] as number;
    window.pop();
    await this.#queue.delete(id);
    return id;
  };

  /**
   * Sends and consumes `messages` without measuring, so the free slots are scattered and the log's
   * segment is preallocated before the rounds; the measured trace starts after it.
   */
  async warmUp(messages: number): Promise<WarmUp> {
    const send = new Measurement('warm-up.send', 'async');
    const consume = new Measurement('warm-up.consume', 'async');
    const sent = await warmUpAsync(send, this.send, { ops: messages });
    const consumed = await warmUpAsync(consume, this.consume, { ops: messages });
    this.#measuredFromEvent = this.io.trace.length;
    this.#measuredFromMessage = this.#messagesSent;
    return { ops: sent.ops, elapsedNs: sent.elapsedNs + consumed.elapsedNs };
  }

  /** One round: producers send for `seconds`, then consumers take as many. */
  async round(
    seconds: number,
    producers: number,
    send: Measurement,
    consume: Measurement,
  ): Promise<CycleRound> {
    const loop = { concurrency: producers };
    const sent = await measureAsync(send, this.send, { seconds }, loop);
    const consumed = await measureAsync(consume, this.consume, { ops: sent.ops }, loop);
    const syncNs = this.options.syncAtRoundEnd === true ? await this.#syncLog() : 0;
    return { messages: sent.ops, elapsedNs: sent.elapsedNs + consumed.elapsedNs + syncNs, syncNs };
  }

  /**
   * One open-loop round (experiments/support/open-loop.ts): sends start on `series`'s schedule for
   * `seconds`, at most `producers` in flight, each timed from its intended start; then
   * consumers take as many, unmeasured, so the queue keeps its size for the next round.
   */
  async openLoopRound(
    series: OpenLoopSeries,
    seconds: number,
    producers: number,
  ): Promise<OpenLoopRound> {
    assert(this.options.syncAtRoundEnd !== true, 'the open loop has no round-ending sync');
    const round = await series.round(this.send, seconds, producers);
    await warmUpAsync(
      this.#untimedConsume,
      this.consume,
      { ops: round.repetition.ops },
      { concurrency: producers },
    );
    return round;
  }

  /** One fdatasync of everything design B appended; the nanoseconds it took. */
  async #syncLog(): Promise<number> {
    const queue = this.#queue;
    assert(queue instanceof LogQueue, 'only design B (the log) syncs at the end of a round');
    const startNs = process.hrtime.bigint();
    await queue.flush();
    return Number(process.hrtime.bigint() - startNs);
  }

  async close(): Promise<void> {
    await this.#queue.close();
  }

  #receive(): void {
    const message = this.#queue.receive({ visibilityTimeoutMs: VISIBILITY_TIMEOUT_MS });
    assert(message !== null, `${this.options.design} ran out of messages: the backlog is empty`);
    this.#inFlight.push(message.id);
  }
}
