/**
 * Queue depth (seed: "A disk can reorder waiting writes", the datasheets' QD1 and QD32 figures):
 * how much does parallelism hide the cost of random writes? Random 4 KiB writes, design A's slot
 * operations and sequential appends run with 1 to 64 operations in flight, each depth in a child
 * process of its own (libuv's thread pool is 4 threads unless UV_THREADPOOL_SIZE says otherwise
 * before it starts), once through libuv's thread pool and once through io_uring where the kernel
 * allows it. Each figure records the depth the device actually saw, sampled while it ran. When
 * fio is installed, its equivalent jobs (scripts/fio/) run beside ours as a cross-check.
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
  measuredMetric,
  fioVersion,
  formatFigure,
  ioUringAllowed,
  metricFromSamples,
  runFioJob,
  runTypeScriptChild,
  WARM_UP_SHARE_OF_ROUND,
} from '../lab/index.js';
import { assert } from '../storage/errors.js';
import { SlotFileQueue } from '../storage/slot-file.js';
import { bodyBytesFor } from './queue-cycle.js';
import {
  type ChildConfig,
  type ChildReport,
  type Engine,
  METHODS,
  type Method,
  type MethodReport,
} from './queue-depth-protocol.js';

const CHILD_SCRIPT = fileURLToPath(new URL('./queue-depth-child.ts', import.meta.url));
const FIO_JOBS: Readonly<Record<'random-write' | 'append', string>> = {
  'random-write': fileURLToPath(new URL('../scripts/fio/random-write.fio', import.meta.url)),
  'append': fileURLToPath(new URL('../scripts/fio/append.fio', import.meta.url)),
};
const BLOCK_BYTES = 4096;
const MIB = 1024 * 1024;
const MEASURED_SHARE = 0.5;
const SHORTEST_REPETITION_SECONDS = 0.02;
/** Beyond the measured time, what a child may take to start, set up and report. */
const CHILD_OVERHEAD_MS = 60_000;
/** Messages each slot file holds before the children start. */
const SLOT_BACKLOG = 72;
const SLOT_CHUNK_SLOTS = 128;
/** libuv's thread pool holds at most 1,024 threads, and each depth needs one per write. */
const MAX_DEPTH = 1020;

interface Files {
  readonly randomFile: string;
  readonly appendFile: string;
  readonly slotFiles: string[];
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
  const chunk = Buffer.alloc(MIB);
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

/** The random-write target, written through so its blocks exist, and one slot file per depth. */
async function prepareFiles(ctx: LabContext, maxDepth: number): Promise<Files> {
  const randomFile = path.join(ctx.dir, 'random-write.bin');
  writeZeros(randomFile, ctx.numberParam('randomFileMiB') * MIB);
  const slotBytes = ctx.numberParam('slotBytes');
  const body = Buffer.alloc(bodyBytesFor(slotBytes));
  ctx.random.fillBytes(body);
  const slotFiles: string[] = [];
  for (let i = 0; i < maxDepth; i++) {
    const file = path.join(ctx.dir, `slots-${i}`);
    const queue = SlotFileQueue.open(file, { slotBytes, chunkSlots: SLOT_CHUNK_SLOTS });
    for (let message = 0; message < SLOT_BACKLOG; message++) await queue.send(body);
    await queue.close();
    slotFiles.push(file);
  }
  return { randomFile, appendFile: path.join(ctx.dir, 'append.bin'), slotFiles };
}

async function runChild(ctx: LabContext, config: ChildConfig, engine: Engine) {
  const env = {
    UV_THREADPOOL_SIZE: String(config.depth + 4),
    UV_USE_IO_URING: engine === 'io_uring' ? '1' : '0',
  };
  const measuredSeconds = (config.seconds * config.rounds + config.warmUpSeconds) *
    config.methods.length;
  const timeoutMs = Math.ceil(measuredSeconds * 1000) + CHILD_OVERHEAD_MS;
  ctx.progress.phase(`queue-depth: ${engine} at depth ${config.depth}`);
  const stdout = await runTypeScriptChild(CHILD_SCRIPT, [JSON.stringify(config)], env, timeoutMs);
  try {
    return JSON.parse(stdout) as ChildReport;
  } catch {
    throw new LabError('CHECK_FAILED', `queue-depth: the child at depth ${config.depth} ` +
      `printed no report (${stdout.slice(0, 200)}); run experiments/queue-depth-child.ts by ` +
      'hand to see why');
  }
}

function methodMetrics(
  ctx: LabContext,
  method: Method,
  engine: Engine,
  depth: number,
  report: MethodReport,
): Metric[] {
  const labels = { method, engine, depth, ioMode: report.ioMode };
  const prefix = `queue-depth.${method}.${engine}.${depth}`;
  const what = method === 'slot-send'
    ? 'design A slot operations (a send or a delete, each one synced slot write)'
    : `${BLOCK_BYTES}-byte ${method === 'append' ? 'appends' : 'random writes'}`;
  const metrics: Metric[] = [
    { ...report.ratePerSec, name: `${prefix}.iops`, unit: 'ops/s', labels,
      description: `${what} per second, ${depth} in flight (${report.ioMode}), per repetition` },
    { ...report.latencyNs, name: `${prefix}.latencyNs`, labels,
      description: `latency of one of them; ${report.latencyNs.description ?? ''}` },
  ];
  if (method !== 'slot-send' && report.ratePerSec.samples !== undefined) {
    const mbPerSec = report.ratePerSec.samples.map((rate) => (rate * BLOCK_BYTES) / 1e6);
    metrics.push(metricFromSamples(`${prefix}.mbPerSec`, 'MB/s', mbPerSec, {
      random: ctx.random, class: 'timing', direction: 'higher', labels, description: 'decimal megabytes written per second' }));
  }
  if (report.reachedDepthPerRepetition.length > 0) {
    const reached = metricFromSamples(`${prefix}.reachedDepth`, 'count',
      report.reachedDepthPerRepetition, {
        random: ctx.random, class: 'measurement', direction: 'higher', labels,
        description: 'write requests in flight at the device (/sys/block/*/inflight), mean of ' +
          'samples every millisecond, one value per repetition; max is the largest sample',
      });
    metrics.push({ ...reached, max: report.reachedDepthMax });
  }
  if (report.averageQueuePerRepetition.length > 0) {
    metrics.push(metricFromSamples(`${prefix}.deviceQueueDepth`, 'count',
      report.averageQueuePerRepetition, {
        random: ctx.random, class: 'measurement', direction: 'informational', labels,
        description: 'time requests spent at the device over elapsed time (time_in_queue of ' +
          '/sys/block/*/stat, iostat\'s aqu-sz): the average in flight, by Little\'s law',
      }));
  }
  return metrics;
}

/** Keeps a child's figures, or says why not: io_uring that did not take effect is not io_uring. */
function childMetrics(ctx: LabContext, report: ChildReport, engine: Engine, depth: number) {
  const { rings } = report.ioUring;
  if (engine === 'io_uring' && rings === 0) {
    ctx.note(`UV_USE_IO_URING=1 did not take effect at depth ${depth}: the child held no ` +
      'io_uring ring, so its figures were left out');
    return [];
  }
  if (engine === 'libuv' && rings > 0) {
    ctx.note(`at depth ${depth} the libuv child held an io_uring ring despite ` +
      'UV_USE_IO_URING=0: its figures may not be thread-pool figures');
  }
  return METHODS.flatMap((method) => {
    const methodReport = report.methods[method];
    if (methodReport === undefined) return [];
    ctx.recordWarmUp(`${engine}.${depth}.${method}`, methodReport.warmUp);
    return methodMetrics(ctx, method, engine, depth, methodReport);
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

function fioEnv(method: 'random-write' | 'append', files: Files, ioMode: string) {
  return {
    FILE: method === 'append' ? files.appendFile : files.randomFile,
    SIZE: String(fs.statSync(files.randomFile).size),
    DIRECT: ioMode === 'O_DIRECT' ? '1' : '0',
    SYNC: ioMode === 'O_DIRECT' ? '0' : '1',
  };
}

/** fio's figure beside ours, and ours as a fraction of it, for the libuv series. */
function fioJob(
  ctx: LabContext,
  method: 'random-write' | 'append',
  depth: number,
  env: Readonly<Record<string, string>>,
  ours: readonly Metric[],
): Metric[] {
  if (method === 'append') fs.writeFileSync(env.FILE ?? '', '');
  const outcome = runFioJob(FIO_JOBS[method], { ...env, DEPTH: String(depth) }, CHILD_OVERHEAD_MS);
  if (method === 'append') fs.rmSync(env.FILE ?? '', { force: true });
  if (!outcome.ok) {
    ctx.note(`fio ${method} at depth ${depth}: ${outcome.reason}`);
    return [];
  }
  const { write } = outcome;
  const ioMode = env.DIRECT === '1' ? 'O_DIRECT' : 'O_SYNC';
  const labels = { method, engine: 'fio', depth, ioMode };
  const prefix = `queue-depth.${method}.fio.${depth}`;
  const metrics: Metric[] = [
    { ...metricFromSamples(`${prefix}.fioIops`, 'ops/s', [write.iops], { random: ctx.random,
      class: 'timing', direction: 'higher', labels, description: `fio's ${method} job (libaio), one run` }) },
    { name: `${prefix}.fioLatencyNs`, unit: 'ns', kind: 'timing', class: 'timing',
      direction: 'lower', median: write.latencyNsP50,
      p50: write.latencyNsP50, p99: write.latencyNsP99, count: write.ios, labels,
      description: "fio's latency percentiles, submission and completion" },
  ];
  const mine = ours.find((metric) => metric.name === `queue-depth.${method}.libuv.${depth}.iops`);
  if (mine !== undefined && write.iops > 0) {
    // Ours and fio's are measured at different moments, so the machine does not divide out:
    // a timing, reported only (not a within-run ratio).
    metrics.push(measuredMetric(`queue-depth.${method}.libuv.${depth}.fractionOfFio`,
      'ratio', mine.median / write.iops, { class: 'timing', direction: 'higher' },
      { method, engine: 'libuv', depth },
      "our median IOPS through libuv over fio's, same job, same file"));
  }
  return metrics;
}

function fioMetrics(
  ctx: LabContext,
  version: string,
  depths: readonly number[],
  files: Files,
  runs: readonly ChildRun[],
  ours: readonly Metric[],
  runtimeSeconds: number,
): Metric[] {
  const metrics: Metric[] = [];
  for (const depth of depths) {
    for (const method of ['random-write', 'append'] as const) {
      const ioMode = runs.find((run) => run.engine === 'libuv')?.report.methods[method]?.ioMode;
      const env = { ...fioEnv(method, files, ioMode ?? 'O_DIRECT'),
        RUNTIME: `${Math.max(100, Math.round(runtimeSeconds * 1000))}ms` };
      ctx.progress.phase(`queue-depth: fio ${method} at depth ${depth}`);
      metrics.push(...fioJob(ctx, method, depth, env, ours));
    }
  }
  ctx.note(`Cross-check: ${version}, ioengine libaio, the same file and depth; jobs in ` +
    'scripts/fio/.');
  return metrics;
}

function ioUringNote(runs: readonly ChildRun[]): string | null {
  const uring = runs.filter((run) => run.engine === 'io_uring' && run.report.ioUring.rings > 0);
  if (uring.length === 0) return null;
  const tasks = uring.map((run) => `${run.report.ioUring.tasks} at depth ${run.depth}`);
  return 'io_uring took effect in every io_uring child reported: each held an io_uring ring ' +
    '(a descriptor linked to anon_inode:[io_uring]) and the kernel\'s submission thread ' +
    `(iou-sqp); tasks in those processes: ${tasks.join(', ')}.`;
}

function notes(ctx: LabContext, runs: readonly ChildRun[]): string[] {
  const fallbacks = new Set(runs.flatMap((run) => Object.entries(run.report.methods)
    .filter(([, report]) => report.fallbackReason !== null)
    .map(([method, report]) => `${method} used ${report.ioMode}: ${report.fallbackReason}`)));
  const uring = ioUringNote(runs);
  const writeCache = ctx.environment.device.writeCache ?? 'unknown';
  return [
    'Each depth ran in a child process of its own with UV_THREADPOOL_SIZE = depth + 4 (libuv ' +
      'has 4 threads by default, which would cap every depth at 4); libuv children set ' +
      'UV_USE_IO_URING=0, io_uring children 1.',
    'random-write and append: 4 KiB blocks written with O_DIRECT from an aligned part of a ' +
      'Buffer (found by trying, as Node cannot tell a Buffer\'s address), no fsync: they reach ' +
      `the device, whose write cache may still hold them (write_cache: ${writeCache}). ` +
      'random-write overwrites a file written beforehand; append writes past the end of a ' +
      'file, which ext4 may serialise — reachedDepth says what the device saw.',
    'slot-send: design A\'s operations, alternately a send and a delete, on one slot file per ' +
      'operation in flight; each is a 1 KiB slot write through the page cache made durable by ' +
      'its own fdatasync (group commit, no delay, one producer per file).',
    'reachedDepth counts every write the disk had in flight, other programs\' included.',
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
    return `${formatFigure(low)} to ${formatFigure(high)} IOPS through ${engine} ` +
      `(${formatFigure(high / low)}×${seen})`;
  };
  const random = [span('random-write', 'libuv'), span('random-write', 'io_uring')]
    .filter((part): part is string => part !== null);
  const append = span('append', 'libuv');
  return `From depth ${first} to ${last}, random 4 KiB writes went from ${random.join(' and ')}` +
    (append === null ? '.' : `; appends from ${append}.`);
}

export async function run(ctx: LabContext): Promise<Results> {
  const depths = parseDepths(ctx.stringParam('depths'));
  const rounds = ctx.numberParam('rounds');
  const maxDepth = Math.max(...depths);
  const slotBytes = ctx.numberParam('slotBytes');
  ctx.ensureFreeSpace(ctx.numberParam('randomFileMiB') * MIB * 2 +
    maxDepth * SLOT_CHUNK_SLOTS * slotBytes * 2);
  const files = await prepareFiles(ctx, maxDepth);
  const engineList = engines(ctx);
  const fio = ctx.numberParam('fioCheck') === 1 ? fioVersion() : null;
  if (ctx.numberParam('fioCheck') === 1 && fio === null) {
    ctx.note('fio is not installed, so there is no cross-check (apt-get install fio adds it)');
  }
  const perDepth = engineList.length * METHODS.length + (fio === null ? 0 : 2);
  const units = depths.length * perDepth * rounds;
  // Every method writes through to the disk (O_DIRECT, O_DSYNC or fdatasync): synced rounds.
  const seconds = ctx.syncedRoundSeconds(Math.max(SHORTEST_REPETITION_SECONDS,
    ctx.secondsBudget * MEASURED_SHARE / units));
  const runs: ChildRun[] = [];
  const metrics: Metric[] = [];
  for (const depth of depths) {
    for (const engine of engineList) {
      const config: ChildConfig = {
        depth, methods: METHODS, rounds, seconds, warmUpSeconds: seconds * WARM_UP_SHARE_OF_ROUND,
        blockBytes: BLOCK_BYTES, ...files,
        randomFileBytes: ctx.numberParam('randomFileMiB') * MIB, slotBytes,
        device: ctx.device, seed: ctx.random.uint32(),
      };
      const report = await runChild(ctx, config, engine);
      runs.push({ engine, depth, report });
      metrics.push(...childMetrics(ctx, report, engine, depth));
    }
  }
  if (fio !== null) {
    metrics.push(...fioMetrics(ctx, fio, depths, files, runs, metrics, seconds * rounds));
  }
  const counters = Object.fromEntries(runs.flatMap((run) => [
    [`${run.engine}.${run.depth}.ioUringRings`, run.report.ioUring.rings],
    [`${run.engine}.${run.depth}.tasks`, run.report.ioUring.tasks],
  ]));
  return ctx.results({ metrics, counters, headline: headline(metrics, depths),
    notes: notes(ctx, runs) });
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
  },
  seed: 46,
  run,
};
