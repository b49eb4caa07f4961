/**
 * Both queue designs in the crash loop: sends (some delayed, some in bursts whose
 * acknowledgements are still pending while a receiver takes and deletes messages), receives
 * with short and long visibility timeouts, deletes (design B saves its head every few deletes
 * and drops segments below it), and clock ticks that make messages ready again.
 */
import * as path from 'node:path';
import type { DurabilityPolicy } from '../io/durability.js';
import { readHeadCheckpoint } from '../queue/head-checkpoint.js';
import { LogQueue, logOfQueueForTesting } from '../queue/log-queue.js';
import type { Log } from '../log/log.js';
import type { Queue } from '../queue/queue.js';
import type { SimDisk } from '../sim/sim-disk.js';
import { SlotFileQueue } from '../queue/slot-file.js';
import { crashBodySeq } from './crash-body.js';
import type { Found } from './crash-model.js';
import {
  type ManualClock,
  type OpenTarget,
  type StepContext,
  type TargetConfig,
  type TargetDriver,
  CRASH_DATA_DIR,
  pickWeighted,
} from './crash-target.js';

const QUEUE_DIR = path.posix.join(CRASH_DATA_DIR, 'queue');
/** Design A's directory: its slot file is /data/slots, its lock /data/slots.lock. */
const SLOT_QUEUE_DIR = CRASH_DATA_DIR;
/** Drains hold what they take for longer than any run of steps lasts. */
const DRAIN_VISIBILITY_MS = 1e9;
const DRAIN_CLOCK_JUMP_MS = 1e7;

type QueueOp = 'send' | 'burst' | 'receive' | 'delete' | 'tick';
const QUEUE_OPS: ReadonlyArray<readonly [QueueOp, number]> = [
  ['send', 4],
  ['burst', 1],
  ['receive', 4],
  ['delete', 3],
  ['tick', 1],
];

class QueueTarget implements OpenTarget {
  readonly #queue: Queue;
  readonly log: Log | null;
  readonly #syncedKeyBound: () => number;
  /** Received and not yet deleted: id → sequence number. */
  readonly #received = new Map<number, number>();

  constructor(queue: Queue, log: Log | null, syncedKeyBound: () => number) {
    this.#queue = queue;
    this.log = log;
    this.#syncedKeyBound = syncedKeyBound;
  }

  get endKey(): number {
    return this.#queue.stats().end;
  }

  get syncedKeyBound(): number {
    return this.#syncedKeyBound();
  }

  async step(context: StepContext): Promise<void> {
    const { rng, clock } = context;
    switch (pickWeighted(rng, QUEUE_OPS)) {
      case 'send':
        return this.#send(context, rng.chance(0.2) ? 100 : 0);
      case 'burst':
        return this.#burst(context);
      case 'receive':
        this.#receive(context, rng.pick([10, 100, 1000]));
        return;
      case 'delete':
        return this.#deleteOne(context);
      case 'tick':
        clock.ms += rng.pick([1, 50, 500, 2000]);
    }
  }

  drain(context: StepContext): Found[] {
    context.clock.ms += DRAIN_CLOCK_JUMP_MS;
    const found: Found[] = [];
    for (;;) {
      const message = this.#queue.receive({ visibilityTimeoutMs: DRAIN_VISIBILITY_MS });
      if (message === null) return found;
      found.push({ key: message.id, body: message.body });
      // The model checks what was found; a body that is not a crash body is not tracked here.
      const seq = crashBodySeq(message.body);
      if (seq !== null) this.#received.set(message.id, seq);
    }
  }

  close(): Promise<void> {
    return this.#queue.close();
  }

  async #send(context: StepContext, delayMs: number): Promise<void> {
    const { model } = context;
    const seq = model.sendStarted(this.endKey);
    try {
      const id = await this.#queue.send(model.body(seq), { delayMs });
      model.sendAcked(seq, id);
    } catch (error) {
      context.onError(error, 'send');
    }
  }

  /** Several sends in flight; a receiver may take and delete one before they are acknowledged. */
  async #burst(context: StepContext): Promise<void> {
    const pending: Array<Promise<void>> = [];
    const sends = 2 + context.rng.nextInt(4);
    for (let i = 0; i < sends; i++) pending.push(this.#send(context, 0));
    if (context.rng.chance(0.5)) {
      const id = this.#receive(context, 1000);
      if (id !== null) pending.push(this.#delete(context, id));
    }
    await Promise.all(pending);
  }

  #receive(context: StepContext, visibilityTimeoutMs: number): number | null {
    try {
      const message = this.#queue.receive({ visibilityTimeoutMs });
      if (message === null) return null;
      const seq = context.model.checkDelivered(message.id, message.body, 'receive');
      if (seq === null) return null;
      this.#received.set(message.id, seq);
      return message.id;
    } catch (error) {
      context.onError(error, 'receive');
      return null;
    }
  }

  async #deleteOne(context: StepContext): Promise<void> {
    if (this.#received.size === 0) return;
    const ids = [...this.#received.keys()];
    await this.#delete(context, ids[context.rng.nextInt(ids.length)]!);
  }

  async #delete(context: StepContext, id: number): Promise<void> {
    const seq = this.#received.get(id)!;
    this.#received.delete(id);
    if (!context.model.knows(seq)) return;
    context.model.deleteStarted(seq);
    try {
      await this.#queue.delete(id);
      context.model.deleteAcked(seq);
    } catch (error) {
      context.onError(error, 'delete');
    }
  }
}

export const logQueueDriver: TargetDriver = {
  name: 'log-queue',
  deletesAreDurable: () => false,
  lockedCode: 'QUEUE_LOCKED',
  logDir: QUEUE_DIR,
  open(disk: SimDisk, config: TargetConfig, clock: ManualClock, report): OpenTarget {
    const savedHead = readHeadCheckpoint(disk, QUEUE_DIR);
    const queue = LogQueue.open(QUEUE_DIR, {
      io: disk,
      clock,
      durability: config.durability,
      syncMode: config.syncMode,
      segmentBytes: config.segmentBytes,
      indexIntervalBytes: config.indexIntervalBytes,
      groupMaxDelayMs: 0,
      groupMaxBytes: config.groupMaxBytes,
      checkpointEveryDeletes: config.checkpointEveryDeletes,
      checkpointIntervalMs: 1000,
    });
    const log = logOfQueueForTesting(queue);
    if (savedHead !== null && savedHead > log.endOffset) {
      report(`the head checkpoint ${savedHead} points past the log's end ${log.endOffset}`);
    }
    return new QueueTarget(queue, log, () => log.syncedEndOffset);
  },
};

export const slotFileDriver: TargetDriver = {
  name: 'slot-file',
  deletesAreDurable: (durability: DurabilityPolicy) => durability !== 'none',
  lockedCode: 'QUEUE_LOCKED',
  logDir: null,
  open(disk: SimDisk, config: TargetConfig, clock: ManualClock): OpenTarget {
    const queue = SlotFileQueue.open(SLOT_QUEUE_DIR, {
      io: disk,
      clock,
      durability: config.durability,
      syncMode: config.syncMode,
      groupMaxDelayMs: 0,
      groupMaxBytes: config.groupMaxBytes,
      slotBytes: config.slotBytes,
      chunkSlots: config.chunkSlots,
    });
    return new QueueTarget(queue, null, () => 0);
  },
};
