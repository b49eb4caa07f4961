/**
 * `loglab bench storage`, the Kafka figures (issue 16): the v2 batch codec's throughput on
 * 100-record batches of 1 KiB, and the batched log's appendBatch against loglab's own
 * appendBatch of the same messages, in interleaved rounds (own, Kafka, own, Kafka …) so drift
 * hits both. Bodies are the batching experiment's JSON events (seeded), so lz4 has something
 * real to expand; each figure says which bytes it counts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LabContext } from '../../lab/experiment.js';
import { Measurement } from '../../lab/measurement.js';
import { metricFromSamples } from '../../lab/metric.js';
import type { Metric } from '../../lab/results.js';
import {
  interleave,
  measureAsync,
  measureSync,
  warmUpAsync,
  warmUpSync,
} from '../../lab/runner.js';
import {
  BATCH_HEADER_BYTES,
  BatchedLog,
  GiB,
  type KafkaBatchInput,
  type KafkaCompression,
  Log,
  decodeBatch,
  encodeBatch,
} from '../../storage/index.js';
import { encodeRecords } from '../../storage/testing/index.js';
import { jsonEvent } from '../support/batching-bodies.js';

const RECORDS_PER_BATCH = 100;
const BODY_BYTES = 1024;
const WARMUP_SHARE = 0.1;
/** Kafka's segment.bytes default, for both logs of the append comparison. */
const APPEND_SEGMENT_BYTES = GiB;
/** Batches a round appends per second of its nominal length: 200 MB a second of round. */
const BATCHES_PER_SECOND = 2000;
const RATE = { class: 'timing', direction: 'higher' } as const;
const LABELS = { records: RECORDS_PER_BATCH, recordBytes: BODY_BYTES, cache: 'page cache' };

function batchInput(ctx: LabContext, compression: KafkaCompression): KafkaBatchInput {
  const random = ctx.random.fork();
  const records = Array.from({ length: RECORDS_PER_BATCH }, (_, i) => ({
    timestampDeltaMs: 0,
    offsetDelta: i,
    key: null,
    value: jsonEvent(random, i, BODY_BYTES),
    headers: [],
  }));
  return { baseOffset: 0n, baseTimestampMs: 1_764_547_200_000, compression, records };
}

interface CodecRounds {
  readonly name: string;
  readonly metric: string;
  /** Bytes one operation handles, as the figure counts them. */
  readonly bytesPerOp: number;
  readonly description: string;
  readonly round: (seconds: number) => Promise<number> | number;
}

/** Encode and decode of one 100-record batch, each timed in rounds. */
async function codecRounds(ctx: LabContext): Promise<CodecRounds[]> {
  const plain = batchInput(ctx, 'none');
  const lz4 = { ...batchInput(ctx, 'lz4'), records: plain.records };
  const plainBytes = await encodeBatch(plain);
  const lz4Bytes = await encodeBatch(lz4);
  const recordsBytes = encodeRecords(plain.records).length;
  const compressedBytes = lz4Bytes.length - BATCH_HEADER_BYTES;
  const encodeNone = new Measurement('kafka.encode.none', 'async');
  const decodeNone = new Measurement('kafka.decode.none', 'sync');
  const decodeLz4 = new Measurement('kafka.decode.lz4', 'sync');
  // As the batched log encodes: into a buffer reused from batch to batch.
  const scratch = Buffer.allocUnsafe(plainBytes.length);
  const encode = async () => (await encodeBatch(plain, scratch)).length;
  const decode = (bytes: Buffer) => () => decodeBatch(bytes).recordCount;
  return [
    {
      name: 'encode-none',
      metric: 'kafka.encode.none.bytesPerSec',
      bytesPerOp: plainBytes.length,
      description:
        `encodeBatch of ${RECORDS_PER_BATCH} JSON records of ${BODY_BYTES} B, no ` +
        'compression, into a reused buffer as the batched log encodes: batch bytes ' +
        `(${plainBytes.length}, header, records, CRC-32C) per second`,
      round: async (seconds) => {
        await warmUpAsync(encodeNone, encode, { seconds: seconds * WARMUP_SHARE });
        return (await measureAsync(encodeNone, encode, { seconds })).ratePerSec;
      },
    },
    {
      name: 'decode-none',
      metric: 'kafka.decode.none.bytesPerSec',
      bytesPerOp: plainBytes.length,
      description:
        `decodeBatch of the same batch: CRC checked, every record parsed; batch ` +
        'bytes per second',
      round: (seconds) => timedSync(decodeNone, decode(plainBytes), seconds),
    },
    {
      name: 'decode-lz4',
      metric: 'kafka.decode.lz4.bytesPerSec',
      bytesPerOp: recordsBytes,
      description:
        `decodeBatch of the same records lz4-compressed (${compressedBytes} B of ` +
        `${recordsBytes}): uncompressed record bytes out per second`,
      round: (seconds) => timedSync(decodeLz4, decode(lz4Bytes), seconds),
    },
  ];
}

function timedSync(measurement: Measurement, op: () => number, seconds: number): number {
  warmUpSync(measurement, op, { seconds: seconds * WARMUP_SHARE });
  return measureSync(measurement, op, { seconds }).ratePerSec;
}

export async function kafkaCodecMetrics(
  ctx: LabContext,
  rounds: number,
  seconds: number,
): Promise<Metric[]> {
  const codecs = await codecRounds(ctx);
  const results = await interleave(
    rounds,
    codecs.map((codec) => ({
      name: codec.name,
      round: () => codec.round(seconds),
    })),
    ctx.progress,
  );
  return codecs.map((codec) =>
    metricFromSamples(
      codec.metric,
      'B/s',
      results.get(codec.name)!.map((rate) => rate * codec.bytesPerOp),
      { random: ctx.random, ...RATE, labels: LABELS, description: codec.description },
    ),
  );
}

function roundDir(ctx: LabContext, name: string, round: number): string {
  const dir = path.join(ctx.dir, `${name}-${round}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir);
  return dir;
}

/**
 * The batched log's appendBatch (async: encode, then one write) against loglab's appendBatch
 * (sync: records encoded into its write buffer, one write) of the same 100 messages, under
 * `none`, each on a fresh log per round. Both logs take Kafka's 1 GiB segments and a round
 * appends a fixed count of batches that stays inside the first one: this compares the append
 * path, not rolls (the batched log syncs a sealed segment on the event loop, loglab's log on
 * the thread pool under none: docs/storage.md), which at these rates would come every second.
 */
export async function kafkaAppendMetrics(
  ctx: LabContext,
  rounds: number,
  seconds: number,
): Promise<Metric[]> {
  const bodies = batchInput(ctx, 'none').records.map((record) => record.value!);
  const inputs = bodies.map((value) => ({ value }));
  const batchBytes = RECORDS_PER_BATCH * BODY_BYTES;
  const own = new Measurement('kafka.append.own', 'sync');
  const kafka = new Measurement('kafka.append.batched', 'async');
  const budget = { ops: Math.max(50, Math.round(seconds * BATCHES_PER_SECOND)) };
  const warmup = { ops: Math.max(5, Math.round(budget.ops * WARMUP_SHARE)) };
  const options = { durability: 'none', segmentBytes: APPEND_SEGMENT_BYTES } as const;
  const results = await interleave(
    rounds,
    [
      {
        name: 'own',
        round: async (round: number) => {
          const dir = roundDir(ctx, 'own-batched', round);
          const log = Log.open(dir, options);
          const append = () => log.appendBatchNoWait(bodies);
          warmUpSync(own, append, warmup);
          const rate = measureSync(own, append, budget).ratePerSec;
          await log.close();
          fs.rmSync(dir, { recursive: true });
          return rate;
        },
      },
      {
        name: 'kafka',
        round: async (round: number) => {
          const dir = roundDir(ctx, 'kafka-batched', round);
          const log = BatchedLog.open(dir, options);
          const append = async () => (await log.appendBatch(inputs)).lastOffset;
          await warmUpAsync(kafka, append, warmup);
          const rate = (await measureAsync(kafka, append, budget)).ratePerSec;
          await log.close();
          fs.rmSync(dir, { recursive: true });
          return rate;
        },
      },
    ],
    ctx.progress,
  );
  const ownRates = results.get('own')!;
  const kafkaRates = results.get('kafka')!;
  const labels = { ...LABELS, policy: 'none', segmentBytes: APPEND_SEGMENT_BYTES };
  const bytes = (rates: number[]) => rates.map((rate) => rate * batchBytes);
  return [
    metricFromSamples('kafka.append.batch100.none.bytesPerSec', 'B/s', bytes(kafkaRates), {
      random: ctx.random,
      ...RATE,
      labels,
      description:
        'BatchedLog.appendBatch of 100 ' +
        'messages of 1 KiB, no compression: message bytes per second',
    }),
    metricFromSamples(
      'kafka.append.batch100.none.ownLogBatchedBytesPerSec',
      'B/s',
      bytes(ownRates),
      {
        random: ctx.random,
        ...RATE,
        labels,
        description:
          "loglab's Log.appendBatch of the same 100 messages: message bytes per " + 'second',
      },
    ),
    metricFromSamples(
      'kafka.append.batch100.none.vsOwnLogBatched',
      'ratio',
      kafkaRates.map((rate, i) => rate / ownRates[i]!),
      {
        random: ctx.random,
        ...RATE,
        ratio: true,
        labels,
        description:
          "the batched log's appendBatch over loglab's appendBatch of the " +
          'same messages, per paired round of a fixed count of batches inside one 1 GiB ' +
          "segment (async against sync: each log's own call)",
      },
    ),
  ];
}
