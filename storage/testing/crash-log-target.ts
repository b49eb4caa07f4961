/**
 * The raw Log in the crash loop: single appends, batches and bursts of appends whose
 * acknowledgements are pending together, a sequential consumer, random reads by offset,
 * retention up to the consumer (whole segments), and flushes (a recovery point).
 *
 * "Deleted" for the log means removed by retention. After a reopen, every offset from the start
 * to the end is read twice — by the sequential reader and by offset — and both must agree.
 */
import * as path from 'node:path';
import type { SimDisk } from '../sim/sim-disk.js';
import { Log } from '../log/log.js';
import type { LogReader } from '../log/log-reader.js';
import { asOffset } from '../units.js';
import type { Found } from './crash-model.js';
import {
  CRASH_DATA_DIR,
  type ManualClock,
  type OpenTarget,
  type StepContext,
  type TargetConfig,
  type TargetDriver,
  pickWeighted,
} from './crash-target.js';

const LOG_DIR = path.posix.join(CRASH_DATA_DIR, 'log');

type LogOp = 'append' | 'batch' | 'burst' | 'consume' | 'read' | 'retention' | 'flush' | 'cut';
const LOG_OPS: ReadonlyArray<readonly [LogOp, number]> = [
  ['append', 4],
  ['batch', 1],
  ['burst', 1],
  ['consume', 3],
  ['read', 1],
  ['retention', 1],
  ['flush', 1],
];
/**
 * Segment reuse (crash-target.ts, ReuseProfile): a consumer that reads to the end and retention
 * after most appends, so nearly every roll finds a spare; and bursts the power fails in, between
 * their write and its sync, so torn records land over the older records of a reused file.
 */
const REUSE_OPS: ReadonlyArray<readonly [LogOp, number]> = [
  ['append', 4],
  ['batch', 1],
  ['burst', 2],
  ['consume', 2],
  ['read', 1],
  ['retention', 3],
  ['flush', 1],
  ['cut', 1],
];
/** FileIO calls a cut burst's power cut lands within: its write, its sync, the next append's. */
const CUT_WITHIN_CALLS = 4;

class LogTarget implements OpenTarget {
  readonly #log: Log;
  readonly #report: (text: string) => void;
  readonly #reuse: boolean;
  #reader: LogReader | null = null;

  constructor(log: Log, report: (text: string) => void, reuse: boolean) {
    this.#log = log;
    this.#report = report;
    this.#reuse = reuse;
  }

  get endKey(): number {
    return this.#log.endOffset;
  }

  get syncedKeyBound(): number {
    return this.#log.syncedEndOffset;
  }

  get log(): Log {
    return this.#log;
  }

  async step(context: StepContext): Promise<void> {
    const { rng } = context;
    switch (pickWeighted(rng, this.#reuse ? REUSE_OPS : LOG_OPS)) {
      case 'append':
        return this.#appendAll(context, 1);
      case 'burst':
        return this.#appendAll(context, 2 + rng.nextInt(4));
      case 'batch':
        return this.#batch(context, 2 + rng.nextInt(6));
      case 'consume':
        return guarded(context, 'reader', () => this.#consume(context));
      case 'read':
        return guarded(context, 'read', () => this.#readRandom(context));
      case 'retention':
        return this.#retention(context);
      case 'flush':
        return this.#log.flush().catch((error: unknown) => context.onError(error, 'flush'));
      case 'cut':
        // Once a roll reused a spare, the active segment most likely is a reused file; not at
        // every chance, so rounds go on to reuse more.
        if (this.#log.segmentsReused > 0 && rng.chance(0.25))
          context.cutPowerWithin(CUT_WITHIN_CALLS);
        return this.#appendAll(context, 1 + rng.nextInt(5));
    }
  }

  drain(): Found[] {
    const log = this.#log;
    const found: Found[] = [];
    const reader = log.reader(log.startOffset);
    for (let record = reader.next(); record !== null; record = reader.next()) {
      found.push({ key: record.offset, body: record.body });
      const byOffset = log.read(record.offset).body;
      if (!byOffset.equals(record.body)) this.#report(`read(${record.offset}) differs from reader`);
    }
    const held = log.endOffset - log.startOffset;
    if (found.length !== held) {
      this.#report(`the reader found ${found.length} of ${held} records from ${log.startOffset}`);
    }
    return found;
  }

  close(): Promise<void> {
    return this.#log.close();
  }

  /** `count` appends, written now, acknowledged together. */
  async #appendAll(context: StepContext, count: number): Promise<void> {
    const { model } = context;
    const acks: Array<Promise<void>> = [];
    for (let i = 0; i < count; i++) {
      const seq = model.sendStarted(this.#log.endOffset);
      try {
        const offset = this.#log.appendNoWait(model.body(seq));
        acks.push(
          this.#log.acknowledged(offset).then(
            () => model.sendAcked(seq, offset),
            (error: unknown) => context.onError(error, 'append acknowledgement'),
          ),
        );
      } catch (error) {
        context.onError(error, 'append');
      }
    }
    await Promise.all(acks);
  }

  async #batch(context: StepContext, count: number): Promise<void> {
    const { model } = context;
    const end = this.#log.endOffset;
    const seqs = Array.from({ length: count }, (_, i) => model.sendStarted(end + i));
    try {
      const first = this.#log.appendBatchNoWait(seqs.map((seq) => model.body(seq)));
      await this.#log.acknowledged(asOffset(first + count - 1));
      seqs.forEach((seq, i) => model.sendAcked(seq, first + i));
    } catch (error) {
      context.onError(error, 'appendBatch');
    }
  }

  /** One record; with segment reuse, every record up to the end. */
  #consume(context: StepContext): void {
    this.#reader ??= this.#log.reader(this.#log.startOffset);
    for (;;) {
      const record = this.#reader.next();
      if (record !== null) context.model.checkDelivered(record.offset, record.body, 'reader');
      if (record === null || !this.#reuse) return;
    }
  }

  #readRandom(context: StepContext): void {
    const { startOffset, endOffset } = this.#log;
    if (endOffset === startOffset) return;
    const offset = startOffset + context.rng.nextInt(endOffset - startOffset);
    context.model.checkDelivered(offset, this.#log.read(offset).body, 'read');
  }

  /** Whole segments below the consumer go; a retention cut short may have removed some. */
  async #retention(context: StepContext): Promise<void> {
    const log = this.#log;
    const below = this.#reader?.nextOffset ?? log.startOffset;
    const startBefore = log.startOffset;
    try {
      log.deleteSegmentsBelow(below);
      context.model.markDeleted(startBefore, log.startOffset, 'acked');
    } catch (error) {
      context.model.markDeleted(startBefore, below, 'pending');
      context.onError(error, 'deleteSegmentsBelow');
    }
  }
}

function guarded(context: StepContext, operation: string, action: () => void): void {
  try {
    action();
  } catch (error) {
    context.onError(error, operation);
  }
}

export const logDriver: TargetDriver = {
  name: 'log',
  // Retention fsyncs the directory before it returns, whatever the policy.
  deletesAreDurable: () => true,
  lockedCode: 'LOG_LOCKED',
  logDir: LOG_DIR,
  open(disk: SimDisk, config: TargetConfig, clock: ManualClock, report): OpenTarget {
    const log = Log.open(LOG_DIR, {
      io: disk,
      nowMs: () => clock.nowMs(),
      durability: config.durability,
      syncMode: config.syncMode,
      segmentBytes: config.segmentBytes,
      preallocateExtentBytes: config.preallocateExtentBytes,
      indexIntervalBytes: config.indexIntervalBytes,
      groupMaxDelayMs: 0,
      groupMaxBytes: config.groupMaxBytes,
      pageAlign: config.pageAlign && config.durability !== 'none',
      directWrites: config.directWrites,
      ...(config.reuse === null
        ? {}
        : { pageBytes: config.reuse.pageBytes, layOutSpares: config.reuse.layOutSpares }),
    });
    return new LogTarget(log, report, config.reuse !== null);
  },
};
