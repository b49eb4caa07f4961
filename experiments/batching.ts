/**
 * Batching (issue 16; the Kafka storage text, ../shared/seeds/004_bb62643935f5b191.txt): how much
 * do batches and compression save? The same messages — 1 KiB and 200 B, JSON events that compress
 * as real ones do and random bytes that do not — go through loglab's log (one record per append,
 * and appendBatch) and through Kafka v2 batches in the batched log, at several batch sizes and with
 * every codec, under `none` and with one fdatasync per batch (`always`). Every series runs in every
 * round, interleaved, so drift falls on all of them alike. Beside the timed appends: CPU per
 * message to encode and decode, and a fixed set of messages per store for what the code decides
 * exactly (bytes written, index size, compression) and for the cost of reading one record back out
 * of a batch.
 */
import * as path from 'node:path';
import {
  EXOS_X20,
  type Experiment,
  type LabContext,
  type Metric,
  type Prediction,
  type Results,
  SAMSUNG_990_PRO,
  WARM_UP_SHARE_OF_ROUND,
  estimatePrediction,
  estimateTrace,
  interleave,
} from '../lab/index.js';
import { KAFKA_COMPRESSIONS, type KafkaCompression, MiB } from '../storage/index.js';
import { assert } from '../storage/testing/index.js';
import { BATCHING_CHARTS, BATCHING_METRICS as M } from './metrics/batching.js';
import { BODY_KINDS, type BodyKind, bodyPool } from './support/batching-bodies.js';
import {
  type AppendPolicy,
  AppendSeries,
  type SeriesSpec,
  STORE_LABELS,
  type Workload,
  seriesLabels,
  seriesPrefix,
} from './support/batching-appends.js';
import { CpuSeries } from './support/batching-cpu.js';
import { ReadSeries } from './support/batching-reads.js';
import { headline, notes } from './support/batching-text.js';

/** Lookups of the fixed logs go to this many seeded offsets, the same for every store. */
const LOOKUP_OFFSETS = 64;
/** Timestamp of the CPU phase's batches: a fixed time keeps their bytes the same every run. */
const CPU_BATCH_TIMESTAMP_MS = 1_764_547_200_000;

function listParam(ctx: LabContext, name: string): string[] {
  return ctx
    .stringParam(name)
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function numbersParam(ctx: LabContext, name: string): number[] {
  return listParam(ctx, name).map((item) => {
    const value = Number(item);
    assert(Number.isSafeInteger(value) && value > 0, `${name}: ${item} is not a positive integer`);
    return value;
  });
}

function codecsParam(ctx: LabContext): KafkaCompression[] {
  return listParam(ctx, 'codecs').map((codec) => {
    assert(KAFKA_COMPRESSIONS.includes(codec as KafkaCompression), `codecs: ${codec} is unknown`);
    return codec as KafkaCompression;
  });
}

interface Plan {
  readonly workloads: readonly Workload[];
  readonly batchSizes: readonly number[];
  readonly codecs: readonly KafkaCompression[];
  readonly policies: readonly AppendPolicy[];
}

function workloadOf(ctx: LabContext, messageBytes: number, body: BodyKind): Workload {
  const pool = bodyPool(ctx.random.fork(), body, messageBytes);
  const bodiesTwice = [...pool, ...pool];
  return {
    messageBytes,
    body,
    bodiesTwice,
    poolSize: pool.length,
    inputsTwice: bodiesTwice.map((value) => ({ value })),
  };
}

function planOf(ctx: LabContext): Plan {
  const bodies = listParam(ctx, 'bodies').map((body) => {
    assert(BODY_KINDS.includes(body as BodyKind), `bodies: ${body} is unknown`);
    return body as BodyKind;
  });
  const policies = listParam(ctx, 'policies').map((policy) => {
    assert(policy === 'none' || policy === 'always', `policies: ${policy} is none or always`);
    return policy as AppendPolicy;
  });
  const workloads = numbersParam(ctx, 'messageBytes').flatMap((bytes) =>
    bodies.map((body) => workloadOf(ctx, bytes, body)),
  );
  return {
    workloads,
    batchSizes: numbersParam(ctx, 'batchSizes'),
    codecs: codecsParam(ctx),
    policies,
  };
}

/** loglab one record per append; loglab appendBatch past 1; Kafka batches by codec. */
function seriesSpecs(plan: Plan, workload: Workload): SeriesSpec[] {
  const specs: SeriesSpec[] = [{ workload, store: 'append', codec: 'none', batchSize: 1 }];
  for (const batchSize of plan.batchSizes) {
    if (batchSize > 1) specs.push({ workload, store: 'appendBatch', codec: 'none', batchSize });
    for (const codec of plan.codecs) specs.push({ workload, store: 'kafka', codec, batchSize });
  }
  return specs;
}

/** Stores whose encoding and reads differ: loglab's records once, Kafka's per batch size. */
function fixedSpecs(plan: Plan): SeriesSpec[] {
  return plan.workloads.flatMap((workload) =>
    seriesSpecs(plan, workload).filter((spec) => spec.store !== 'appendBatch'),
  );
}

function appendSeriesOf(ctx: LabContext, plan: Plan): AppendSeries[] {
  const series: AppendSeries[] = [];
  for (const workload of plan.workloads) {
    for (const policy of plan.policies) {
      for (const spec of seriesSpecs(plan, workload)) {
        const appendSpec = { ...spec, policy };
        const dir = path.join(ctx.dir, 'appends', seriesPrefix(spec, policy));
        series.push(AppendSeries.open(appendSpec, dir));
      }
    }
  }
  return series;
}

async function appendPhase(ctx: LabContext, series: readonly AppendSeries[]): Promise<void> {
  const seconds = ctx.numberParam('roundSeconds');
  const cap = ctx.numberParam('roundMessages');
  for (const one of series) {
    const warm = await one.warmUp(
      seconds * WARM_UP_SHARE_OF_ROUND,
      Math.max(one.spec.batchSize, Math.round(cap * WARM_UP_SHARE_OF_ROUND)),
    );
    ctx.recordWarmUp(one.prefix.replace(/^batching\./, ''), warm);
  }
  await interleave(
    ctx.numberParam('rounds'),
    series.map((one) => ({
      name: one.prefix,
      round: () => one.round(ctx, seconds, cap),
    })),
    ctx.progress,
  );
}

function appendMetrics(series: readonly AppendSeries[]): Metric[] {
  const metrics: Metric[] = [];
  for (const one of series) {
    metrics.push(
      M.msgsPerSec.fromSamples(
        `${one.prefix}.msgsPerSec`,
        one.rates,
        one.labels,
        `messages appended per second, one sample per round (${STORE_LABELS[one.spec.store]}, ` +
          `${one.spec.batchSize} a call, ${one.spec.policy}; the flush ending the round untimed)`,
      ),
    );
    const device = one.totals.total?.device;
    if (device != null && one.messagesMeasured > 0) {
      metrics.push(
        M.deviceBytesPerMsg.measured(
          `${one.prefix}.deviceBytesPerMsg`,
          device.writeBytes / one.messagesMeasured,
          one.labels,
          "bytes the disk wrote per message (its stat, the whole disk's), each round ending " +
            'with a flush of the log',
        ),
      );
    }
  }
  return [...metrics, ...ratioMetrics(series)];
}

/** Each series over loglab's one-record appends of the same messages, round by round. */
function ratioMetrics(series: readonly AppendSeries[]): Metric[] {
  const single = new Map(
    series
      .filter((one) => one.spec.store === 'append')
      .map((one) => [
        `${one.spec.workload.body}.${one.spec.workload.messageBytes}.${one.spec.policy}`,
        one,
      ]),
  );
  return series
    .filter((one) => one.spec.store !== 'append')
    .map((one) => {
      const key = `${one.spec.workload.body}.${one.spec.workload.messageBytes}.${one.spec.policy}`;
      const base = single.get(key);
      assert(base !== undefined, `batching: no one-record series for ${key}`);
      const ratios = one.rates.map((rate, i) => rate / (base.rates[i] ?? Number.NaN));
      return M.vsAppend.fromSamples(
        `${one.prefix}.vsAppend`,
        ratios,
        one.labels,
        `messages per second over ${base.prefix}.msgsPerSec, the same messages appended one ` +
          'record per call, paired round by round',
      );
    });
}

function appendPredictions(series: readonly AppendSeries[], metrics: readonly Metric[]) {
  const names = new Set(metrics.map((metric) => metric.name));
  const predictions: Prediction[] = [];
  for (const one of series) {
    if (one.messagesMeasured === 0) continue;
    for (const model of [EXOS_X20, SAMSUNG_990_PRO]) {
      const estimate = estimateTrace(one.measuredTrace(), model);
      const rate = estimatePrediction(
        `${one.prefix}.msgsPerSec`,
        estimate,
        one.messagesMeasured,
        one.labels,
      );
      predictions.push({ ...rate, unit: 'msgs/s' });
      if (!names.has(`${one.prefix}.deviceBytesPerMsg`)) continue;
      predictions.push({
        ...rate,
        name: `${one.prefix}.deviceBytesPerMsg`,
        unit: 'B/msg',
        value: estimate.deviceBytes / one.messagesMeasured,
      });
    }
  }
  return predictions;
}

async function cpuPhase(ctx: LabContext, plan: Plan): Promise<Metric[]> {
  const specs = fixedSpecs(plan);
  const series = await Promise.all(
    specs.map((spec) => CpuSeries.open(spec, CPU_BATCH_TIMESTAMP_MS)),
  );
  const seconds = ctx.numberParam('cpuSeconds');
  for (const one of series) await one.round(seconds);
  await interleave(
    ctx.numberParam('rounds'),
    series.map((one) => ({
      name: `${seriesPrefix(one.spec)}.cpu`,
      round: () => one.round(seconds),
    })),
    ctx.progress,
  );
  return series.flatMap((one) => {
    const prefix = seriesPrefix(one.spec);
    const labels = seriesLabels(one.spec);
    const what = (verb: string) =>
      `process CPU time (user + system, process.cpuUsage) to ${verb} ` +
      `batches of ${one.spec.batchSize}, per message, one sample per round`;
    // The first round, before the interleaved ones, warmed the codec up and is left out.
    return [
      M.encodeCpuNsPerMsg.fromSamples(
        `${prefix}.encodeCpuNsPerMsg`,
        one.encodeNsPerMsg.slice(1),
        labels,
        what('encode'),
      ),
      M.decodeCpuNsPerMsg.fromSamples(
        `${prefix}.decodeCpuNsPerMsg`,
        one.decodeNsPerMsg.slice(1),
        labels,
        what('decode'),
      ),
    ];
  });
}

async function readPhase(ctx: LabContext, plan: Plan): Promise<Metric[]> {
  const messages = ctx.numberParam('fixedMessages');
  const random = ctx.random.fork();
  const offsets = Float64Array.from({ length: LOOKUP_OFFSETS }, () => random.nextInt(messages));
  const series: ReadSeries[] = [];
  try {
    for (const spec of fixedSpecs(plan)) {
      const dir = path.join(ctx.dir, 'fixed', seriesPrefix(spec));
      series.push(await ReadSeries.open(spec, dir, messages, offsets));
    }
    const lookups = ctx.numberParam('lookupsPerRound');
    for (const one of series) one.round(lookups);
    await interleave(
      ctx.numberParam('rounds'),
      series.map((one) => ({
        name: `${one.prefix}.read`,
        round: () => one.round(lookups),
      })),
      ctx.progress,
    );
    return series.flatMap((one) => fixedMetrics(ctx, one, messages));
  } finally {
    for (const one of series) await one.close();
  }
}

function fixedMetrics(ctx: LabContext, one: ReadSeries, messages: number): Metric[] {
  const { prefix, labels, figures } = one;
  const fixed = `${messages} messages appended ${one.spec.batchSize} a call under none`;
  const latency = one.latencyMetric(ctx);
  return [
    M.writtenBytesPerMsg.counter(
      `${prefix}.writtenBytesPerMsg`,
      figures.writtenBytesPerMsg,
      labels,
      `bytes the code wrote per message (FileIO counters, log closed): ${fixed}`,
    ),
    M.indexBytesPerGiB.counter(
      `${prefix}.indexBytesPerGiB`,
      figures.indexBytesPerGiB,
      labels,
      `offset-index bytes per GiB of log, index interval 4,096 B: ${fixed}`,
    ),
    M.compressionRatio.counter(
      `${prefix}.compressionRatio`,
      figures.compressionRatio,
      labels,
      `message bytes over the log's bytes: ${fixed}`,
    ),
    M.readBytesPerRead.counter(
      `${prefix}.readBytesPerRead`,
      figures.readBytesPerRead,
      labels,
      `bytes one lookup read, over ${LOOKUP_OFFSETS} seeded offsets (Kafka: headers stepped and ` +
        'the whole batch; loglab: from its index entry to the end of the record)',
    ),
    M.recordsDecodedPerRead.counter(
      `${prefix}.recordsDecodedPerRead`,
      figures.recordsDecodedPerRead,
      labels,
      'records decompressed and decoded to serve one',
    ),
    {
      ...M.readLatencyNs.adopt(`${prefix}.readLatencyNs`, latency, latency.labels),
      description: `time of one warm lookup; ${latency.description ?? ''}`,
    },
  ];
}

export async function run(ctx: LabContext): Promise<Results> {
  ctx.ensureFreeSpace(1024 * MiB);
  const plan = planOf(ctx);
  const series: AppendSeries[] = [];
  try {
    series.push(...appendSeriesOf(ctx, plan));
    await appendPhase(ctx, series);
    const appends = appendMetrics(series);
    const predictions = appendPredictions(series, appends);
    for (const one of series.splice(0)) await one.close();
    const cpu = await cpuPhase(ctx, plan);
    const reads = await readPhase(ctx, plan);
    const metrics = [...appends, ...cpu, ...reads];
    return ctx.results({
      metrics,
      predictions,
      headline: headline(ctx, metrics),
      notes: notes(ctx),
    });
  } finally {
    for (const one of series) await one.close();
  }
}

export const experiment: Experiment = {
  id: 'batching',
  question: 'how much do batches and compression save?',
  params: {
    // Quick runs take one workload (the quick suite has 3 minutes; each series costs a log
    // opened, warmed, flushed every round and closed); full runs take all four.
    messageBytes: { quick: '1024', full: '1024,200' },
    bodies: { quick: 'json', full: 'json,random' },
    batchSizes: { quick: '1,100', full: '1,10,100,1000' },
    codecs: { quick: 'none,gzip,snappy,lz4,zstd', full: 'none,gzip,snappy,lz4,zstd' },
    policies: { quick: 'none,always', full: 'none,always' },
    // Ten rounds give a ratio's median an exact 95% interval ([x(2), x(9)]); quick runs are
    // reported, never gated.
    rounds: { quick: 2, full: 10 },
    roundSeconds: { quick: 0.01, full: 0.05 },
    roundMessages: { quick: 2000, full: 50_000 },
    cpuSeconds: { quick: 0.01, full: 0.05 },
    fixedMessages: { quick: 1000, full: 10_000 },
    lookupsPerRound: { quick: 20, full: 100 },
  },
  seed: 4,
  metrics: M,
  charts: BATCHING_CHARTS,
  run,
};
