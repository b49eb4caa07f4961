/**
 * The batching experiment's timed appends: one series per store, codec, batch size, message
 * size, body and policy, each on a log of its own, written through a TracingFileIO so the disk
 * models can price the same run. A round appends for a while (or up to a cap of messages), is
 * timed, then the log is flushed untimed inside the round's I/O phase, so the bytes it wrote
 * reach the disk's counters before they are read.
 *
 * loglab's log appends synchronously (one write per call, an fdatasync per call under
 * `always`); the batched log's appendBatch is async, since its encoder is (zstd's compressor
 * runs on the thread pool). Each figure uses its log's own call.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  type LabContext,
  PhaseTotals,
  TracingFileIO,
  type WriteTrace,
  traceSlice,
} from '../../lab/index.js';
import type { WarmUp } from '../../lab/runner.js';
import {
  BatchedLog,
  type BatchedRecordInput,
  type KafkaCompression,
  Log,
  MiB,
  NodeFileIO,
} from '../../storage/index.js';
import type { BodyKind } from './batching-bodies.js';

export type StoreKind = 'append' | 'appendBatch' | 'kafka';
export type AppendPolicy = 'none' | 'always';

/** The `store` label: which log, and how it was called. */
export const STORE_LABELS: Readonly<Record<StoreKind, string>> = {
  append: 'loglab, a record per append',
  appendBatch: 'loglab appendBatch',
  kafka: 'Kafka v2 batches (batched log)',
};

/** One message size and body kind, with its pool of bodies. */
export interface Workload {
  readonly messageBytes: number;
  readonly body: BodyKind;
  /** The pool twice over, so a batch is one slice wherever in the pool it starts. */
  readonly bodiesTwice: readonly Buffer[];
  readonly inputsTwice: readonly BatchedRecordInput[];
  readonly poolSize: number;
}

export interface SeriesSpec {
  readonly workload: Workload;
  readonly store: StoreKind;
  readonly codec: KafkaCompression;
  readonly batchSize: number;
}

export interface AppendSpec extends SeriesSpec {
  readonly policy: AppendPolicy;
}

/** Segments small enough that a run rolls some, as a long-running log does. */
export const SEGMENT_BYTES = 64 * MiB;

/** The facet a series is drawn in: `1 KiB JSON events, none`. */
export function workloadLabel(workload: Workload, policy?: AppendPolicy): string {
  const size =
    workload.messageBytes % 1024 === 0
      ? `${workload.messageBytes / 1024} KiB`
      : `${workload.messageBytes} B`;
  const body = workload.body === 'json' ? 'JSON events' : 'random bytes';
  return policy === undefined ? `${size} ${body}` : `${size} ${body}, ${policy}`;
}

/** `batching.<body>.<bytes>.<store>.<codec>.<batch>`, and `<policy>` after the bytes. */
export function seriesPrefix(spec: SeriesSpec, policy?: AppendPolicy): string {
  const { workload } = spec;
  const policyPart = policy === undefined ? '' : `.${policy}`;
  return (
    `batching.${workload.body}.${workload.messageBytes}${policyPart}.${spec.store}.` +
    `${spec.codec}.${spec.batchSize}`
  );
}

export function seriesLabels(
  spec: SeriesSpec,
  policy?: AppendPolicy,
): Record<string, string | number> {
  const labels: Record<string, string | number> = {
    store: STORE_LABELS[spec.store],
    codec: spec.codec,
    batchSize: spec.batchSize,
    messageBytes: spec.workload.messageBytes,
    body: spec.workload.body,
    workload: workloadLabel(spec.workload, policy),
  };
  if (policy !== undefined) labels.policy = policy;
  return labels;
}

/** What a series appends with: one call appends `batchSize` messages. */
interface Appender {
  appendBatch(from: number): number | Promise<number>;
  flush(): void | Promise<void>;
  close(): void | Promise<void>;
}

function ownLogAppender(log: Log, spec: SeriesSpec): Appender {
  const bodies = spec.workload.bodiesTwice;
  const size = spec.batchSize;
  return {
    appendBatch:
      spec.store === 'append'
        ? (from) => log.append(bodies[from] as Buffer)
        : (from) => log.appendBatch(bodies.slice(from, from + size)),
    flush: () => log.flush(),
    close: () => log.close(),
  };
}

function kafkaAppender(log: BatchedLog, spec: SeriesSpec): Appender {
  const inputs = spec.workload.inputsTwice;
  const options = { compression: spec.codec };
  const size = spec.batchSize;
  return {
    appendBatch: async (from) =>
      (await log.appendBatch(inputs.slice(from, from + size), options)).lastOffset,
    flush: () => log.flush(),
    close: () => log.close(),
  };
}

export class AppendSeries {
  readonly spec: AppendSpec;
  readonly prefix: string;
  readonly labels: Record<string, string | number>;
  readonly io: TracingFileIO;
  readonly totals = new PhaseTotals();
  /** Messages per second, one per round. */
  readonly rates: number[] = [];
  readonly dir: string;
  readonly #appender: Appender;
  #cursor = 0;
  #messagesMeasured = 0;
  #traceFrom = 0;

  private constructor(spec: AppendSpec, dir: string, io: TracingFileIO, appender: Appender) {
    this.spec = spec;
    this.dir = dir;
    this.io = io;
    this.#appender = appender;
    this.prefix = seriesPrefix(spec, spec.policy);
    this.labels = seriesLabels(spec, spec.policy);
  }

  static open(spec: AppendSpec, dir: string): AppendSeries {
    fs.mkdirSync(dir, { recursive: true });
    const io = new TracingFileIO(new NodeFileIO());
    const options = { durability: spec.policy, segmentBytes: SEGMENT_BYTES, io };
    const appender =
      spec.store === 'kafka'
        ? kafkaAppender(BatchedLog.open(path.join(dir, 'topic-0'), options), spec)
        : ownLogAppender(Log.open(path.join(dir, 'log'), options), spec);
    return new AppendSeries(spec, dir, io, appender);
  }

  get messagesMeasured(): number {
    return this.#messagesMeasured;
  }

  /** The writes and syncs of the measured rounds, without the warm-up before them. */
  measuredTrace(): WriteTrace {
    return traceSlice(this.io.trace, this.#traceFrom);
  }

  /** Appends for `seconds` or `capMessages`, whichever ends first; returns messages and time. */
  async #appendFor(seconds: number, capMessages: number): Promise<WarmUp> {
    const size = this.spec.batchSize;
    const pool = this.spec.workload.poolSize;
    const deadlineNs = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
    const startNs = process.hrtime.bigint();
    let endNs = startNs;
    let messages = 0;
    let checksum = 0;
    do {
      const appended = this.#appender.appendBatch(this.#cursor);
      checksum += typeof appended === 'number' ? appended : await appended;
      this.#cursor = (this.#cursor + size) % pool;
      messages += size;
      endNs = process.hrtime.bigint();
    } while (endNs < deadlineNs && messages < capMessages);
    // The offsets returned grow: a checksum of zero would mean the appends returned nothing.
    if (checksum < 0) throw new Error('batching: appends returned negative offsets');
    return { ops: messages, elapsedNs: Number(endNs - startNs) };
  }

  /** Discarded appends, so the JIT, the segment and preallocation settle first. */
  async warmUp(seconds: number, capMessages: number): Promise<WarmUp> {
    const warm = await this.#appendFor(seconds, capMessages);
    await this.#appender.flush();
    this.#traceFrom = this.io.trace.length;
    return warm;
  }

  /** One measured round: timed appends, then an untimed flush inside the I/O phase. */
  async round(ctx: LabContext, seconds: number, capMessages: number): Promise<number> {
    const phase = ctx.ioPhase(this.io);
    const appended = await this.#appendFor(seconds, capMessages);
    await this.#appender.flush();
    this.totals.add(phase.end());
    this.#messagesMeasured += appended.ops;
    const rate = appended.ops / (appended.elapsedNs / 1e9);
    this.rates.push(rate);
    return rate;
  }

  async close(): Promise<void> {
    await this.#appender.close();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
