/**
 * Queue depth (the course, lesson 2: "A disk can reorder waiting writes"; the datasheets' QD1 and
 * QD32 figures): how much does parallelism hide the cost of random writes? Random 4 KiB writes,
 * design A's slot operations and sequential appends run with 1 to 64 operations in flight, each
 * depth in a child process of its own (libuv's thread pool is 4 threads unless UV_THREADPOOL_SIZE
 * says otherwise before it starts), once through libuv's thread pool and once through io_uring
 * where the kernel allows it. Each figure records the depth the device actually saw, sampled while
 * it ran. When fio is installed, its equivalent jobs (scripts/fio/) run as a cross-check inside the
 * libuv child's rounds, each paired with ours in the same round (queue-depth-rounds.ts), so ours
 * over fio's is a within-run ratio per round.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Experiment,
  type LabContext,
  LabError,
  type Metric,
  type Results,
  fioVersion,
  formatFigure,
  ioUringAllowed,
  packageFile,
  runTypeScriptChild,
  WARM_UP_SHARE_OF_ROUND,
} from '../lab/index.js';
import { MiB, SlotFileQueue } from '../storage/index.js';
import { assert } from '../storage/testing/index.js';
import { QUEUE_DEPTH_CHARTS, QUEUE_DEPTH_METRICS as M } from './metrics/queue-depth.js';
import { bodyBytesFor } from './support/queue-cycle.js';
import {
  type ChildConfig,
  type ChildReport,
  type Engine,
  FIO_METHODS,
  type FioConfig,
  type FioMethod,
  type FioReport,
  METHODS,
  type Method,
  type MethodReport,
} from './support/queue-depth-protocol.js';

/** The child in support/: its .ts source under tsx, or its .js when loglab is built. */
const CHILD_SCRIPT = fileURLToPath(
  new URL(`./support/queue-depth-child${path.extname(import.meta.url)}`, import.meta.url),
);
/** The fio jobs ship with the package (package.json `files`), found from its root. */
const FIO_JOBS: Readonly<Record<FioMethod, string>> = {
  'random-write': packageFile('scripts', 'fio', 'random-write.fio'),
  append: packageFile('scripts', 'fio', 'append.fio'),
};
const BLOCK_BYTES = 4096;
const MEASURED_SHARE = 0.5;
const SHORTEST_REPETITION_SECONDS = 0.02;
/** Beyond the measured time, what a child may take to start, set up and report. */
const CHILD_OVERHEAD_MS = 60_000;
/**
 * Beyond its runtime, what one fio run may take before it is stopped. fio 3.33 takes about
 * 0.4 s to start and finish around its runtime (0.34 s with the null engine on a 2-core VM).
 */
const FIO_RUN_OVERHEAD_MS = 30_000;
const FIO_START_SECONDS = 0.4;
/** Messages each slot file holds before the children start. */
const SLOT_BACKLOG = 72;
const SLOT_CHUNK_SLOTS = 128;
/** libuv's thread pool holds at most 1,024 threads, and each depth needs one per write. */
const MAX_DEPTH = 1020;

interface Files {
  readonly randomFile: string;
  readonly appendFile: string;
  /** One design-A queue directory per depth, each holding its slot file. */
  readonly slotDirs: string[];
}

/** The `depths` parameter, `'1,2,4'`: whole numbers libuv's thread pool can serve. */
function parseDepths(text: string): number[] {
  const depths = text.split(',').map((part) => Number(part.trim()));
  for (const depth of depths) {
    assert(Number.isSafeInteger(depth), `queue-depth: depths must be integers: '${text}'`);
    assert(depth >= 1, `queue-depth: depths start at 1: '${text}'`);
    assert(depth <= MAX_DEPTH, `queue-depth: depths end at ${MAX_DEPTH}: '${text}'`);
  }
  return depths;
}

function writeZeros(file: string, bytes: number): void {
  const chunk = Buffer.alloc(MiB);
  const fd = fs.openSync(file, 'w');
  try {
    for (let at = 0; at < bytes; at += chunk.length) {
      fs.writeSync(fd, chunk, 0, Math.min(chunk.length, bytes - at), at);
    }
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The random-write target, written through so its blocks exist, and one slot queue per depth. */
async function prepareFiles(ctx: LabContext, maxDepth: number): Promise<Files> {
  const randomFile = path.join(ctx.dir, 'random-write.bin');
  writeZeros(randomFile, ctx.numberParam('randomFileMiB') * MiB);
  const slotBytes = ctx.numberParam('slotBytes');
  const body = Buffer.alloc(bodyBytesFor(slotBytes));
  ctx.random.fillBytes(body);
  const slotDirs: string[] = [];
  for (let i = 0; i < maxDepth; i++) {
    const dir = path.join(ctx.dir, `slots-${i}`);
    const queue = SlotFileQueue.open(dir, {
      durability: 'none',
      slotBytes,
      chunkSlots: SLOT_CHUNK_SLOTS,
    });
    for (let message = 0; message < SLOT_BACKLOG; message++) await queue.send(body);
    await queue.close();
    slotDirs.push(dir);
  }
  return { randomFile, appendFile: path.join(ctx.dir, 'append.bin'), slotDirs };
}

async function runChild(ctx: LabContext, config: ChildConfig, engine: Engine) {
  const env = {
    UV_THREADPOOL_SIZE: String(config.depth + 4),
    UV_USE_IO_URING: engine === 'io_uring' ? '1' : '0',
  };
  const measuredSeconds =
    (config.seconds * config.rounds + config.warmUpSeconds) * config.methods.length;
  const fioRuns = config.fio === null ? 0 : config.rounds * FIO_METHODS.length;
  const timeoutMs =
    Math.ceil(measuredSeconds * 1000) +
    CHILD_OVERHEAD_MS +
    fioRuns * (config.fio?.runTimeoutMs ?? 0);
  const withFio = config.fio === null ? '' : ', paired with fio';
  ctx.progress.phase(`queue-depth: ${engine} at depth ${config.depth}${withFio}`);
  const stdout = await runTypeScriptChild(CHILD_SCRIPT, [JSON.stringify(config)], env, timeoutMs);
  try {
    return JSON.parse(stdout) as ChildReport;
  } catch {
    throw new LabError(
      'CHECK_FAILED',
      `queue-depth: the child at depth ${config.depth} ` +
        `printed no report (${stdout.slice(0, 200)}); run ` +
        'experiments/support/queue-depth-child.ts by hand to see why',
    );
  }
}

function methodMetrics(
  method: Method,
  engine: Engine,
  depth: number,
  report: MethodReport,
): Metric[] {
  const labels = { method, engine, depth, ioMode: report.ioMode };
  const prefix = `queue-depth.${method}.${engine}.${depth}`;
  const what =
    method === 'slot-send'
      ? 'design A slot operations (a send or a delete, each one synced slot write)'
      : `${BLOCK_BYTES}-byte ${method === 'append' ? 'appends' : 'random writes'}`;
  const metrics: Metric[] = [
    {
      ...M.iops.adopt(`${prefix}.iops`, report.ratePerSec, labels),
      description: `${what} per second, ${depth} in flight (${report.ioMode}), per repetition`,
    },
    {
      ...M.latencyNs.adopt(`${prefix}.latencyNs`, report.latencyNs, labels),
      description: `latency of one of them; ${report.latencyNs.description ?? ''}`,
    },
  ];
  if (method !== 'slot-send' && report.ratePerSec.samples !== undefined) {
    const mbPerSec = report.ratePerSec.samples.map((rate) => (rate * BLOCK_BYTES) / 1e6);
    metrics.push(
      M.mbPerSec.fromSamples(
        `${prefix}.mbPerSec`,
        mbPerSec,
        labels,
        'decimal megabytes written per second',
      ),
    );
  }
  if (report.reachedDepthPerRepetition.length > 0) {
    const reached = M.reachedDepth.fromSamples(
      `${prefix}.reachedDepth`,
      report.reachedDepthPerRepetition,
      labels,
      'write requests in flight at the device (/sys/block/*/inflight), mean of samples every ' +
        'millisecond, one value per repetition; max is the largest sample',
    );
    metrics.push({ ...reached, max: report.reachedDepthMax });
  }
  if (report.averageQueuePerRepetition.length > 0) {
    metrics.push(
      M.deviceQueueDepth.fromSamples(
        `${prefix}.deviceQueueDepth`,
        report.averageQueuePerRepetition,
        labels,
        'time requests spent at the device over elapsed time (time_in_queue of ' +
          "/sys/block/*/stat, iostat's aqu-sz): the average in flight, by Little's law",
      ),
    );
  }
  return metrics;
}

/** Keeps a child's figures, or says why not: io_uring that did not take effect is not io_uring. */
function childMetrics(ctx: LabContext, report: ChildReport, engine: Engine, depth: number) {
  const { rings } = report.ioUring;
  if (engine === 'io_uring' && rings === 0) {
    ctx.note(
      `UV_USE_IO_URING=1 did not take effect at depth ${depth}: the child held no ` +
        'io_uring ring, so its figures were left out',
    );
    return [];
  }
  if (engine === 'libuv' && rings > 0) {
    ctx.note(
      `at depth ${depth} the libuv child held an io_uring ring despite ` +
        'UV_USE_IO_URING=0: its figures may not be thread-pool figures',
    );
  }
  return METHODS.flatMap((method) => {
    const methodReport = report.methods[method];
    if (methodReport === undefined) return [];
    ctx.recordWarmUp(`${engine}.${depth}.${method}`, methodReport.warmUp);
    return methodMetrics(method, engine, depth, methodReport);
  });
}

function engines(ctx: LabContext): Engine[] {
  const allowed = ioUringAllowed();
  if (!allowed.allowed) ctx.note(`no io_uring series: ${allowed.reason}`);
  return allowed.allowed ? ['libuv', 'io_uring'] : ['libuv'];
}

interface ChildRun {
  readonly engine: Engine;
  readonly depth: number;
  readonly report: ChildReport;
}

/** fio's figures for one method at one depth, and ours through libuv as a fraction of them. */
function fioMethodMetrics(
  method: FioMethod,
  depth: number,
  fio: Extract<FioReport, { ok: true }>,
  ours: MethodReport,
): Metric[] {
  const labels = { method, engine: 'fio', depth, ioMode: fio.ioMode };
  const prefix = `queue-depth.${method}.fio.${depth}`;
  const metrics: Metric[] = [
    {
      ...M.fioIops.adopt(`${prefix}.fioIops`, fio.ratePerSec, labels),
      description:
        `fio's ${method} job (libaio, ${fio.ioMode}), one run per round, each ` +
        'beside ours in the same round, on the same file, for as long',
    },
    {
      ...M.fioLatencyNs.adopt(`${prefix}.fioLatencyNs`, fio.latencyNs, labels),
      description:
        "fio's latency, submission and completion, from its histogram (buckets " +
        'within about 1.6%); median, percentiles and interval over every I/O of every round, ' +
        'spread and samples over the per-round medians',
    },
  ];
  const ourRates = ours.ratePerSec.samples ?? [];
  const fioRates = fio.ratePerSec.samples ?? [];
  assert(
    ourRates.length === fioRates.length,
    `queue-depth: ${ourRates.length} rounds of ours against ${fioRates.length} of fio's`,
  );
  const ratios = ourRates.map((rate, round) => rate / (fioRates[round] ?? Number.NaN));
  if (ratios.length > 0 && ratios.every(Number.isFinite)) {
    metrics.push(
      M.fractionOfFio.fromSamples(
        `queue-depth.${method}.libuv.${depth}.fractionOfFio`,
        ratios,
        { method, engine: 'libuv', depth },
        "our IOPS through libuv over fio's, same job, file and round length: one ratio per round, " +
          'of the two runs paired in it; median and interval over the rounds',
      ),
    );
  }
  return metrics;
}

/** fio's figures at one depth, from the libuv child that ran them; a note for each failure. */
function fioMetrics(ctx: LabContext, report: ChildReport, depth: number): Metric[] {
  return FIO_METHODS.flatMap((method) => {
    const fio = report.fio[method];
    const ours = report.methods[method];
    if (fio === undefined || ours === undefined) return [];
    if (!fio.ok) {
      ctx.note(`fio ${method} at depth ${depth}: ${fio.reason}; no fio figures for it`);
      return [];
    }
    return fioMethodMetrics(method, depth, fio, ours);
  });
}

function ioUringNote(runs: readonly ChildRun[]): string | null {
  const uring = runs.filter((run) => run.engine === 'io_uring' && run.report.ioUring.rings > 0);
  if (uring.length === 0) return null;
  const tasks = uring.map((run) => `${run.report.ioUring.tasks} at depth ${run.depth}`);
  return (
    'io_uring took effect in every io_uring child reported: each held an io_uring ring ' +
    "(a descriptor linked to anon_inode:[io_uring]) and the kernel's submission thread " +
    `(iou-sqp); tasks in those processes: ${tasks.join(', ')}.`
  );
}

function notes(ctx: LabContext, runs: readonly ChildRun[]): string[] {
  const fallbacks = new Set(
    runs.flatMap((run) =>
      Object.entries(run.report.methods)
        .filter(([, report]) => report.fallbackReason !== null)
        .map(([method, report]) => `${method} used ${report.ioMode}: ${report.fallbackReason}`),
    ),
  );
  const uring = ioUringNote(runs);
  const writeCache = ctx.environment.device.writeCache ?? 'unknown';
  return [
    'Each depth ran in a child process of its own with UV_THREADPOOL_SIZE = depth + 4 (libuv ' +
      'has 4 threads by default, which would cap every depth at 4); libuv children set ' +
      'UV_USE_IO_URING=0, io_uring children 1.',
    'random-write and append: 4 KiB blocks written with O_DIRECT from an aligned part of a ' +
      "Buffer (found by trying, as Node cannot tell a Buffer's address), no fsync: they reach " +
      `the device, whose write cache may still hold them (write_cache: ${writeCache}). ` +
      'random-write overwrites a file written beforehand; append writes past the end of a ' +
      'file, which ext4 may serialise — reachedDepth says what the device saw.',
    "slot-send: design A's operations, alternately a send and a delete, on one slot file per " +
      'operation in flight; each is a 1 KiB slot write through the page cache made durable by ' +
      'its own fdatasync (group commit, no delay, one producer per file).',
    "reachedDepth counts every write the disk had in flight, other programs' included.",
    ...fallbacks,
    ...(uring === null ? [] : [uring]),
  ];
}

function headline(metrics: readonly Metric[], depths: readonly number[]): string {
  const first = depths[0] ?? 1;
  const last = depths[depths.length - 1] ?? first;
  const median = (name: string) => metrics.find((metric) => metric.name === name)?.median;
  const iops = (method: Method, engine: Engine, depth: number) =>
    median(`queue-depth.${method}.${engine}.${depth}.iops`);
  const span = (method: Method, engine: Engine) => {
    const low = iops(method, engine, first);
    const high = iops(method, engine, last);
    if (low === undefined || high === undefined) return null;
    const reached = median(`queue-depth.${method}.${engine}.${last}.reachedDepth`);
    const seen = reached === undefined ? '' : `, device depth ${formatFigure(reached)}`;
    return (
      `${formatFigure(low)} to ${formatFigure(high)} IOPS through ${engine} ` +
      `(${formatFigure(high / low)}×${seen})`
    );
  };
  const random = [span('random-write', 'libuv'), span('random-write', 'io_uring')].filter(
    (part): part is string => part !== null,
  );
  const append = span('append', 'libuv');
  return (
    `From depth ${first} to ${last}, random 4 KiB writes went from ${random.join(' and ')}` +
    (append === null ? '.' : `; appends from ${append}.`)
  );
}

/**
 * The depths at which fio's jobs run, paired with ours, or none: fio is not installed, the
 * check is off, or the depths are not among ours (a note says which).
 */
function fioPlan(ctx: LabContext, depths: readonly number[], rounds: number): number[] {
  if (ctx.numberParam('fioCheck') !== 1) return [];
  const version = fioVersion();
  if (version === null) {
    ctx.note('fio is not installed, so there is no cross-check (apt-get install fio adds it)');
    return [];
  }
  const fioDepths = parseDepths(ctx.stringParam('fioDepths'));
  for (const depth of fioDepths) {
    assert(depths.includes(depth), `queue-depth: fio depth ${depth} is not among the depths`);
  }
  const runs = fioDepths.length * FIO_METHODS.length * rounds;
  ctx.note(
    `Cross-check: ${version}, ioengine libaio, jobs in scripts/fio/, at depth ` +
      `${fioDepths.join(', ')} (parameter fioDepths): in each of the ${rounds} rounds of the ` +
      "libuv child, random-write and append ran beside fio's same job on the same file for as " +
      "long, ours first in odd-numbered rounds and fio's first in even ones; fractionOfFio is " +
      `the median of the per-round ratios. The ${runs} fio runs cost their round time and about ` +
      `${FIO_START_SECONDS} s of start-up each, which is why a quick run checks few depths.`,
  );
  return fioDepths;
}

function childConfig(
  ctx: LabContext,
  files: Files,
  depth: number,
  seconds: number,
  fio: FioConfig | null,
): ChildConfig {
  return {
    depth,
    methods: METHODS,
    rounds: ctx.numberParam('rounds'),
    seconds,
    warmUpSeconds: seconds * WARM_UP_SHARE_OF_ROUND,
    blockBytes: BLOCK_BYTES,
    ...files,
    randomFileBytes: ctx.numberParam('randomFileMiB') * MiB,
    slotBytes: ctx.numberParam('slotBytes'),
    device: ctx.device,
    seed: ctx.random.nextU32(),
    fio,
  };
}

export async function run(ctx: LabContext): Promise<Results> {
  const depths = parseDepths(ctx.stringParam('depths'));
  const rounds = ctx.numberParam('rounds');
  const maxDepth = Math.max(...depths);
  ctx.ensureFreeSpace(
    ctx.numberParam('randomFileMiB') * MiB * 2 +
      maxDepth * SLOT_CHUNK_SLOTS * ctx.numberParam('slotBytes') * 2,
  );
  const files = await prepareFiles(ctx, maxDepth);
  const engineList = engines(ctx);
  const fioDepths = fioPlan(ctx, depths, rounds);
  const units =
    (depths.length * engineList.length * METHODS.length + fioDepths.length * FIO_METHODS.length) *
    rounds;
  // Every method writes through to the disk (O_DIRECT, O_DSYNC or fdatasync): synced rounds.
  const seconds = ctx.syncedRoundSeconds(
    Math.max(SHORTEST_REPETITION_SECONDS, (ctx.secondsBudget * MEASURED_SHARE) / units),
  );
  const fio: FioConfig = {
    jobFiles: FIO_JOBS,
    runTimeoutMs: Math.ceil(seconds * 1000) + FIO_RUN_OVERHEAD_MS,
  };
  const runs: ChildRun[] = [];
  const metrics: Metric[] = [];
  for (const depth of depths) {
    for (const engine of engineList) {
      const paired = engine === 'libuv' && fioDepths.includes(depth);
      const config = childConfig(ctx, files, depth, seconds, paired ? fio : null);
      const report = await runChild(ctx, config, engine);
      runs.push({ engine, depth, report });
      metrics.push(...childMetrics(ctx, report, engine, depth));
      if (paired) metrics.push(...fioMetrics(ctx, report, depth));
    }
  }
  const counters = Object.fromEntries(
    runs.flatMap((run) => [
      [`${run.engine}.${run.depth}.ioUringRings`, run.report.ioUring.rings],
      [`${run.engine}.${run.depth}.tasks`, run.report.ioUring.tasks],
    ]),
  );
  return ctx.results({
    metrics,
    counters,
    headline: headline(metrics, depths),
    notes: notes(ctx, runs),
  });
}

export const experiment: Experiment = {
  id: 'queue-depth',
  question: 'how much does parallelism hide the cost of random writes?',
  params: {
    depths: { quick: '1,4,16,64', full: '1,2,4,8,16,32,64' },
    rounds: { quick: 2, full: 10 },
    randomFileMiB: { quick: 16, full: 128 },
    slotBytes: { quick: 1024, full: 1024 },
    /** 1 runs fio's equivalent jobs beside ours when fio is installed; 0 skips them. */
    fioCheck: { quick: 1, full: 1 },
    /**
     * Depths (among `depths`) at which fio's jobs run in the libuv child's rounds. Each fio run
     * costs a round plus ~0.4 s of start-up: at every quick depth that would add ~14 s, so a
     * quick run checks one depth (4 runs, ~3.6 s); a full run checks them all.
     */
    fioDepths: { quick: '16', full: '1,2,4,8,16,32,64' },
  },
  seed: 46,
  metrics: M,
  charts: QUEUE_DEPTH_CHARTS,
  run,
};
