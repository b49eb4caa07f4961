/**
 * The regression suite `loglab ci` runs: a small, fixed workload whose figures are the storage
 * core's own counters (FileIO write and sync calls, bytes, index sizes, lookup walks, recovery),
 * never device statistics or times, so the same code gives the same document on any machine,
 * however busy. A change that makes the core write one more byte per message changes a figure
 * here, and `loglab ci` fails on it.
 *
 * - Each design (A: slot file, B: log queue) under `none` and `always`: send N messages, then
 *   receive and delete them all and close; per message: write calls, bytes written, fdatasyncs,
 *   directory fsyncs, bytes read.
 * - The log under group commit: write calls and fdatasyncs per message at 16 producers.
 * - The log alone (sparse and dense index): index bytes per MiB of log, then after a clean close
 *   the bytes recovery walked (0), and for every lookup the comparisons and bytes stepped
 *   (Log.explainLookup) and the bytes a read of it costs.
 *
 * The queues send 1,000-byte bodies (a 1 KiB slot's worth); the log's bodies are drawn from the
 * experiment's seed; the clock is fixed, so no deadline or checkpoint
 * depends on how fast the machine is. Not registered for `loglab run`: it measures code, not a
 * disk, and `loglab ci` runs it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Experiment, LabContext, Labels, Metric, Results } from '../lab/index.js';
import {
  type DurabilityPolicy,
  type FileIOCounters,
  Log,
  LogQueue,
  MiB,
  NodeFileIO,
  type Queue,
  type QueueClock,
  SlotFileQueue,
} from '../storage/index.js';
import { CI_COUNTERS_METRICS } from './metrics/ci-counters.js';

const POLICIES: readonly DurabilityPolicy[] = ['none', 'always'];
/** Deadlines and checkpoints read this clock; fixed, so none depends on the machine's speed. */
const FIXED_CLOCK: QueueClock = { nowMs: () => 0 };
const VISIBILITY_TIMEOUT_MS = 60_000;

type Design = 'A' | 'B';

function openQueue(
  ctx: LabContext,
  design: Design,
  dir: string,
  policy: DurabilityPolicy,
  io: NodeFileIO,
): Queue {
  const options = { durability: policy, clock: FIXED_CLOCK, io };
  return design === 'A'
    ? SlotFileQueue.open(dir, { ...options, slotBytes: 1024 }) // the 1 KiB slot the figures use
    : LogQueue.open(dir, { ...options, segmentBytes: ctx.numberParam('segmentBytes') });
}

/** Bodies of 1 to `maxBytes` bytes drawn from the seed: lookups step over uneven records. */
function bodies(ctx: LabContext, count: number, maxBytes: number): Buffer[] {
  const random = ctx.random.fork();
  return Array.from({ length: count }, () => Buffer.alloc(1 + random.nextInt(maxBytes), 0x61));
}

function perMessageMetrics(
  prefix: string,
  labels: Labels,
  io: FileIOCounters,
  messages: number,
): Metric[] {
  const metric = (quantity: keyof typeof CI_COUNTERS_METRICS, value: number) =>
    CI_COUNTERS_METRICS[quantity].counter(`${prefix}.${quantity}`, value / messages, labels);
  return [
    metric('writeCallsPerMsg', io.writeCalls),
    metric('writeBytesPerMsg', io.writeBytes),
    metric('fdatasyncsPerMsg', io.fdatasyncCalls),
    metric('dirFsyncsPerMsg', io.dirFsyncCalls),
    metric('readBytesPerMsg', io.readBytes),
  ];
}

async function queueMetrics(
  ctx: LabContext,
  design: Design,
  policy: DurabilityPolicy,
): Promise<Metric[]> {
  const dir = path.join(ctx.dir, `queue-${design}-${policy}`);
  fs.mkdirSync(dir);
  const messages = ctx.numberParam(policy === 'none' ? 'messages' : 'syncedMessages');
  const bodyBytes = ctx.numberParam('queueBodyBytes');
  const payloads = Array.from({ length: messages }, () => Buffer.alloc(bodyBytes, 0x61));
  const io = new NodeFileIO();
  const queue = openQueue(ctx, design, dir, policy, io);
  const send = ctx.ioPhase(io);
  for (const body of payloads) await queue.send(body);
  const sent = send.end().fileIo!;
  const consume = ctx.ioPhase(io);
  const receive = () => queue.receive({ visibilityTimeoutMs: VISIBILITY_TIMEOUT_MS });
  for (let received = receive(); received !== null; received = receive()) {
    await queue.delete(received.id);
  }
  await queue.close();
  const consumed = consume.end().fileIo!;
  const prefix = `ci.${design}.${policy}`;
  const labels = { design, policy };
  return [
    ...perMessageMetrics(`${prefix}.send`, { ...labels, phase: 'send' }, sent, messages),
    ...perMessageMetrics(`${prefix}.consume`, { ...labels, phase: 'consume' }, consumed, messages),
  ];
}

function filesBytes(dir: string, suffix: string): number {
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith(suffix))
    .reduce((sum, name) => sum + fs.statSync(path.join(dir, name)).size, 0);
}

/** Lookups of every `lookupStride`-th record of a reopened log: the walk, then a plain read. */
function lookupMetrics(log: Log, stride: number, prefix: string, labels: Labels): Metric[] {
  const offsets: number[] = [];
  for (let offset: number = log.startOffset; offset < log.endOffset; offset += stride) {
    offsets.push(offset);
  }
  let comparisons = 0;
  let stepBytes = 0;
  for (const offset of offsets) {
    const walk = log.explainLookup(offset);
    comparisons += walk.comparisons;
    stepBytes += walk.stepForwardBytes;
  }
  const { counters } = log.config.io;
  const before = { ...counters };
  for (const offset of offsets) log.read(offset);
  const metric = (quantity: keyof typeof CI_COUNTERS_METRICS, value: number) =>
    CI_COUNTERS_METRICS[quantity].counter(`${prefix}.${quantity}`, value / offsets.length, labels);
  return [
    metric('comparisonsPerLookup', comparisons),
    metric('stepBytesPerLookup', stepBytes),
    metric('readCallsPerLookup', counters.readCalls - before.readCalls),
    metric('readBytesPerLookup', counters.readBytes - before.readBytes),
  ];
}

function logMetrics(ctx: LabContext, intervalBytes: number): Metric[] {
  const dir = path.join(ctx.dir, `log-${intervalBytes}`);
  const segmentBytes = ctx.numberParam('segmentBytes');
  const options = {
    durability: 'none',
    segmentBytes,
    indexIntervalBytes: intervalBytes,
    nowMs: () => 0,
  } as const;
  const log = Log.open(dir, { ...options, io: new NodeFileIO() });
  const records = bodies(ctx, ctx.numberParam('logRecords'), ctx.numberParam('maxBodyBytes'));
  for (const body of records) log.appendNoWait(body);
  void log.close();
  const logMiB = filesBytes(dir, '.log') / MiB;
  const prefix = `ci.log.${intervalBytes === 0 ? 'dense' : 'sparse'}`;
  const labels = { intervalBytes };
  const reopened = Log.open(dir, { ...options, io: new NodeFileIO() });
  const M = CI_COUNTERS_METRICS;
  try {
    return [
      M.indexBytesPerMiB.counter(
        `${prefix}.indexBytesPerMiB`,
        filesBytes(dir, '.index') / logMiB,
        labels,
      ),
      M.timeIndexBytesPerMiB.counter(
        `${prefix}.timeIndexBytesPerMiB`,
        filesBytes(dir, '.timeindex') / logMiB,
        labels,
      ),
      M.recoveryScannedBytes.counter(
        `${prefix}.recoveryScannedBytes`,
        reopened.recovery.scannedBytes,
        { ...labels, state: 'clean' },
        'bytes recovery walked after a clean close: must stay 0',
      ),
      ...lookupMetrics(reopened, ctx.numberParam('lookupStride'), prefix, labels),
    ];
  } finally {
    void reopened.close();
  }
}

/**
 * The log under group commit: rounds of `groupProducers` appends made in one turn, each round
 * acknowledged by one write and one fdatasync (the first round also zero-fills the segment).
 */
async function groupMetrics(ctx: LabContext): Promise<Metric[]> {
  const io = new NodeFileIO();
  const segmentBytes = ctx.numberParam('segmentBytes');
  const log = Log.open(path.join(ctx.dir, 'log-group'), {
    durability: 'group',
    segmentBytes,
    nowMs: () => 0,
    io,
  });
  const producers = ctx.numberParam('groupProducers');
  const rounds = ctx.numberParam('groupRounds');
  const body = Buffer.alloc(ctx.numberParam('queueBodyBytes'), 0x61);
  await Promise.all(Array.from({ length: producers }, () => log.append(body)));
  const phase = ctx.ioPhase(io);
  for (let round = 0; round < rounds; round++) {
    await Promise.all(Array.from({ length: producers }, () => log.append(body)));
  }
  const counters = phase.end().fileIo!;
  await log.close();
  const labels = { policy: 'group', producers };
  const per = (value: number) => value / (rounds * producers);
  const M = CI_COUNTERS_METRICS;
  return [
    // One turn's appends share one write and one fdatasync, and the clock is fixed: exact.
    M.writeCallsPerMsg.counter('ci.log.group.writeCallsPerMsg', per(counters.writeCalls), labels),
    M.fdatasyncsPerMsg.counter(
      'ci.log.group.fdatasyncsPerMsg',
      per(counters.fdatasyncCalls),
      labels,
    ),
  ];
}

async function run(ctx: LabContext): Promise<Results> {
  const metrics: Metric[] = [];
  for (const design of ['A', 'B'] as const) {
    for (const policy of POLICIES) metrics.push(...(await queueMetrics(ctx, design, policy)));
  }
  metrics.push(...logMetrics(ctx, ctx.numberParam('indexIntervalBytes')), ...logMetrics(ctx, 0));
  metrics.push(...(await groupMetrics(ctx)));
  return ctx.results({
    metrics,
    notes: ['FileIO counters of the storage core: the same code gives the same figures anywhere'],
  });
}

/** The same parameters quick or full: the suite is fixed so its figures can be compared. */
const fixed = (value: number) => ({ quick: value, full: value });

export const experiment: Experiment = {
  id: 'ci-counters',
  question:
    'how many writes, bytes and fsyncs does the storage core spend per message, ' +
    'and how far does a lookup step?',
  params: {
    messages: fixed(512),
    syncedMessages: fixed(64),
    // The course's 1 KiB slot holds a body of 1,004 bytes after its 20-byte header.
    queueBodyBytes: fixed(1000),
    maxBodyBytes: fixed(2048),
    segmentBytes: fixed(MiB),
    indexIntervalBytes: fixed(4096),
    logRecords: fixed(4096),
    lookupStride: fixed(7),
    groupProducers: fixed(16),
    groupRounds: fixed(32),
  },
  seed: 42,
  metrics: CI_COUNTERS_METRICS,
  run,
};
