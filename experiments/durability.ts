/**
 * Durability (the course, lesson 3's question): what does waiting for the drive cost, and how many
 * messages can one fsync cover? Producers append 1 KiB messages to a log and wait for the
 * acknowledgement its policy allows: `always` fdatasyncs every message, `group` shares one
 * fdatasync among every message waiting when it starts (leader/follower: with no sync running one
 * starts at the end of the event-loop turn; sends made while it runs are synced together when it
 * ends; a delay only where a configuration asks for one), `none` acknowledges once the bytes are
 * in the page cache. Producer counts from 1 to 256 (quick: 1 to 64) run `group` against `always`
 * (both with thread-pool syncs), taking turns of a tenth of a second within each
 * round, and `groupVsAlways` is their round-by-round ratio; a few counts repeat both with inline
 * syncs (`threadPoolVsInline`). Every configuration runs on its own log, the rounds interleaved.
 *
 * The loss window is measured, not assumed: a FileIO wrapper counts the appends a completed
 * fdatasync covers, and at every acknowledgement the experiment compares that with the
 * acknowledged count. For `none` it also reads the machine's dirty memory (/proc/meminfo).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  DurableWatermarkFileIO,
  type RecordsFound,
  type Experiment,
  type LabContext,
  LoopBusy,
  Measurement,
  type Metric,
  PhaseTotals,
  type Results,
  formatBytes,
  formatFigure,
  ClosedLoopTurns,
  TURN_SECONDS,
  interleave,
  roundInTurns,
  median,
  readDirtyMemory,
  WARM_UP_SHARE_OF_ROUND,
  warmUpAsync,
} from '../lab/index.js';
import {
  DEFAULT_MAX_RECORD_BYTES,
  type DurabilityPolicy,
  Log,
  MiB,
  NodeFileIO,
  RECORD_HEADER_BYTES,
  type SyncMode,
} from '../storage/index.js';
import { LOG_SUFFIX, frameSizeAt } from '../storage/testing/index.js';
import { DURABILITY_CHARTS, DURABILITY_METRICS as M } from './metrics/durability.js';
import { OFFERED_PCTS, OpenLoopSeries, offeredRates } from './support/open-loop.js';
import { wroteDirectly } from './support/direct-writes.js';
import { dropSealedSegments } from './support/settled-retention.js';
import { recycleToSteadyState } from './support/steady-state.js';
import type { Target } from './bench/targets.js';

const MEASURED_SHARE = 0.8;
const SHORTEST_ROUND_SECONDS = 0.02;
/** Producer counts of the group-against-always sweep. */
const SWEEP = { quick: [1, 4, 16, 64], full: [1, 2, 4, 8, 16, 32, 64, 128, 256] } as const;
/**
 * Issue 20's targets for group commit: never behind `always` at any producer count of the full
 * sweep, ten times it at 16 producers and twenty times it at 64.
 */
export const GROUP_COMMIT_TARGETS: readonly Target[] = [
  ...SWEEP.full.map((producers) => ({
    metric: `durability.${producers}.groupVsAlways`,
    atLeast: 1,
    why: `group at ${producers} producer${producers === 1 ? '' : 's'} acknowledges at least as many messages a second as always (issue 20)`,
  })),
  {
    metric: 'durability.16.groupVsAlways',
    atLeast: 10,
    why: 'group 10x always at 16 producers (issue 20)',
  },
  {
    metric: 'durability.64.groupVsAlways',
    atLeast: 20,
    why: 'group 20x always at 64 producers (issue 20)',
  },
];
/**
 * Counts at which both policies also run with inline syncs, and `none` runs; and at which both
 * also write directly (storage/io/direct-write.ts), taking turns with the page-cache pair.
 */
const SIDE_COUNTS = { quick: [1, 16], full: [1, 16, 64] } as const;
/** Group commit with a delay the caller asked for, at this many producers (full runs only). */
const DELAYED_GROUP = { producers: 16, delaysMs: [1, 10] } as const;
/** Sealed segments are dropped after every round, so a long run does not fill the disk. */
const SEGMENT_BYTES = 16 * MiB;

/** The open-loop phase drives the default configurations of one producer, one send in flight. */
const OPEN_LOOP_PRODUCERS = 1;

interface Config {
  readonly policy: DurabilityPolicy;
  /** Group commit's delay; null for the other policies. */
  readonly maxDelayMs: number | null;
  /** Where the fdatasyncs run; null under none. */
  readonly syncMode: SyncMode | null;
  /** Whether the log writes its records directly to the device (the `directWrites` option). */
  readonly directWrites: boolean;
  readonly producers: number;
  readonly prefix: string;
  readonly labels: Record<string, string | number>;
  readonly log: Log;
  readonly io: DurableWatermarkFileIO;
  readonly measurement: Measurement;
  readonly totals: PhaseTotals;
  acknowledged: number;
  largestWindow: number;
  readonly dirtyBytes: number[];
  /** Share of each measured round the event loop spent running JavaScript, not waiting. */
  readonly loopBusyShares: number[];
  /** The fdatasyncs of each measured round, beside its acknowledged messages. */
  readonly roundFsyncs: number[];
}

type Shape = Pick<Config, 'policy' | 'maxDelayMs' | 'syncMode' | 'directWrites' | 'producers'>;

function describeConfigs(quick: boolean): Shape[] {
  const mode = quick ? 'quick' : 'full';
  const always = (syncMode: SyncMode, producers: number, directWrites = false): Shape => ({
    policy: 'always',
    maxDelayMs: null,
    syncMode,
    directWrites,
    producers,
  });
  const group = (
    maxDelayMs: number,
    syncMode: SyncMode,
    producers: number,
    directWrites = false,
  ): Shape => ({ policy: 'group', maxDelayMs, syncMode, directWrites, producers });
  const sweep = SWEEP[mode].flatMap((producers) => [
    always('thread-pool', producers),
    group(0, 'thread-pool', producers),
  ]);
  const sides = SIDE_COUNTS[mode].flatMap((producers): Shape[] => [
    always('inline', producers),
    group(0, 'inline', producers),
    { policy: 'none', maxDelayMs: null, syncMode: null, directWrites: false, producers },
    always('thread-pool', producers, true),
    group(0, 'thread-pool', producers, true),
  ]);
  const delayed = quick
    ? []
    : DELAYED_GROUP.delaysMs.map((delayMs) =>
        group(delayMs, 'thread-pool', DELAYED_GROUP.producers),
      );
  return [...sweep, ...sides, ...delayed];
}

/**
 * Records at the start of a write to a `.log` segment, counted frame by frame: one for a plain
 * append, several for a group commit's write, none for zero-filling (a zero length is no frame);
 * a direct write's zeros after its records end the count too.
 */
function recordsInSegmentWrite(
  file: string,
  buffer: Uint8Array,
  bufferStart: number,
  length: number,
): RecordsFound {
  if (!file.endsWith(LOG_SUFFIX)) return { records: 0, bytes: 0 };
  let records = 0;
  let at = bufferStart;
  for (; at + RECORD_HEADER_BYTES <= bufferStart + length; records++) {
    const size = frameSizeAt(buffer, at, DEFAULT_MAX_RECORD_BYTES);
    if (typeof size !== 'number') break;
    at += size;
  }
  return { records, bytes: at - bufferStart };
}

function openConfig(ctx: LabContext, shape: Shape) {
  const { policy, maxDelayMs, syncMode, directWrites, producers } = shape;
  const prefix = prefixOf(shape);
  const labels = {
    policy,
    producers,
    ...(maxDelayMs === null ? {} : { maxDelayMs }),
    ...(syncMode === null ? {} : { syncMode }),
    ...writesLabel(directWrites),
  };
  const io = new DurableWatermarkFileIO(new NodeFileIO(), recordsInSegmentWrite);
  const dir = path.join(ctx.dir, prefix);
  fs.mkdirSync(dir, { recursive: true });
  const log = Log.open(dir, {
    durability: policy,
    segmentBytes: SEGMENT_BYTES,
    io,
    ...(maxDelayMs === null ? {} : { groupMaxDelayMs: maxDelayMs }),
    ...(syncMode === null ? {} : { syncMode }),
    ...(directWrites ? { directWrites } : {}),
  });
  const config: Config = {
    ...shape,
    prefix,
    labels,
    log,
    io,
    totals: new PhaseTotals(),
    measurement: new Measurement(prefix, 'async', labels),
    acknowledged: 0,
    largestWindow: 0,
    dirtyBytes: [],
    loopBusyShares: [],
    roundFsyncs: [],
  };
  return config;
}

/** The label of a configuration that writes directly; the others carry none. */
function writesLabel(directWrites: boolean): { writes?: 'direct' } {
  return directWrites ? { writes: 'direct' } : {};
}

/** `durability.<policy>[.<delay>ms][.inline][.direct].<producers>`: the defaults carry no suffix. */
function prefixOf(shape: Shape): string {
  const delay = shape.maxDelayMs !== null && shape.maxDelayMs > 0 ? `.${shape.maxDelayMs}ms` : '';
  const inline = shape.syncMode === 'inline' ? '.inline' : '';
  const direct = shape.directWrites ? '.direct' : '';
  return `durability.${shape.policy}${delay}${inline}${direct}.${shape.producers}`;
}

function sender(config: Config, body: Buffer): () => Promise<number> {
  const { log, io } = config;
  return async (): Promise<number> => {
    const offset = await log.append(body);
    config.acknowledged++;
    // Acknowledged but not yet covered by a completed fdatasync: what a power cut could take.
    // The closed-loop rounds' figure: the open-loop sends, after them, do not count here.
    config.largestWindow = Math.max(config.largestWindow, config.acknowledged - io.recordsDurable);
    return offset;
  };
}

/** After each round's turns: the dirty memory under none. */
function afterRound(config: Config): void {
  if (config.policy === 'none') {
    const dirty = readDirtyMemory();
    if (dirty !== null) config.dirtyBytes.push(dirty.dirtyBytes + dirty.writebackBytes);
  }
}

type SideTurns = ReturnType<typeof turnTaker>;

/** The fdatasyncs a configuration's measured turns made so far. */
function fsyncsSoFar(config: Config): number {
  return config.totals.total?.fileIo?.fdatasyncCalls ?? 0;
}

/** A round of `sides` in turns, then their logs' sealed segments dropped before the next. */
async function settledRound(sides: readonly SideTurns[], seconds: number, roundIndex: number) {
  const done = await roundInTurns(sides, seconds, roundIndex);
  for (const side of sides) await dropSealedSegments(side.log);
  return done;
}

/**
 * A configuration's rounds as turns (a configuration without a partner takes one turn a round):
 * its I/O phases and the loop's busy time are its turns'.
 */
function turnTaker(ctx: LabContext, config: Config, body: Buffer) {
  const loop = new ClosedLoopTurns(config.prefix, config.measurement, sender(config, body), {
    concurrency: config.producers,
  });
  let busy = new LoopBusy();
  let fsyncsBefore = 0;
  return {
    name: config.prefix,
    log: config.log,
    beginRound: () => {
      loop.beginRound();
      busy = new LoopBusy();
      fsyncsBefore = fsyncsSoFar(config);
    },
    turn: async (seconds: number) => {
      const phase = ctx.ioPhase(config.io);
      const operations = await busy.over(() => loop.turn(seconds));
      config.totals.add(phase.end());
      return operations;
    },
    endRound: () => {
      loop.endRound();
      config.loopBusyShares.push(busy.share);
      config.roundFsyncs.push(fsyncsSoFar(config) - fsyncsBefore);
      afterRound(config);
    },
  };
}

/**
 * The rounds: group and always at each producer count of the sweep take turns within one entry,
 * with the pair that writes directly where there is one; every other configuration runs its
 * round alone; all interleaved.
 */
function roundEntries(
  ctx: LabContext,
  configs: readonly Config[],
  body: Buffer,
  secondsOf: (config: Config) => number,
) {
  const byPrefix = new Map(configs.map((config) => [config.prefix, config]));
  const paired = new Set<Config>();
  const entries: { name: string; round: (roundIndex: number) => Promise<unknown> }[] = [];
  for (const config of configs) {
    const always = paired.has(config) ? undefined : sweepPartner(config, byPrefix);
    if (always === undefined) continue;
    const together = [always, config, ...directPair(config, byPrefix)];
    for (const each of together) paired.add(each);
    const sides = together.map((each) => turnTaker(ctx, each, body));
    entries.push({
      name: `durability.${config.producers} (${together.map((each) => each.prefix).join(', ')} taking turns)`,
      round: (roundIndex) => settledRound(sides, secondsOf(config), roundIndex),
    });
  }
  for (const config of configs) {
    if (paired.has(config)) continue;
    const sides = [turnTaker(ctx, config, body)];
    entries.push({
      name: config.prefix,
      round: (roundIndex) => settledRound(sides, secondsOf(config), roundIndex),
    });
  }
  return entries;
}

/**
 * For group commit with thread-pool syncs and no delay at a producer count, always at the same
 * count, both writing as it does (the sweep's pair, or the direct pair beside it).
 */
function sweepPartner(config: Config, byPrefix: ReadonlyMap<string, Config>): Config | undefined {
  const sweepGroup =
    config.policy === 'group' && config.maxDelayMs === 0 && config.syncMode === 'thread-pool';
  if (!sweepGroup) return undefined;
  return byPrefix.get(prefixOf({ ...config, policy: 'always', maxDelayMs: null }));
}

/** The sweep group's count's always and group that write directly, when they run. */
function directPair(config: Config, byPrefix: ReadonlyMap<string, Config>): Config[] {
  const directGroup = byPrefix.get(prefixOf({ ...config, directWrites: true }));
  const directAlways = directGroup && sweepPartner(directGroup, byPrefix);
  return directGroup && directAlways ? [directAlways, directGroup] : [];
}

/** Sends for a share of a round, timed and discarded, so the rounds start on a settled log. */
async function warmUp(ctx: LabContext, config: Config, body: Buffer, roundSeconds: number) {
  ctx.progress.phase(`${config.prefix}: warm-up`);
  const budget = { seconds: roundSeconds * WARM_UP_SHARE_OF_ROUND };
  const concurrency = config.producers;
  ctx.recordWarmUp(
    config.prefix,
    await warmUpAsync(config.measurement, sender(config, body), budget, { concurrency }),
  );
  await dropSealedSegments(config.log);
}

function configMetrics(ctx: LabContext, config: Config): Metric[] {
  const summary = config.measurement.summarize(ctx.random);
  const { labels, prefix } = config;
  const metrics: Metric[] = [
    {
      ...M.msgsPerSec.adopt(`${prefix}.msgsPerSec`, summary.ratePerSec, labels),
      description:
        `acknowledged messages per second, ${config.producers} producers, one ` +
        'sample per round',
    },
    {
      ...M.sendLatencyNs.adopt(`${prefix}.sendLatencyNs`, summary.latencyNs, labels),
      description: `append until acknowledged; ${summary.latencyNs.description ?? ''}`,
    },
    lossWindowMetric(config),
  ];
  metrics.push(...msgsPerFsyncMetric(config));
  metrics.push(
    M.loopBusyShare.fromSamples(
      `${prefix}.loopBusyShare`,
      config.loopBusyShares,
      labels,
      "the event loop's utilization over each measured round (perf_hooks): near 1, the one " +
        'JavaScript thread is the limit, not the disk',
    ),
  );
  if (config.dirtyBytes.length > 0) {
    metrics.push(
      M.dirtyBytes.fromSamples(
        `${prefix}.dirtyBytes`,
        config.dirtyBytes,
        labels,
        'Dirty + Writeback in /proc/meminfo at the end of each round: bytes the machine has not ' +
          'written to its disks yet, every program together',
      ),
    );
  }
  return metrics;
}

/**
 * The most acknowledged messages no completed fdatasync covered: what the code promises (0) under
 * always and group, what the run reached in its time under none.
 */
function lossWindowMetric(config: Config): Metric {
  const name = `${config.prefix}.lossWindowMsgs`;
  const what =
    'most acknowledged messages that no completed fdatasync covered yet, at any ' +
    "acknowledgement of the closed-loop rounds (counted by the log's FileIO)";
  return config.policy === 'none'
    ? M.unsyncedLossWindowMsgs.measured(name, config.largestWindow, config.labels, what)
    : M.lossWindowMsgs.counter(name, config.largestWindow, config.labels, what);
}

/**
 * Acknowledged messages per fdatasync, a sample per round that synced: a group's size is
 * timing's, so a measurement, and per round so compare can gate it by the rounds' interval (under
 * group commit it sits near the producer count, round after round).
 */
function msgsPerFsyncMetric(config: Config): Metric[] {
  if (config.policy === 'none') return [];
  const samples = config.measurement.repetitions
    .map((repetition, i) => repetition.ops / (config.roundFsyncs[i] ?? 0))
    .filter((value) => Number.isFinite(value));
  if (samples.length === 0) return [];
  return [
    M.msgsPerFsync.fromSamples(
      `${config.prefix}.msgsPerFsync`,
      samples,
      config.labels,
      'acknowledged messages per fdatasync the log made (recovery points included), one ' +
        'sample per round',
    ),
  ];
}

/** The open loop drives each policy as a log runs it by default, one producer. */
function drivesOpenLoop(config: Config): boolean {
  return (
    config.producers === OPEN_LOOP_PRODUCERS &&
    config.syncMode !== 'inline' &&
    !config.directWrites &&
    (config.maxDelayMs ?? 0) === 0
  );
}

/** One configuration's rates over another's, run in the same interleaved rounds. */
interface Pairing {
  readonly spec: (typeof M)['groupVsAlways'];
  readonly name: string;
  readonly over: Config;
  readonly under: Config;
  readonly labels: Record<string, string | number>;
  readonly description: string;
}

/** The pairings `config` heads: each ratio it is the numerator of, where its partner ran. */
function pairingsOf(config: Config, byPrefix: ReadonlyMap<string, Config>): Pairing[] {
  const { policy, producers, directWrites } = config;
  const pairings: Pairing[] = [];
  const always = sweepPartner(config, byPrefix);
  if (always !== undefined) {
    pairings.push({
      spec: M.groupVsAlways,
      name: `durability.${producers}${directWrites ? '.direct' : ''}.groupVsAlways`,
      over: config,
      under: always,
      labels: { producers, ...writesLabel(directWrites) },
      description:
        `group commit's acknowledged messages per second over always's, ${producers} ` +
        `producers, thread-pool syncs${directWrites ? ', both writing directly' : ''}, ` +
        `taking turns of ${TURN_SECONDS} s, round by round`,
    });
  }
  const cached = directWrites ? byPrefix.get(prefixOf({ ...config, directWrites: false })) : null;
  if (cached) {
    pairings.push({
      spec: M.directVsPageCache,
      name: `durability.${policy}.${producers}.directVsPageCache`,
      over: config,
      under: cached,
      labels: { policy, producers },
      description:
        `${policy} writing directly over writing through the page cache, ${producers} ` +
        'producers, thread-pool syncs, taking turns in the same rounds',
    });
  }
  const pooled =
    config.syncMode === 'inline'
      ? byPrefix.get(prefixOf({ ...config, syncMode: 'thread-pool' }))
      : null;
  if (pooled) {
    pairings.push({
      spec: M.threadPoolVsInline,
      name: `durability.${policy}.${producers}.threadPoolVsInline`,
      over: pooled,
      under: config,
      labels: { policy, producers },
      description:
        `${policy} with its fdatasyncs on the thread pool over inline on the event ` +
        `loop, ${producers} producers, round by round`,
    });
  }
  return pairings;
}

/**
 * Round-by-round ratios of two configurations run in the same interleaved rounds: group over
 * always at each producer count of the sweep (and of the direct pair), a policy writing directly
 * over the same through the page cache, and thread-pool over inline syncs per policy.
 */
function ratioMetrics(configs: readonly Config[]): Metric[] {
  const byPrefix = new Map(configs.map((config) => [config.prefix, config]));
  const rates = (config: Config) => config.measurement.repetitions.map((rep) => rep.ratePerSec);
  return configs.flatMap((config) =>
    pairingsOf(config, byPrefix).map(({ spec, name, over, under, labels, description }) => {
      const below = rates(under);
      const ratios = rates(over).map((rate, i) => rate / (below[i] ?? Number.NaN));
      return spec.fromSamples(name, ratios, labels, description);
    }),
  );
}

interface OpenLoopRun {
  readonly config: Config;
  /** The median closed-loop round's acknowledged messages per second. */
  readonly closedMsgsPerSec: number;
  /** One per offered rate, in OFFERED_PCTS order. */
  readonly series: readonly OpenLoopSeries[];
}

async function openLoopRound(
  ctx: LabContext,
  config: Config,
  series: OpenLoopSeries,
  body: Buffer,
) {
  const { log } = config;
  const send = async (): Promise<number> => {
    const offset = await log.append(body);
    config.acknowledged++;
    return offset;
  };
  const phase = ctx.ioPhase(config.io);
  const round = await series.round(send, ctx.numberParam('openLoopSeconds'), config.producers);
  phase.end();
  await dropSealedSegments(log);
  return round;
}

/**
 * After the closed-loop rounds: each one-producer configuration sends at fixed shares of the
 * rate its closed-loop rounds acknowledged, rates in turn and the policies interleaved at each.
 */
async function openLoopPhase(ctx: LabContext, configs: readonly Config[], body: Buffer) {
  const runs = configs
    .filter((config) => drivesOpenLoop(config))
    .map((config): OpenLoopRun => {
      const rates = config.measurement.repetitions.map((rep) => rep.ratePerSec);
      const closedMsgsPerSec = median(rates);
      return {
        config,
        closedMsgsPerSec,
        series: offeredRates(closedMsgsPerSec).map(
          (offered) => new OpenLoopSeries(M, config.prefix, config.labels, offered),
        ),
      };
    });
  const entries = OFFERED_PCTS.flatMap((pct, at) =>
    runs.map((run) => {
      const series = run.series[at] as OpenLoopSeries;
      return {
        name: `${run.config.prefix} open loop at ${pct}%`,
        round: () => openLoopRound(ctx, run.config, series, body),
      };
    }),
  );
  await interleave(ctx.numberParam('openLoopRounds'), entries, ctx.progress);
  return runs;
}

function openLoopMetrics(ctx: LabContext, runs: readonly OpenLoopRun[]): Metric[] {
  return runs.flatMap((run) =>
    run.series.flatMap((series) =>
      series.metrics(
        ctx.random,
        `the ${formatFigure(run.closedMsgsPerSec)} msgs/s its closed-loop rounds acknowledged, ` +
          `${run.config.producers} producer; ${run.config.producers} send in flight at most`,
      ),
    ),
  );
}

function openLoopNote(ctx: LabContext, runs: readonly OpenLoopRun[]): string {
  const names = runs.map((run) => run.config.prefix).join(', ');
  return (
    `Open loop (latency without coordinated omission): after the closed-loop rounds, ` +
    `${names} sent on a fixed schedule at ${OFFERED_PCTS.join('/')}% of the rate their ` +
    `closed-loop rounds acknowledged, ${ctx.numberParam('openLoopRounds')} rounds of ` +
    `${ctx.numberParam('openLoopSeconds')} s per rate, one send in flight: a send due while ` +
    "the last is unacknowledged waits. openLoopLatencyNs counts from each send's intended " +
    'start, so that wait is charged; openLoopServiceNs, from its actual start, is what a ' +
    'closed loop reports; openLoopLateSends counts sends a whole interval or more behind ' +
    'schedule. Under none a send takes microseconds, about what the schedule itself costs ' +
    "(an event-loop turn per send), so its late sends are the harness's as much as the log's."
  );
}

/**
 * An event loop busy this share of a round or more had no time left to gather more producers:
 * the JavaScript thread, not the device, set the rate.
 */
const CPU_BOUND_LOOP_SHARE = 0.9;

function find(metrics: readonly Metric[], name: string): Metric | undefined {
  return metrics.find((metric) => metric.name === name);
}

function headline(metrics: readonly Metric[], quick: boolean): string {
  const counts = SWEEP[quick ? 'quick' : 'full'];
  const most = counts[counts.length - 1] ?? 1;
  const rate = (prefix: string) =>
    formatFigure(find(metrics, `${prefix}.msgsPerSec`)?.median ?? Number.NaN);
  /** The p99 where the rounds had the sends for one (100), else the median, saying so. */
  const tailMs = (prefix: string) => {
    const latency = find(metrics, `${prefix}.sendLatencyNs`);
    if (latency?.p99 != null) return `p99 ${formatFigure(latency.p99 / 1e6)} ms`;
    return `median ${formatFigure((latency?.median ?? Number.NaN) / 1e6)} ms, too few sends for a p99`;
  };
  const group = `durability.group.${most}`;
  const perFsync = formatFigure(find(metrics, `${group}.msgsPerFsync`)?.median ?? Number.NaN);
  const sides = SIDE_COUNTS[quick ? 'quick' : 'full'];
  const noneProducers = sides[sides.length - 1] ?? 1;
  const none = `durability.none.${noneProducers}`;
  const dirty = find(metrics, `${none}.dirtyBytes`)?.median;
  const window = find(metrics, `${none}.lossWindowMsgs`)?.median ?? Number.NaN;
  const busy = find(metrics, `${group}.loopBusyShare`)?.median ?? Number.NaN;
  const limit =
    busy >= CPU_BOUND_LOOP_SHARE
      ? 'the one JavaScript thread, not the disk, was the limit'
      : 'the disk, not the JavaScript thread, was the limit';
  return (
    `With ${most} producers, group commit covered ${perFsync} messages per ` +
    `fdatasync and acknowledged ${rate(group)} msgs/s (${tailMs(group)}; event loop ` +
    `busy ${formatFigure(busy * 100)}% of the time: ${limit}) against ` +
    `${rate(`durability.always.${most}`)} msgs/s for an fdatasync per message ` +
    `(${tailMs(`durability.always.${most}`)}), losing nothing acknowledged; none, with ` +
    `${noneProducers} producers, acknowledged ${rate(none)} msgs/s but left up to ` +
    `${formatFigure(window)} acknowledged messages unsynced` +
    (dirty === undefined ? '.' : ` (${formatBytes(dirty)} dirty on the machine).`)
  );
}

const NOTES: readonly string[] = [
  'group (leader/follower): with no sync running, one starts at the end of the event-loop turn, ' +
    'so every producer ready in that turn joins it; sends made while it runs are synced ' +
    'together with those its end released, at the end of that turn. The 1 ms and 10 ms ' +
    'configurations (full runs) add the delay ' +
    'a caller may ask for.',
  'always issues one fdatasync per message, in order, and acknowledges each message by its ' +
    'own sync: more producers queue behind each other, so its figures barely change with the ' +
    'producer count. groupVsAlways is group over always at each producer count, round by ' +
    `round; the two take turns of ${TURN_SECONDS} s within each round, so a jump in the disk's ` +
    'rate lands on both.',
  "The sweep syncs on libuv's thread pool (syncMode thread-pool: the event loop stays free); " +
    'the .inline configurations sync on the event loop, which saves two thread hand-offs per ' +
    'sync; the default, adaptive, takes each where it is cheap (bench event-loop measures it). ' +
    "threadPoolVsInline is the one over the other, round by round. group writes a group's " +
    'records with one write just before its fdatasync.',
  'The .direct configurations write their records directly to the device (the log option ' +
    'directWrites: O_DIRECT, only the 512-byte blocks a write touches), then fdatasync as the ' +
    'others do; at the counts where they run they take turns with the page-cache pair in the ' +
    'same rounds. directVsPageCache is a policy writing directly over the same policy through ' +
    'the page cache, and <count>.direct.groupVsAlways is group over always with both writing ' +
    'directly: a direct write waits for the device on the event loop, so under always with ' +
    "several producers one message's write overlaps the previous one's fdatasync on the " +
    "thread pool, which group commit's one write per group cannot.",
  'Loss window: acknowledged messages no completed fdatasync covered, counted at every ' +
    'acknowledgement by a FileIO wrapper around the log — zero for always and group proves ' +
    'the policy. Under none the log syncs only on a clean close, so it counts every message ' +
    'acknowledged in the run; what a power cut would really take is what the kernel had not ' +
    'written back yet, bounded by the dirty bytes beside it (/proc/meminfo, every program on ' +
    'the machine).',
  'messages per fsync counts every fdatasync of the log, its recovery points and segment ' +
    'preallocations included; none does not sync, so it has no such figure.',
  'Page cache warm; logs of 16 MiB segments, the sealed ones dropped after every round. Under ' +
    'always and group each log first fills and drops two segments, so the rounds append in the ' +
    'steady state of a log with retention: into recycled segment files (or spares laid out on ' +
    'the thread pool), so an fdatasync commits data, not a growing file, and no configuration ' +
    'pays zero-fills another does not (a new log zero-fills each extent of its first segments; ' +
    'group, appending faster, got through them sooner).',
];

/**
 * The configurations, less those whose log the system refused direct writes (it then wrote
 * through the page cache, which must not be reported under a direct name); their logs closed.
 */
async function withoutRefusedDirectWrites(ctx: LabContext, configs: Config[]): Promise<Config[]> {
  const kept: Config[] = [];
  for (const config of configs) {
    if (!config.directWrites || wroteDirectly(ctx, config.log, config.prefix)) kept.push(config);
    else await config.log.close();
  }
  return kept;
}

export async function run(ctx: LabContext): Promise<Results> {
  const rounds = ctx.numberParam('rounds');
  const body = Buffer.alloc(ctx.numberParam('messageBytes'));
  ctx.random.fillBytes(body);
  const shapes = describeConfigs(ctx.quick);
  ctx.ensureFreeSpace(shapes.length * 2 * SEGMENT_BYTES);
  let configs: Config[] = [];
  try {
    for (const shape of shapes) configs.push(openConfig(ctx, shape));
    // Set-up, not a round: always and group append in their steady state with retention, into a
    // recycled segment (support/steady-state.ts), so neither pays zero-fills the other does not.
    for (const config of configs) {
      if (config.policy === 'none') await config.log.append(body);
      else await recycleToSteadyState(config.log, body);
      config.acknowledged = config.log.endOffset;
    }
    configs = await withoutRefusedDirectWrites(ctx, configs);
    const share = Math.max(
      SHORTEST_ROUND_SECONDS,
      (ctx.secondsBudget * MEASURED_SHARE) / (rounds * configs.length),
    );
    const secondsOf = (config: Config) =>
      config.policy === 'none' ? share : ctx.syncedRoundSeconds(share);
    for (const config of configs) await warmUp(ctx, config, body, secondsOf(config));
    await interleave(rounds, roundEntries(ctx, configs, body, secondsOf), ctx.progress);
    const metrics = [
      ...configs.flatMap((config) => configMetrics(ctx, config)),
      ...ratioMetrics(configs),
    ];
    const counters: Record<string, number> = Object.fromEntries(
      configs.map((config) => [`${config.prefix}.fdatasyncCalls`, fsyncsSoFar(config)]),
    );
    const openStartNs = process.hrtime.bigint();
    const open = await openLoopPhase(ctx, configs, body);
    counters['openLoop.elapsedNs'] = Number(process.hrtime.bigint() - openStartNs);
    return ctx.results({
      metrics: [...metrics, ...openLoopMetrics(ctx, open)],
      counters,
      headline: headline(metrics, ctx.quick),
      notes: [...NOTES, openLoopNote(ctx, open)],
    });
  } finally {
    for (const config of configs) await config.log.close();
  }
}

export const experiment: Experiment = {
  id: 'durability',
  question: 'what does waiting for the drive cost, and how much can one fsync cover?',
  params: {
    messageBytes: { quick: 1024, full: 1024 },
    // Six rounds at least: fewer give no exact 95% interval of a median (lab/stats.ts), and
    // compare could not gate the within-run ratios (groupVsAlways above all) of a quick run.
    rounds: { quick: 6, full: 10 },
    // The open-loop phase: short rounds in quick mode (the quick suite has 3 minutes), synced
    // rounds of SYNCED_ROUND_MIN_SECONDS in full mode.
    openLoopRounds: { quick: 2, full: 6 },
    openLoopSeconds: { quick: 0.1, full: 0.5 },
  },
  seed: 44,
  metrics: M,
  charts: DURABILITY_CHARTS,
  run,
};
