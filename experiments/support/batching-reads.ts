/**
 * The batching experiment's fixed work: each store, codec and batch size writes the same
 * `fixedMessages` messages into a log of its own under `none`, then serves lookups of the same
 * seeded offsets. Being fixed, what the code decides is exact and comparable run to run:
 *
 * - bytes the code wrote per message (FileIO counters, the log closed: log, indexes, time index,
 *   recovery point);
 * - offset-index bytes per GiB of log, and message bytes over log bytes (compression);
 * - per lookup, the bytes its walk read and the records it decoded. A Kafka lookup steps batch
 *   headers from its index entry and reads, checks and decompresses the whole batch holding the
 *   record — the course's trade-off — where loglab's log reads from its entry to the record.
 *
 * Lookup time is measured warm (the log was just written), a batch of lookups per round.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type LabContext, Measurement, measureSync, type Metric } from '../../lab/index.js';
import { BatchedLog, GiB, Log, NodeFileIO } from '../../storage/index.js';
import { OFFSET_INDEX_ENTRY_BYTES } from '../../storage/testing/index.js';
import { SEGMENT_BYTES, type SeriesSpec, seriesLabels, seriesPrefix } from './batching-appends.js';

/** What the code decided for the fixed messages; every figure exact. */
export interface FixedFigures {
  readonly writtenBytesPerMsg: number;
  readonly indexBytesPerGiB: number;
  readonly compressionRatio: number;
  readonly readBytesPerRead: number;
  readonly recordsDecodedPerRead: number;
}

interface Reader {
  /** The record's value length: consumed so the lookup is not optimised away. */
  read(offset: number): number;
  walk(offset: number): { readonly bytesRead: number; readonly recordsDecoded: number };
  close(): void | Promise<void>;
}

export class ReadSeries {
  readonly spec: SeriesSpec;
  readonly prefix: string;
  readonly labels: Record<string, string | number>;
  readonly figures: FixedFigures;
  readonly latency: Measurement;
  readonly #reader: Reader;
  readonly #offsets: Float64Array;
  readonly #dir: string;

  private constructor(
    spec: SeriesSpec,
    dir: string,
    reader: Reader,
    figures: FixedFigures,
    offsets: Float64Array,
  ) {
    this.spec = spec;
    this.prefix = seriesPrefix(spec);
    this.labels = seriesLabels(spec);
    this.latency = new Measurement(`${this.prefix}.read`, 'sync', {
      ...this.labels,
      cache: 'warm',
    });
    this.#dir = dir;
    this.#reader = reader;
    this.figures = figures;
    this.#offsets = offsets;
  }

  /** Writes the fixed messages, closes the log to count its writes, reopens it for reading. */
  static async open(
    spec: SeriesSpec,
    dir: string,
    messages: number,
    offsets: Float64Array,
  ): Promise<ReadSeries> {
    fs.mkdirSync(dir, { recursive: true });
    const opened =
      spec.store === 'kafka'
        ? await kafkaReader(spec, dir, messages)
        : ownLogReader(spec, dir, messages);
    let bytesRead = 0;
    let recordsDecoded = 0;
    for (const offset of offsets) {
      const walk = opened.reader.walk(offset);
      bytesRead += walk.bytesRead;
      recordsDecoded += walk.recordsDecoded;
    }
    const messageBytes = messages * spec.workload.messageBytes;
    return new ReadSeries(
      spec,
      dir,
      opened.reader,
      {
        writtenBytesPerMsg: opened.writtenBytes / messages,
        indexBytesPerGiB: (opened.indexEntries * OFFSET_INDEX_ENTRY_BYTES * GiB) / opened.logBytes,
        compressionRatio: messageBytes / opened.logBytes,
        readBytesPerRead: bytesRead / offsets.length,
        recordsDecodedPerRead: recordsDecoded / offsets.length,
      },
      offsets,
    );
  }

  /** One round of `lookups` warm lookups, cycling through the seeded offsets. */
  round(lookups: number): void {
    const offsets = this.#offsets;
    measureSync(this.latency, (i) => this.#reader.read(offsets[i % offsets.length]!), {
      ops: lookups,
    });
  }

  latencyMetric(ctx: LabContext): Metric {
    return this.latency.summarize(ctx.random).latencyNs;
  }

  async close(): Promise<void> {
    await this.#reader.close();
    fs.rmSync(this.#dir, { recursive: true, force: true });
  }
}

interface Opened {
  readonly reader: Reader;
  readonly writtenBytes: number;
  readonly indexEntries: number;
  readonly logBytes: number;
}

/**
 * The fixed messages' times: from a fixed instant, a millisecond a batch (or, in loglab's log, a
 * time-index entry) apart. The wall clock would make the timestamp deltas' varints, the
 * compressed blobs and the time-index entries differ from run to run, and the bytes written
 * are counters, compared exactly.
 */
const FIXED_START_MS = 1_764_547_200_000;

function steppingClock(): () => number {
  let nowMs = FIXED_START_MS;
  return () => nowMs++;
}

async function kafkaReader(spec: SeriesSpec, dir: string, messages: number): Promise<Opened> {
  const io = new NodeFileIO();
  const logDir = path.join(dir, 'topic-0');
  const writing = BatchedLog.open(logDir, {
    durability: 'none',
    segmentBytes: SEGMENT_BYTES,
    io,
    nowMs: steppingClock(),
  });
  const inputs = spec.workload.inputsTwice;
  const pool = spec.workload.poolSize;
  for (let sent = 0; sent < messages; sent += spec.batchSize) {
    const from = sent % pool;
    const count = Math.min(spec.batchSize, messages - sent);
    await writing.appendBatch(inputs.slice(from, from + count), { compression: spec.codec });
  }
  await writing.close();
  const writtenBytes = io.counters.writeBytes;
  const log = BatchedLog.open(logDir, { durability: 'none', segmentBytes: SEGMENT_BYTES });
  const segments = log.segments();
  return {
    writtenBytes,
    indexEntries: segments.reduce((sum, segment) => sum + segment.indexEntries, 0),
    logBytes: segments.reduce((sum, segment) => sum + segment.sizeBytes, 0),
    reader: {
      read: (offset) => log.lookup(offset).record.value?.length ?? 0,
      walk: (offset) => {
        const { record, walk } = log.lookup(offset);
        return {
          bytesRead: walk.bytesRead,
          recordsDecoded: record.batch.lastOffset - record.batch.baseOffset + 1,
        };
      },
      close: () => log.close(),
    },
  };
}

function ownLogReader(spec: SeriesSpec, dir: string, messages: number): Opened {
  const io = new NodeFileIO();
  const logDir = path.join(dir, 'log');
  const writing = Log.open(logDir, {
    durability: 'none',
    segmentBytes: SEGMENT_BYTES,
    io,
    nowMs: steppingClock(),
  });
  const bodies = spec.workload.bodiesTwice;
  const pool = spec.workload.poolSize;
  for (let sent = 0; sent < messages; sent++) writing.appendNoWait(bodies[sent % pool]!);
  void writing.close();
  const writtenBytes = io.counters.writeBytes;
  const log = Log.open(logDir, { durability: 'none', segmentBytes: SEGMENT_BYTES });
  const segments = log.segments();
  return {
    writtenBytes,
    indexEntries: segments.reduce(
      (sum, segment) => sum + log.explainLookup(segment.baseOffset).indexEntries,
      0,
    ),
    logBytes: segments.reduce((sum, segment) => sum + segment.sizeBytes, 0),
    reader: {
      read: (offset) => log.read(offset).body.length,
      walk: (offset) => ({
        bytesRead: log.explainLookup(offset).stepForwardBytes,
        recordsDecoded: 1,
      }),
      close: () => log.close(),
    },
  };
}
