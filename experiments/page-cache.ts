/**
 * The page cache (the course, lesson 2, "The Page Cache: Why Recent Reads Never Touch the Disk"):
 * what a write into memory costs, and when a read touches the disk. In interleaved rounds on one
 * log (durability `none`): appends; reads of a record just appended; reads of old records whose
 * pages were just read (warm); and reads of other old records the page cache cannot answer (cold:
 * read right after a drop, or with O_DIRECT). /proc/self/io's rchar against read_bytes, per phase,
 * shows which reads came from memory.
 *
 * Old records are spread through the log far enough apart that the kernel's readahead around one
 * cold read does not warm the next; warm and cold reads take the same kind of offsets, so only
 * the cache differs. The course's checkout account closes it: the append's share of a 300 ms
 * checkout, on this disk.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  type Budget,
  ColdReadFileIO,
  type Experiment,
  type LabContext,
  type Labels,
  Measurement,
  type Metric,
  PhaseTotals,
  type Prediction,
  type Results,
  type SyncOperation,
  formatFigure,
  interleave,
  measureSync,
  pageCacheProof,
  phaseCounters,
  warmUpSync,
} from '../lab/index.js';
import { KiB, Log, MiB, recordSizeBytes } from '../storage/index.js';
import { PAGE_CACHE_CHARTS, PAGE_CACHE_METRICS } from './metrics/page-cache.js';

type ReadKind = 'append' | 'recent' | 'old-warm' | 'old-cold';
const KINDS: readonly ReadKind[] = ['append', 'recent', 'old-warm', 'old-cold'];

/** The course's checkout after the email moved onto a queue. */
const COURSE_CHECKOUT_MS = 300;
/** The course's append into the page cache: a median on one laptop (Apple M1 Max, macOS). */
const COURSE_APPEND_MS = 0.004;
/** Recent reads go to one of the last records appended. */
const RECENT_RECORDS = 16;
/** Old records this far apart do not share the kernel's readahead (128 KiB by default). */
const COLD_SPACING_BYTES = 256 * KiB;
const MEASURED_SHARE = 0.5;
const SHORTEST_PHASE_SECONDS = 0.02;
const APPEND_BATCH = 256;

interface Plan {
  readonly log: Log;
  /** The log's FileIO: O_DIRECT reads during a cold round when the cache cannot be dropped. */
  readonly io: ColdReadFileIO;
  readonly body: Buffer;
  /** Per round: old offsets read warm, and others read cold. */
  readonly warm: number[][];
  readonly cold: number[][];
  readonly measurements: Map<ReadKind, Measurement>;
  readonly totals: Map<ReadKind, PhaseTotals>;
  coldAvailable: boolean;
}

function fillLog(log: Log, body: Buffer, logBytes: number): void {
  const records = Math.ceil(logBytes / recordSizeBytes(body.length));
  const batch = Array.from({ length: APPEND_BATCH }, () => body);
  for (let written = 0; written < records; written += APPEND_BATCH) log.appendBatchNoWait(batch);
}

/** Offsets spread evenly through the filled log, alternately warm and cold, shuffled per round. */
function spreadOffsets(ctx: LabContext, records: number, rounds: number, perRound: number) {
  const slots = rounds * perRound * 2;
  const stride = Math.floor(records / slots);
  const spacingBytes = stride * recordSizeBytes(ctx.numberParam('messageBytes'));
  if (spacingBytes < COLD_SPACING_BYTES) {
    ctx.note(
      `old records are only ${spacingBytes} bytes apart, less than readahead can reach; ` +
        'a larger logBytes keeps cold reads cold',
    );
  }
  const offsets = Array.from({ length: slots }, (_, i) => i * stride + ctx.random.nextInt(stride));
  const warm: number[][] = [];
  const cold: number[][] = [];
  for (let round = 0; round < rounds; round++) {
    const base = round * perRound * 2;
    const take = (parity: number) =>
      Array.from({ length: perRound }, (_, i) => offsets[base + i * 2 + parity] as number);
    warm.push(take(0));
    cold.push(take(1));
  }
  return { warm, cold };
}

function openPlan(ctx: LabContext): Plan {
  const dir = path.join(ctx.dir, 'log');
  fs.mkdirSync(dir, { recursive: true });
  const io = new ColdReadFileIO();
  const log = Log.open(dir, { durability: 'none', io });
  const body = Buffer.alloc(ctx.numberParam('messageBytes'));
  ctx.random.fillBytes(body);
  fillLog(log, body, ctx.numberParam('logBytes'));
  const rounds = ctx.numberParam('rounds');
  const { warm, cold } = spreadOffsets(ctx, log.endOffset, rounds, ctx.numberParam('oldReads'));
  const cache = (kind: ReadKind) => (kind === 'old-cold' ? 'cold' : 'warm');
  return {
    log,
    io,
    body,
    warm,
    cold,
    coldAvailable: true,
    measurements: new Map(
      KINDS.map((kind) => [
        kind,
        new Measurement(`page-cache.${kind}`, 'sync', {
          readKind: kind,
          cache: cache(kind),
          policy: 'none',
        }),
      ]),
    ),
    totals: new Map(KINDS.map((kind) => [kind, new PhaseTotals()])),
  };
}

function measurementOf(plan: Plan, kind: ReadKind): Measurement {
  return plan.measurements.get(kind) as Measurement;
}

interface KindRound {
  /** Untimed preparation; false when the kind cannot be measured (no way to read cold). */
  prepare(): boolean;
  /** Untimed, after the round: ends a cold phase. */
  finish?(): void;
  readonly op: SyncOperation;
  readonly budget: Budget;
}

function kindRound(ctx: LabContext, plan: Plan, kind: ReadKind, index: number, seconds: number) {
  const { log } = plan;
  const readBody = (offset: number) => log.read(offset).body.length;
  const recent = (i: number) => readBody(log.endOffset - 1 - (i % RECENT_RECORDS));
  // Every round reads each of its old offsets once, so `i` modulo their count walks them.
  const old =
    (offsets: readonly number[]): SyncOperation =>
    (i) =>
      readBody(offsets[i % offsets.length] as number);
  const warm = plan.warm[index] ?? [];
  const cold = plan.cold[index] ?? [];
  let endCold = (): void => undefined;
  const startCold = (): boolean => {
    if (!plan.coldAvailable) return false;
    const reads = ctx.startColdReads([plan.io]);
    if (reads.method === null) return (plan.coldAvailable = false);
    endCold = reads.end;
    return true;
  };
  const rounds: Record<ReadKind, KindRound> = {
    append: { prepare: () => true, op: () => log.appendNoWait(plan.body), budget: { seconds } },
    recent: {
      prepare: () => {
        warmUpSync(measurementOf(plan, kind), recent, { ops: RECENT_RECORDS });
        return true;
      },
      op: recent,
      budget: { seconds },
    },
    'old-warm': {
      prepare: () => warm.every((offset) => readBody(offset) >= 0),
      op: old(warm),
      budget: { ops: warm.length },
    },
    'old-cold': {
      prepare: startCold,
      finish: () => endCold(),
      op: old(cold),
      budget: { ops: cold.length },
    },
  };
  return rounds[kind];
}

/** One round of one kind; false when it cannot be measured here. */
function round(ctx: LabContext, plan: Plan, kind: ReadKind, index: number, seconds: number) {
  const planned = kindRound(ctx, plan, kind, index, seconds);
  if (!planned.prepare()) return false;
  const phase = ctx.ioPhase(plan.io);
  measureSync(measurementOf(plan, kind), planned.op, planned.budget);
  plan.totals.get(kind)?.add(phase.end());
  planned.finish?.();
  return true;
}

/** The whole process's /proc/self/io, and what the cache held: where reads were served. */
function proofMetrics(plan: Plan, kind: ReadKind, ops: number, labels: Labels): Metric[] {
  const total = plan.totals.get(kind)?.total ?? null;
  const proof = total === null ? null : pageCacheProof(total);
  if (proof === null || kind === 'append') return [];
  const prefix = `page-cache.${kind}`;
  const M = PAGE_CACHE_METRICS;
  return [
    M.logicalReadBytesPerRead.measured(
      `${prefix}.logicalReadBytesPerRead`,
      proof.logicalReadBytes / ops,
      labels,
      '/proc/self/io rchar per read: bytes the read syscalls returned',
    ),
    M.deviceReadBytesPerRead.measured(
      `${prefix}.deviceReadBytesPerRead`,
      proof.deviceReadBytes / ops,
      labels,
      '/proc/self/io read_bytes per read: bytes the disk had to supply',
    ),
    M.servedFromMemory.measured(
      `${prefix}.servedFromMemory`,
      proof.servedFromMemoryFraction,
      labels,
      '1 - read_bytes / rchar: the share of what was read that came from memory',
    ),
  ];
}

/** Old records are read a fixed count per round, at seeded offsets: the bytes are the code's. */
const FIXED_READS: readonly ReadKind[] = ['old-warm', 'old-cold'];

/** Bytes the log asked its FileIO for per read (the cold path's O_DIRECT pages not counted). */
function logReadMetrics(plan: Plan, kind: ReadKind, ops: number, labels: Labels): Metric[] {
  const fileIo = plan.totals.get(kind)?.total?.fileIo ?? null;
  if (fileIo === null || !FIXED_READS.includes(kind)) return [];
  return [
    PAGE_CACHE_METRICS.logReadBytesPerRead.counter(
      `page-cache.${kind}.logReadBytesPerRead`,
      fileIo.readBytes / ops,
      labels,
      "bytes the log's reads asked its FileIO for per record read: the offset index and the " +
        'read window',
    ),
  ];
}

function kindMetrics(ctx: LabContext, plan: Plan, kind: ReadKind): Metric[] {
  const measurement = measurementOf(plan, kind);
  if (measurement.repetitions.length === 0) return [];
  const summary = measurement.summarize(ctx.random);
  // The measurement's labels, without the runner's `mode`: every phase here is sync.
  const labels = { ...measurement.labels };
  const latency = PAGE_CACHE_METRICS.latencyNs.adopt(
    `page-cache.${kind}.latencyNs`,
    summary.latencyNs,
    labels,
  );
  return [
    latency,
    ...proofMetrics(plan, kind, summary.ops, labels),
    ...logReadMetrics(plan, kind, summary.ops, labels),
  ];
}

function checkoutMetric(plan: Plan): Metric {
  const medians = measurementOf(plan, 'append').repetitions.map((rep) => rep.latencyNsP50);
  const shares = medians.map((ns) => (100 * ns) / (COURSE_CHECKOUT_MS * 1e6));
  return PAGE_CACHE_METRICS.appendSharePct.fromSamples(
    'page-cache.checkout.appendSharePct',
    shares,
    { readKind: 'append', cache: 'warm' },
    `the median append's share of the course's ${COURSE_CHECKOUT_MS} ms checkout, per round`,
  );
}

function coursePredictions(): Prediction[] {
  return [
    {
      name: 'page-cache.append.latencyNs',
      model: 'course',
      unit: 'ns',
      value: COURSE_APPEND_MS * 1e6,
      labels: { readKind: 'append' },
      basis: 'the course: median of 100,000 1 KB appends with write() on one laptop (M1 Max)',
    },
    {
      name: 'page-cache.checkout.appendSharePct',
      model: 'course',
      unit: '%',
      value: (100 * COURSE_APPEND_MS) / COURSE_CHECKOUT_MS,
      labels: { readKind: 'append' },
      basis: `the course: ${COURSE_APPEND_MS} ms of a ${COURSE_CHECKOUT_MS} ms checkout`,
    },
  ];
}

function headline(metrics: readonly Metric[]): string {
  const median = (name: string) => metrics.find((metric) => metric.name === name)?.median;
  const us = (name: string) => `${formatFigure((median(name) ?? Number.NaN) / 1e3)} µs`;
  const share = formatFigure(median('page-cache.checkout.appendSharePct') ?? Number.NaN);
  const cold = median('page-cache.old-cold.latencyNs');
  const coldPart =
    cold === undefined
      ? 'cold figures were unavailable'
      : `${formatFigure(cold / 1e3)} µs cold, where the page cache could not answer`;
  return (
    `An append into the page cache took ${us('page-cache.append.latencyNs')} (the course: ` +
    `about 4 µs on a laptop), ${share}% of a ${COURSE_CHECKOUT_MS} ms checkout; a recent record ` +
    `read back in ${us('page-cache.recent.latencyNs')}, an old one in ` +
    `${us('page-cache.old-warm.latencyNs')} warm and ${coldPart}.`
  );
}

const NOTES: readonly string[] = [
  'Durability none throughout: appends return once the bytes are in the page cache. Every ' +
    'figure is labelled with its cache state; cold means the page cache could not answer: read ' +
    'right after dropping it (which empties it for the whole machine), or with O_DIRECT where ' +
    'that is not allowed — a note says which.',
  'A read goes through the offset index and an 8 KiB read window, so rchar per read is the ' +
    'window, not the 1 KiB record; read_bytes per read is what the disk supplied, readahead ' +
    'included, and may exceed rchar.',
  'The checkout account: the course puts an append at 0.004 ms of a 300 ms checkout, about ' +
    "0.001%; the same share is computed here from this disk's median append.",
];

export async function run(ctx: LabContext): Promise<Results> {
  const rounds = ctx.numberParam('rounds');
  ctx.ensureFreeSpace(2 * ctx.numberParam('logBytes'));
  const plan = openPlan(ctx);
  try {
    const seconds = Math.max(
      SHORTEST_PHASE_SECONDS,
      (ctx.secondsBudget * MEASURED_SHARE) / (rounds * 2),
    );
    await interleave(
      rounds,
      KINDS.map((kind) => ({
        name: kind,
        round: (index: number) => round(ctx, plan, kind, index, seconds),
      })),
      ctx.progress,
    );
    const metrics = [
      ...KINDS.flatMap((kind) => kindMetrics(ctx, plan, kind)),
      checkoutMetric(plan),
    ];
    const counters: Record<string, number> = {};
    for (const [kind, totals] of plan.totals) {
      if (totals.total !== null) Object.assign(counters, phaseCounters(totals.total, kind));
    }
    return ctx.results({
      metrics,
      counters,
      predictions: coursePredictions(),
      headline: headline(metrics),
      notes: NOTES,
    });
  } finally {
    await plan.log.close();
  }
}

export const experiment: Experiment = {
  id: 'page-cache',
  question: 'what does a write into memory cost, and when does a read touch the disk?',
  params: {
    messageBytes: { quick: 1024, full: 1024 },
    logBytes: { quick: 32 * MiB, full: 256 * MiB },
    oldReads: { quick: 16, full: 64 },
    rounds: { quick: 3, full: 10 },
  },
  seed: 45,
  metrics: PAGE_CACHE_METRICS,
  charts: PAGE_CACHE_CHARTS,
  run,
};
