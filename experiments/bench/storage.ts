/**
 * `loglab bench storage`: the storage core against the plain node:fs loop that writes the same
 * bytes, in the same run: both open side by side, taking turns of a tenth of a second through
 * every round, so drift hits both.
 *
 * Each figure names its durability policy and cache state. Sync is compared with sync (the log's
 * append is a synchronous write; the raw loop is fs.writeSync); the group-commit figure is async
 * and is compared with `always` measured async too.
 */
import { crc32c } from '@node-rs/crc32';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Experiment, LabContext } from '../../lab/experiment.js';
import { Measurement } from '../../lab/measurement.js';
import { settleMemory } from '../../lab/memory-settle.js';
import { type Direction, measuredMetric, metricFromSamples } from '../../lab/metric.js';
import {
  ClosedLoopTurns,
  TURN_SECONDS,
  measureSync,
  roundInTurns,
  takeTurns,
  warmUpSync,
} from '../../lab/runner.js';
import type { Metric } from '../../lab/results.js';
import { Log, type LogOptions, MiB } from '../../storage/index.js';
import { dropRecoveryPoint, encodeRecord } from '../../storage/testing/index.js';
import { zeroFill } from '../support/laid-out-file.js';
import { recycleToSteadyState } from '../support/steady-state.js';
import { TARGET_ROUNDS } from './targets.js';
import { fioSeqSyncMetrics } from './fio-seq-sync.js';
import { kafkaAppendMetrics, kafkaCodecMetrics } from './storage-kafka.js';
import { wroteDirectly } from '../support/direct-writes.js';
import { dropSealedSegments } from '../support/settled-retention.js';
import { buildLog, warmLookups } from './warm-lookup.js';
import { BENCH_STORAGE_METRICS } from '../metrics/bench-storage.js';

const RATE = { class: 'timing', direction: 'higher' } as const;
const BODY_BYTES = 1024;
const LOOKUPS_PER_ROUND = 100_000;
/**
 * Every side warms up for this share of its round before the clock starts: the JIT settles, and
 * a fresh log pays its one-time costs (creating the segment, zero-filling it under always and
 * group) as a long-running one would have already. Rolls inside the round stay measured.
 */
const WARMUP_SHARE = 0.1;
/**
 * Page-cache rounds settle this much memory a second of round first (lab/memory-settle.ts): more
 * than the fastest side writes in that time, unbatched and batched.
 */
const SETTLE_BYTES_PER_SEC = { unbatched: 320 * MiB, batched: 1200 * MiB } as const;

/** Settles the memory a page-cache round of `roundSeconds` (and its warm-up) will take. */
function settleForRound(dir: string, roundSeconds: number, kind: 'unbatched' | 'batched'): void {
  settleMemory(dir, Math.ceil(roundSeconds * (1 + WARMUP_SHARE) * SETTLE_BYTES_PER_SEC[kind]));
}

/** A fresh directory per round, removed after it: rounds never see each other's files. */
function roundDir(ctx: LabContext, name: string, round: number): string {
  const dir = path.join(ctx.dir, `${name}-${round}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir);
  return dir;
}

interface Pair {
  readonly log: number;
  readonly raw: number;
  /** The raw loop that also computes each record's CRC-32C, when measured. */
  readonly checksummed?: number;
}

interface PairOptions {
  readonly durability: 'none' | 'always';
  readonly preallocatedRaw: boolean;
  /** Also time the raw loop with a CRC-32C per record: the ceiling of any checksummed log. */
  readonly checksummedRaw?: boolean;
}

interface Pairs {
  readonly pairs: Pair[];
  /** The log's append latency over every measured round, p50 to max. */
  readonly logLatencyNs: Metric;
}

/** One side of a paired round, opened for the round: a synchronous append, and its clean-up. */
interface OpenSide {
  readonly append: () => number;
  close(): Promise<void> | void;
}

interface PairSide {
  readonly name: string;
  readonly measurement: Measurement;
  open(dir: string): OpenSide;
}

/**
 * Rounds of a raw-fs loop and the log doing the same appends, open side by side and taking turns
 * of a tenth of a second (lab/runner.ts takeTurns says why) after a warm-up each; page-cache
 * rounds settle memory for all of them first, so every side writes onto the same memory.
 */
export async function appendPairs(
  ctx: LabContext,
  rounds: number,
  roundSeconds: number,
  options: PairOptions,
): Promise<Pairs> {
  const record = encodeRecord(0, Buffer.alloc(BODY_BYTES, 0x61));
  const covered = record.subarray(8);
  const body = Buffer.alloc(BODY_BYTES, 0x61);
  const sync = options.durability === 'always';
  const rawLoop = (name: string, checksum: boolean): PairSide => ({
    name,
    measurement: new Measurement(`${name}-${options.durability}`, 'sync'),
    open: (dir) => {
      const fd = fs.openSync(path.join(dir, 'raw.log'), 'w+');
      if (options.preallocatedRaw) zeroFill(fd, 64 * MiB);
      let position = 0;
      return {
        append: () => {
          if (checksum) record.writeUInt32BE(crc32c(covered), 4);
          fs.writeSync(fd, record, 0, record.length, position);
          if (sync) fs.fdatasyncSync(fd);
          position += record.length;
          return position;
        },
        close: () => fs.closeSync(fd),
      };
    },
  });
  const logSide: PairSide = {
    name: 'log',
    measurement: new Measurement(`log-${options.durability}`, 'sync'),
    open: (dir) => {
      // Timed one synchronous append at a time, as the raw loop's write (and fdatasync) is.
      const log = Log.open(dir, { durability: options.durability, syncMode: 'inline' });
      return { append: () => log.appendNoWait(body), close: () => log.close() };
    },
  };
  const sides = [
    rawLoop('raw', false),
    ...(options.checksummedRaw === true ? [rawLoop('raw-crc', true)] : []),
    logSide,
  ];
  const rates = new Map(sides.map((side) => [side.name, [] as number[]]));
  for (let round = 0; round < rounds; round++) {
    ctx.progress.phase(`append ${options.durability}: round ${round + 1}/${rounds}`);
    const dirs = sides.map((side) => roundDir(ctx, side.name, round));
    if (!sync) settleForRound(dirs[0]!, roundSeconds * sides.length, 'unbatched');
    const opened = sides.map((side, i) => side.open(dirs[i]!));
    try {
      sides.forEach((side, i) =>
        warmUpSync(side.measurement, opened[i]!.append, { seconds: roundSeconds * WARMUP_SHARE }),
      );
      const turns = await takeTurns(
        sides.map((side, i) => ({
          name: side.name,
          turn: async (seconds: number) =>
            measureSync(side.measurement, opened[i]!.append, { seconds }).ops,
        })),
        roundSeconds,
        TURN_SECONDS,
        round,
      );
      for (const [name, totals] of turns) rates.get(name)!.push(totals.operations / totals.seconds);
    } finally {
      for (const side of opened) await side.close();
      for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  const checksummed = rates.get('raw-crc');
  const pairs = rates.get('log')!.map((log, i) => ({
    log,
    raw: rates.get('raw')![i]!,
    ...(checksummed === undefined ? {} : { checksummed: checksummed[i]! }),
  }));
  const latency = logSide.measurement.summarize(ctx.random).latencyNs;
  const logLatencyNs = {
    ...latency,
    name: `append.${options.durability}.latencyNs`,
    labels: { ...latency.labels, policy: options.durability },
  };
  return { pairs, logLatencyNs };
}

export function pairMetrics(
  ctx: LabContext,
  prefix: string,
  pairs: Pair[],
  rawName: string,
  policy: string,
): Metric[] {
  const labels = { policy, cache: 'page cache' };
  return [
    metricFromSamples(
      `${prefix}.ratePerSec`,
      'ops/s',
      pairs.map((p) => p.log),
      { random: ctx.random, ...RATE, labels },
    ),
    metricFromSamples(
      `${prefix}.${rawName}RatePerSec`,
      'ops/s',
      pairs.map((p) => p.raw),
      { random: ctx.random, ...RATE, labels },
    ),
    metricFromSamples(
      `${prefix}.vs${rawName[0]!.toUpperCase()}${rawName.slice(1)}`,
      'ratio',
      pairs.map((p) => p.log / p.raw),
      {
        random: ctx.random,
        ...RATE,
        ratio: true,
        labels,
        description: `loglab's rate over the plain node:fs loop writing the same 1,040-byte records, per paired round`,
      },
    ),
  ];
}

/**
 * Where the unbatched target's ceiling lies on this machine: the raw loop with a CRC-32C per
 * record against the plain one, and the log against the checksummed loop.
 */
export function checksumMetrics(ctx: LabContext, pairs: Pair[]): Metric[] {
  const labels = { policy: 'none', cache: 'page cache' };
  const checksummed = pairs.map((pair) => pair.checksummed ?? Number.NaN);
  const ratio = (
    name: string,
    values: number[],
    description: string,
    direction: Direction = 'higher',
  ) =>
    metricFromSamples(name, 'ratio', values, {
      random: ctx.random,
      class: 'timing',
      direction,
      ratio: true,
      labels,
      description,
    });
  return [
    metricFromSamples('append.none.checksummedFsRatePerSec', 'ops/s', checksummed, {
      random: ctx.random,
      ...RATE,
      labels,
    }),
    // Two reference loops, neither of them loglab: where the ceiling lies, not a quality.
    ratio(
      'append.none.checksummedFsVsRawFs',
      pairs.map((pair, i) => checksummed[i]! / pair.raw),
      "the raw loop computing each record's CRC-32C (@node-rs/crc32) over the plain one: the " +
        'most a log that checksums every record can reach against fs.writeSync, per paired round',
      'informational',
    ),
    ratio(
      'append.none.vsChecksummedFs',
      pairs.map((pair, i) => pair.log / checksummed[i]!),
      "loglab's rate over the checksumming raw loop: what encoding and bookkeeping cost, per " +
        'paired round',
    ),
  ];
}

/** Batched appends: many records per write. */
function batchedBytesPerSec(ctx: LabContext, rounds: number, roundSeconds: number): Metric {
  const batch = Array.from({ length: 256 }, () => Buffer.alloc(BODY_BYTES, 0x62));
  const batchBytes = 256 * (BODY_BYTES + 16);
  const measurement = new Measurement('batched', 'sync');
  const rates: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const dir = roundDir(ctx, 'batched', round);
    settleForRound(dir, roundSeconds, 'batched');
    const log = Log.open(dir, { durability: 'none' });
    rates.push(
      measureSync(measurement, () => log.appendBatchNoWait(batch), { seconds: roundSeconds })
        .ratePerSec * batchBytes,
    );
    void log.close();
    fs.rmSync(dir, { recursive: true });
  }
  return metricFromSamples('append.batched.bytesPerSec', 'B/s', rates, {
    random: ctx.random,
    ...RATE,
    labels: { policy: 'none', cache: 'page cache' },
  });
}

const GROUP_DESIGNS = {
  always: { options: { durability: 'always', syncMode: 'inline' }, producers: 1 },
  group: { options: { durability: 'group', syncMode: 'inline' }, producers: 16 },
  'group-thread-pool': { options: { durability: 'group', syncMode: 'thread-pool' }, producers: 16 },
  'always-direct': {
    options: { durability: 'always', syncMode: 'inline', directWrites: true },
    producers: 1,
  },
  'group-direct': {
    options: { durability: 'group', syncMode: 'inline', directWrites: true },
    producers: 16,
  },
} as const satisfies Record<string, { options: LogOptions; producers: number }>;
type GroupDesign = keyof typeof GROUP_DESIGNS;

/**
 * `always` (one producer) vs `group` (16 producers), all async, taking turns (lab/runner.ts
 * takeTurns says why); group commit both with its fdatasync on the event loop (`inline`, as the
 * `always` side syncs) and on the thread pool (where the default, `adaptive`, syncs a group of
 * more than one write), so the default is measured too. Each metric's labels name its sync mode. Every log appends in the steady state of
 * retention, into recycled segment files (support/steady-state.ts), as the durability experiment's
 * and the fio comparison's logs do: a fresh log zero-fills an extent ahead of the appends every
 * 4 MiB, which at group commit's rate doubles the bytes it writes (the byte ledger's noRetention
 * figures show that cost apart). The same pair with direct writes (storage/io/direct-write.ts) runs
 * beside them: `append.group.direct.vsAlways`, what the target would read with both sides direct.
 */
async function groupVsAlways(
  ctx: LabContext,
  rounds: number,
  roundSeconds: number,
): Promise<Metric[]> {
  const body = Buffer.alloc(BODY_BYTES, 0x63);
  const dir = path.join(ctx.dir, 'group-vs-always');
  const sides: { name: GroupDesign; log: Log; turns: ClosedLoopTurns }[] = [];
  const results = new Map<GroupDesign, number[]>();
  try {
    for (const name of Object.keys(GROUP_DESIGNS) as GroupDesign[]) {
      const { options, producers } = GROUP_DESIGNS[name];
      const log = Log.open(path.join(dir, name), options);
      sides.push({ name, log, turns: groupTurns(name, log, body, producers) });
      await recycleToSteadyState(log, body);
      results.set(name, []);
    }
    for (let round = -1; round < rounds; round++) {
      ctx.progress.phase(
        round < 0 ? 'group vs always: warm-up' : `group vs always: round ${round + 1}/${rounds}`,
      );
      // Round -1 warms up: the JIT settles on every side before a figure is kept.
      const repetitions = await roundInTurns(
        sides.map((side) => side.turns),
        round < 0 ? roundSeconds * WARMUP_SHARE : roundSeconds,
        round + 1,
      );
      for (const [i, side] of sides.entries()) {
        if (round >= 0) results.get(side.name)!.push(repetitions[i]!.ratePerSec);
        await dropSealedSegments(side.log);
      }
    }
  } finally {
    for (const side of sides) await side.log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const always = results.get('always')!;
  const labels = { cache: 'page cache', producers: 16 };
  const overAlways = (
    name: string,
    rates: readonly number[],
    syncMode: string,
    base = always,
    direct = '',
  ) =>
    metricFromSamples(
      name,
      'ratio',
      rates.map((rate, i) => rate / base[i]!),
      {
        random: ctx.random,
        ...RATE,
        ratio: true,
        labels: { ...labels, syncMode, ...(direct === '' ? {} : { directWrites: true }) },
        description:
          `group commit (fdatasync ${syncMode}${direct}) with 16 concurrent producers over ` +
          `always with one producer${direct}, both async, per paired round`,
      },
    );
  const group = results.get('group')!;
  const threadPool = results.get('group-thread-pool')!;
  return [
    metricFromSamples('append.group.ratePerSec', 'ops/s', group, {
      random: ctx.random,
      ...RATE,
      labels: { ...labels, policy: 'group', syncMode: 'inline' },
    }),
    metricFromSamples('append.always.asyncRatePerSec', 'ops/s', always, {
      random: ctx.random,
      ...RATE,
      labels: { policy: 'always', producers: 1 },
    }),
    overAlways('append.group.vsAlways', group, 'inline'),
    metricFromSamples('append.group.threadPool.ratePerSec', 'ops/s', threadPool, {
      random: ctx.random,
      ...RATE,
      labels: { ...labels, policy: 'group', syncMode: 'thread-pool' },
    }),
    overAlways('append.group.threadPool.vsAlways', threadPool, 'thread-pool'),
    ...(sides
      .filter((side) => side.name.endsWith('-direct'))
      .every((side) => wroteDirectly(ctx, side.log, 'append.group.direct.vsAlways'))
      ? [
          overAlways(
            'append.group.direct.vsAlways',
            results.get('group-direct')!,
            'inline',
            results.get('always-direct')!,
            ', direct writes',
          ),
        ]
      : []),
  ];
}

function groupTurns(name: GroupDesign, log: Log, body: Buffer, producers: number) {
  const measurement = new Measurement(`${name}-${producers}`, 'async');
  return new ClosedLoopTurns(name, measurement, () => log.append(body), {
    concurrency: producers,
  });
}

/** Builds a log of `sizeBytes` of 1 KiB records with batched appends. */
export function recoveryScan(ctx: LabContext, segmentBytes: number, repetitions: number): Metric {
  const dir = path.join(ctx.dir, 'recovery');
  fs.mkdirSync(dir);
  const options = { durability: 'none', segmentBytes: segmentBytes + 4 * MiB } as const;
  void buildLog(dir, segmentBytes, options).close();
  const rates: number[] = [];
  for (let r = 0; r < repetitions; r++) {
    dropRecoveryPoint(dir);
    const startNs = process.hrtime.bigint();
    const log = Log.open(dir, options);
    const elapsedNs = Number(process.hrtime.bigint() - startNs);
    rates.push(log.recovery.scannedBytes / (elapsedNs / 1e9));
    void log.close();
  }
  fs.rmSync(dir, { recursive: true });
  return metricFromSamples('recovery.scan.bytesPerSec', 'B/s', rates, {
    random: ctx.random,
    ...RATE,
    labels: { cache: 'warm', segmentBytes },
    description:
      'Log.open of one segment with no recovery point: every record checked (length, CRC, id) and the index rebuilt',
  });
}

/** Resident set growth while appending `totalBytes`; retention keeps the disk small meanwhile. */
function rssGrowth(ctx: LabContext, totalBytes: number): Metric {
  const dir = path.join(ctx.dir, 'rss');
  fs.mkdirSync(dir);
  const log = Log.open(dir, { durability: 'none' });
  const body = Buffer.alloc(BODY_BYTES, 0x64);
  for (let i = 0; i < 10_000; i++) log.appendNoWait(body);
  (globalThis as { gc?: () => void }).gc?.();
  const startRss = process.memoryUsage.rss();
  let maxRss = startRss;
  for (let written = 0; written < totalBytes; written += BODY_BYTES + 16) {
    log.appendNoWait(body);
    if ((written & (64 * MiB - 1)) < BODY_BYTES + 16) {
      maxRss = Math.max(maxRss, process.memoryUsage.rss());
      log.deleteSegmentsBelow(log.endOffset);
    }
  }
  maxRss = Math.max(maxRss, process.memoryUsage.rss());
  void log.close();
  fs.rmSync(dir, { recursive: true });
  return measuredMetric(
    'append.rssGrowthBytes',
    'B',
    maxRss - startRss,
    { class: 'measurement', direction: 'lower' },
    { appendedBytes: totalBytes },
    'largest resident-set growth seen while appending, over the resident set after a warm-up',
  );
}

export const storageBench: Experiment = {
  id: 'bench-storage',
  question: 'how close does the storage core come to the plain file-system loop on this disk?',
  params: {
    rounds: TARGET_ROUNDS,
    roundSeconds: { quick: 0.3, full: 1 },
    lookupLogBytes: { quick: 64 * MiB, full: 256 * MiB },
    recoverySegmentBytes: { quick: 64 * MiB, full: 256 * MiB },
    rssAppendBytes: { quick: 1024 * MiB, full: 4096 * MiB },
  },
  seed: 2026,
  metrics: BENCH_STORAGE_METRICS,
  run: async (ctx) => {
    const rounds = ctx.numberParam('rounds');
    const seconds = ctx.numberParam('roundSeconds');
    ctx.ensureFreeSpace(2 * ctx.numberParam('lookupLogBytes') + 256 * MiB);
    const none = await appendPairs(ctx, rounds, seconds, {
      durability: 'none',
      preallocatedRaw: false,
      checksummedRaw: true,
    });
    const always = await appendPairs(ctx, rounds, seconds, {
      durability: 'always',
      preallocatedRaw: false,
    });
    const alwaysPreallocated = await appendPairs(ctx, rounds, seconds, {
      durability: 'always',
      preallocatedRaw: true,
    });
    const metrics = [
      ...pairMetrics(ctx, 'append.none', none.pairs, 'rawFs', 'none'),
      ...checksumMetrics(ctx, none.pairs),
      batchedBytesPerSec(ctx, rounds, seconds),
      ...pairMetrics(ctx, 'append.always', always.pairs, 'rawFs', 'always'),
      ...pairMetrics(
        ctx,
        'append.always',
        alwaysPreallocated.pairs,
        'preallocatedFs',
        'always',
      ).slice(1),
      always.logLatencyNs,
      ...(await groupVsAlways(ctx, rounds, seconds)),
      ...(await fioSeqSyncMetrics(ctx, rounds, seconds)),
      ...warmLookups(ctx, {
        logBytes: ctx.numberParam('lookupLogBytes'),
        rounds,
        lookupsPerRound: LOOKUPS_PER_ROUND,
      }),
      recoveryScan(ctx, ctx.numberParam('recoverySegmentBytes'), rounds),
      rssGrowth(ctx, ctx.numberParam('rssAppendBytes')),
      ...(await kafkaCodecMetrics(ctx, rounds, seconds)),
      ...(await kafkaAppendMetrics(ctx, rounds, seconds)),
    ];
    ctx.note(
      'The raw loops write the same encoded 1,040-byte records (1 KiB body + 16-byte header) with fs.writeSync at increasing positions; under always each write is followed by fs.fdatasyncSync. In each round the raw loops and the log are open side by side and take turns of ' +
        `${TURN_SECONDS} s, each after a warm-up, so a disk or memory whose speed jumps within a round slows every side alike.`,
    );
    ctx.note(
      'Before each page-cache round (durability none, and batched) the bench writes and deletes a scratch file as large as the round could write, so every side starts from memory in use a moment ago: a virtual machine that reports free memory to its host (environment freePageReporting) otherwise makes first touches of page-cache pages fault on the host, on either side of a pair at random.',
    );
    ctx.note(
      'append.always.vsPreallocatedFs compares the log (which preallocates segments under always) with a raw loop overwriting a zero-filled file.',
    );
    return ctx.results({ metrics });
  },
};
