/**
 * The puzzle (the course, lesson 2): on one disk, design A (a file of 1 KiB slots updated in place)
 * stores about 50 messages a second and design B (a log) about 278,000. Both designs do the same
 * send, receive and delete work here, in interleaved rounds, compared three ways, each under the
 * guarantee it states: the same policy (always, group), and the course's own comparison — A synced
 * per message against B streaming at the disk's bandwidth with one sync a round. Each series says
 * how it keeps deletes (A writes them, B saves a head). Beside what this disk showed stand the disk
 * models' estimates of the same run, priced from its write trace, and the course's datasheet
 * arithmetic.
 */
import * as path from 'node:path';
import {
  EXOS_X20,
  type Experiment,
  type LabContext,
  Measurement,
  type Metric,
  PhaseTotals,
  type Prediction,
  type Results,
  SAMSUNG_990_PRO,
  estimatePrediction,
  estimateTrace,
  flushDirtyPages,
  formatFigure,
  hddCourseFigures,
  interleave,
  median,
  type PhaseIo,
  perMessage,
  type SpinningVerdict,
  spinningVerdict,
} from '../lab/index.js';
import { type DurabilityPolicy, RECORD_HEADER_BYTES } from '../storage/index.js';
import { SLOT_HEADER_BYTES } from '../storage/testing/index.js';
import { PUZZLE_CHARTS, PUZZLE_METRICS as M } from './metrics/puzzle.js';
import {
  type CycleRound,
  type Design,
  QUEUE_CYCLE_PARAMS,
  QueueCycle,
  bodyBytesFor,
  phaseSeconds,
} from './support/queue-cycle.js';
import { OFFERED_PCTS, OpenLoopSeries, offeredRates } from './support/open-loop.js';

/**
 * The three comparisons (and `none`), each with the guarantee it compares under; the category is
 * the chart's, its parts a line each.
 */
export const COMPARISONS = {
  always: {
    category: 'always; every send synced; A: each delete synced; ' + 'B: head per 1,000 deletes',
    guarantee: 'every send synced before its OK',
  },
  group: {
    category: 'group; sends share a sync; A: deletes share it; ' + 'B: head per 1,000 deletes',
    guarantee: 'each send covered by a shared fdatasync before its OK',
  },
  course: {
    category: "the course's; A: synced per message; B: streamed, one sync a round",
    guarantee:
      'A synced per message (each send and delete) against B streaming at the ' +
      "disk's bandwidth (appends with no sync per message, one fdatasync ending each round)",
  },
  none: { category: 'none; no sync (page cache)', guarantee: 'nothing synced' },
} as const;
export type ComparisonId = keyof typeof COMPARISONS;

/** What each series promises about a delete: design A writes it, design B saves a head. */
export const DELETE_GUARANTEES = {
  synced: 'each delete synced',
  shared: 'deletes share a sync',
  unsynced: 'deletes not synced',
  headEvery1000: 'head saved every 1,000 deletes or 1 s',
  headEach: 'head saved at each delete',
} as const;
type DeleteGuarantee = keyof typeof DELETE_GUARANTEES;

/** One measured configuration: a design at a policy, and how it keeps its deletes. */
interface Variant {
  readonly design: Design;
  readonly policy: DurabilityPolicy;
  /** The middle of its metric names: the policy, or the name of a design-B variant. */
  readonly key: string;
  readonly comparison: ComparisonId;
  readonly deletes: DeleteGuarantee;
  readonly checkpointEveryDeletes?: number;
  readonly syncAtRoundEnd?: boolean;
}

/** In the order the chart shows them: the three comparisons, then `none`. */
export const VARIANTS: readonly Variant[] = [
  { design: 'A', policy: 'always', key: 'always', comparison: 'always', deletes: 'synced' },
  { design: 'B', policy: 'always', key: 'always', comparison: 'always', deletes: 'headEvery1000' },
  {
    design: 'B',
    policy: 'always',
    key: 'alwaysHeadEach',
    comparison: 'always',
    deletes: 'headEach',
    checkpointEveryDeletes: 1,
  },
  { design: 'A', policy: 'group', key: 'group', comparison: 'group', deletes: 'shared' },
  { design: 'B', policy: 'group', key: 'group', comparison: 'group', deletes: 'headEvery1000' },
  {
    design: 'B',
    policy: 'none',
    key: 'course',
    comparison: 'course',
    deletes: 'headEvery1000',
    syncAtRoundEnd: true,
  },
  { design: 'A', policy: 'none', key: 'none', comparison: 'none', deletes: 'unsynced' },
  { design: 'B', policy: 'none', key: 'none', comparison: 'none', deletes: 'headEvery1000' },
];

/** B over A: `ratio` names `puzzle.<ratio>.ratioBA`; the course's compares B streaming. */
export const PAIRS = [
  { ratio: 'always', a: 'always', b: 'always', comparison: 'always' },
  { ratio: 'alwaysHeadEach', a: 'always', b: 'alwaysHeadEach', comparison: 'always' },
  { ratio: 'group', a: 'group', b: 'group', comparison: 'group' },
  { ratio: 'course', a: 'always', b: 'course', comparison: 'course' },
  { ratio: 'none', a: 'none', b: 'none', comparison: 'none' },
] as const;

type Labels = Record<string, string>;

function labelsOf(variant: Variant): Labels {
  const labels: Labels = {
    design: variant.design,
    policy: variant.policy,
    comparison: COMPARISONS[variant.comparison].category,
    deletes: DELETE_GUARANTEES[variant.deletes],
  };
  // The one series a category holds twice of a design gets its own colour.
  if (variant.deletes === 'headEach') labels.variant = DELETE_GUARANTEES.headEach;
  return labels;
}

/** Design A synced per message, as the course's comparison shows it: A under `always`. */
const COURSE_A_LABELS: Labels = {
  ...labelsOf(VARIANTS[0] as Variant),
  comparison: COMPARISONS.course.category,
};

interface Config {
  readonly variant: Variant;
  readonly design: Design;
  readonly prefix: string;
  readonly labels: Labels;
  readonly cycle: QueueCycle;
  readonly send: Measurement;
  readonly consume: Measurement;
}

/** A round of one design and the I/O it did: its figures per message are one sample each. */
interface MeasuredRound extends CycleRound {
  readonly io: PhaseIo;
}

function cycleOptions(ctx: LabContext, variant: Variant) {
  const every = variant.checkpointEveryDeletes;
  return {
    design: variant.design,
    policy: variant.policy,
    dir: path.join(ctx.dir, `${variant.design}-${variant.key}`),
    slotBytes: ctx.numberParam('slotBytes'),
    backlogMessages: ctx.numberParam('backlogMessages'),
    inFlightMessages: ctx.numberParam('inFlightMessages'),
    groupMaxDelayMs: ctx.numberParam('groupMaxDelayMs'),
    random: ctx.random.fork(),
    ...(every === undefined ? {} : { checkpointEveryDeletes: every }),
    ...(variant.syncAtRoundEnd === true ? { syncAtRoundEnd: true } : {}),
  };
}

/** Opens every variant into `configs`, so a failure can close what opened. */
async function openConfigs(ctx: LabContext, configs: Config[]): Promise<void> {
  for (const variant of VARIANTS) {
    const labels = labelsOf(variant);
    const cycle = await QueueCycle.open(cycleOptions(ctx, variant));
    const prefix = `puzzle.${variant.design}.${variant.key}`;
    configs.push({
      variant,
      design: variant.design,
      prefix,
      labels,
      cycle,
      send: new Measurement(`${prefix}.send`, 'async', labels),
      consume: new Measurement(`${prefix}.consume`, 'async', labels),
    });
  }
}

function nameOf(config: Config): string {
  return `${config.design}.${config.variant.key}`;
}

/** Runs one round of a design, with its I/O counted from a clean page cache to a final sync. */
async function measuredRound(
  ctx: LabContext,
  config: Config,
  seconds: number,
): Promise<MeasuredRound> {
  const flushed = flushDirtyPages();
  if (flushed !== null) ctx.note(`before a round: ${flushed}`);
  const phase = ctx.ioPhase(config.cycle.io);
  const round = await config.cycle.round(
    seconds,
    ctx.numberParam('producers'),
    config.send,
    config.consume,
  );
  flushDirtyPages();
  return { ...round, io: phase.end() };
}

function ratePerSec(round: CycleRound): number {
  return round.messages / (round.elapsedNs / 1e9);
}

type DeviceQuantity = 'deviceBytesPerMsg' | 'deviceIosPerMsg' | 'deviceFlushesPerMsg';

/** Each device quantity, the perMessage (lab/io.ts) figure it takes, and what it counts. */
const DEVICE_FIGURES: readonly (readonly [DeviceQuantity, string, string])[] = [
  [
    'deviceBytesPerMsg',
    'deviceWriteBytesPerMsg',
    'bytes the disk wrote per message (its stat, after a sync ending each round)',
  ],
  ['deviceIosPerMsg', 'deviceWriteIosPerMsg', 'write requests the disk completed per message'],
  ['deviceFlushesPerMsg', 'deviceFlushIosPerMsg', 'cache flushes the disk completed per message'],
];

const syncsPerMsg = (io: PhaseIo, messages: number) =>
  io.fileIo === null ? undefined : (io.fileIo.fdatasyncCalls + io.fileIo.dirFsyncCalls) / messages;

/** One value per round that sent messages; none when a round lacks it (no device, no FileIO). */
function perRound(
  rounds: readonly MeasuredRound[],
  figure: (round: MeasuredRound) => number | undefined,
): number[] | null {
  const values = rounds.filter((round) => round.messages > 0).map(figure);
  const complete = values.filter((value): value is number => value !== undefined);
  return complete.length === 0 || complete.length < values.length ? null : complete;
}

/**
 * The disk's counters per message, a sample per round: the whole disk's, after the kernel and
 * the device had their say (measurements), so compare judges them by their rounds' interval.
 */
function deviceMetrics(config: Config, rounds: readonly MeasuredRound[]): Metric[] {
  return DEVICE_FIGURES.flatMap(([quantity, figure, what]) => {
    const samples = perRound(rounds, (round) => perMessage(round.io, round.messages)[figure]);
    if (samples === null) return [];
    const name = `${config.prefix}.${quantity}`;
    return [M[quantity].fromSamples(name, samples, config.labels, `${what}, one sample per round`)];
  });
}

/**
 * Syncs per message. Design A syncs each write and delete itself: the code decides, one exact
 * figure over every round. Group commit's batches and design B's head saves (every 1,000 deletes
 * or 1 s) are decided by timing: a sample per round.
 */
function fsyncMetrics(config: Config, rounds: readonly MeasuredRound[]): Metric[] {
  const what = 'fdatasyncs and directory fsyncs the queue made per message (its FileIO counters)';
  const name = `${config.prefix}.fsyncsPerMsg`;
  if (config.design === 'A' && config.variant.policy !== 'group') {
    const totals = new PhaseTotals();
    for (const round of rounds) totals.add(round.io);
    const messages = rounds.reduce((sum, round) => sum + round.messages, 0);
    const total = totals.total;
    const fsyncs = total === null || messages === 0 ? undefined : syncsPerMsg(total, messages);
    return fsyncs === undefined ? [] : [M.fsyncsPerMsg.counter(name, fsyncs, config.labels, what)];
  }
  const samples = perRound(rounds, (round) => syncsPerMsg(round.io, round.messages));
  if (samples === null) return [];
  return [
    M.sharedFsyncsPerMsg.fromSamples(name, samples, config.labels, `${what}, one sample per round`),
  ];
}

function throughputDescription(ctx: LabContext, config: Config): string {
  const producers = ctx.numberParam('producers');
  const ending =
    config.variant.syncAtRoundEnd === true
      ? ', and the one fdatasync of the log ending the round, timed with it'
      : '';
  return (
    'messages sent, received and deleted per second, one sample per round ' +
    `(${producers} producers, then as many consumers, async closed loop${ending}); ` +
    `deletes: ${config.labels.deletes ?? ''}`
  );
}

function configMetrics(
  ctx: LabContext,
  config: Config,
  rounds: readonly MeasuredRound[],
): Metric[] {
  const labels = config.labels;
  const throughput = M.msgsPerSec.fromSamples(
    `${config.prefix}.msgsPerSec`,
    rounds.map(ratePerSec),
    labels,
    throughputDescription(ctx, config),
  );
  const sendLatency = config.send.summarize(ctx.random).latencyNs;
  return [
    throughput,
    {
      ...M.sendLatencyNs.adopt(`${config.prefix}.sendLatencyNs`, sendLatency, labels),
      description: `time until a send was acknowledged; ${sendLatency.description ?? ''}`,
    },
    ...deviceMetrics(config, rounds),
    ...fsyncMetrics(config, rounds),
  ];
}

function ratioMetrics(rates: ReadonlyMap<string, number[]>): Metric[] {
  return PAIRS.map((pair) => {
    const a = rates.get(`A.${pair.a}`) ?? [];
    const b = rates.get(`B.${pair.b}`) ?? [];
    const samples = b.map((rateB, i) => rateB / (a[i] ?? Number.NaN));
    return M.ratioBA.fromSamples(
      `puzzle.${pair.ratio}.ratioBA`,
      samples,
      { comparison: COMPARISONS[pair.comparison].category },
      `design B (puzzle.B.${pair.b}) messages per second over design A ` +
        `(puzzle.A.${pair.a}), round by round`,
    );
  });
}

/** The course's comparison sets A synced per message beside B streaming: A's `always` rounds. */
function courseAMetric(rates: ReadonlyMap<string, number[]>): Metric {
  return M.msgsPerSec.fromSamples(
    'puzzle.A.course.msgsPerSec',
    rates.get('A.always') ?? [],
    COURSE_A_LABELS,
    'design A synced per message: the rounds of puzzle.A.always.msgsPerSec, ' +
      'set beside design B streaming',
  );
}

function modelPredictions(configs: readonly Config[]): Prediction[] {
  const predictions: Prediction[] = [];
  for (const model of [EXOS_X20, SAMSUNG_990_PRO]) {
    const rates = new Map<string, number>();
    for (const config of configs) {
      const estimate = estimateTrace(config.cycle.measuredTrace(), model);
      const prediction = estimatePrediction(
        `${config.prefix}.msgsPerSec`,
        estimate,
        config.cycle.messagesMeasured,
        config.labels,
      );
      predictions.push({ ...prediction, unit: 'msgs/s' });
      rates.set(nameOf(config), prediction.value);
      if (nameOf(config) === 'A.always') {
        predictions.push({
          ...prediction,
          name: 'puzzle.A.course.msgsPerSec',
          unit: 'msgs/s',
          labels: COURSE_A_LABELS,
        });
      }
    }
    for (const pair of PAIRS) {
      const ratio =
        (rates.get(`B.${pair.b}`) ?? Number.NaN) / (rates.get(`A.${pair.a}`) ?? Number.NaN);
      predictions.push({
        name: `puzzle.${pair.ratio}.ratioBA`,
        model: `${model.kind}:${model.id}`,
        unit: 'ratio',
        value: ratio,
        labels: { comparison: COMPARISONS[pair.comparison].category },
        basis: 'the two estimates above, B over A',
      });
    }
  }
  return predictions;
}

function coursePredictions(): Prediction[] {
  const course = hddCourseFigures(EXOS_X20);
  const basis = "the course's datasheet arithmetic for the Exos X20 (loglab model)";
  const designA = `${basis}: two random writes per message at seek + half a turn each`;
  return [
    {
      name: 'puzzle.A.always.msgsPerSec',
      model: 'course',
      unit: 'msgs/s',
      value: course.designAMsgsPerSec,
      labels: labelsOf(VARIANTS[0] as Variant),
      basis: designA,
    },
    {
      name: 'puzzle.A.course.msgsPerSec',
      model: 'course',
      unit: 'msgs/s',
      value: course.designAMsgsPerSec,
      labels: COURSE_A_LABELS,
      basis: designA,
    },
    {
      name: 'puzzle.B.course.msgsPerSec',
      model: 'course',
      unit: 'msgs/s',
      value: course.designBMsgsPerSec,
      labels: labelsOf(courseB()),
      basis:
        `${basis}: sustained transfer rate over 1 KiB, what the drive absorbs streaming, ` +
        'not what it can promise with a sync per message (the course, lesson 3)',
    },
    {
      name: 'puzzle.course.ratioBA',
      model: 'course',
      unit: 'ratio',
      value: course.gap,
      labels: { comparison: COMPARISONS.course.category },
      basis,
    },
  ];
}

function courseB(): Variant {
  const found = VARIANTS.find((variant) => variant.key === 'course');
  if (found === undefined) throw new Error('puzzle: no design-B streaming variant');
  return found;
}

function predicted(predictions: readonly Prediction[], name: string, model: string): number {
  const found = predictions.find((item) => item.name === name && item.model === model);
  return found?.value ?? Number.NaN;
}

type Figures = (name: string) => string;

/** `A 1,773 vs B 2,100 msgs/s (1.2×; Exos X20 model 3.1×)` for one pair. */
function pairText(measured: Figures, hdd: Figures, pair: (typeof PAIRS)[number]): string {
  const a = `puzzle.A.${pair.a}.msgsPerSec`;
  const b = `puzzle.B.${pair.b}.msgsPerSec`;
  const ratio = `puzzle.${pair.ratio}.ratioBA`;
  return (
    `A ${measured(a)} vs B ${measured(b)} msgs/s (${measured(ratio)}×; ` +
    `Exos X20 model ${hdd(ratio)}×: A ${hdd(a)} vs B ${hdd(b)})`
  );
}

function pairNamed(ratio: string): (typeof PAIRS)[number] {
  const found = PAIRS.find((pair) => pair.ratio === ratio);
  if (found === undefined) throw new Error(`puzzle: no pair ${ratio}`);
  return found;
}

function headline(
  ctx: LabContext,
  metrics: readonly Metric[],
  predictions: Prediction[],
  why: string,
): string {
  const measured = (name: string) =>
    formatFigure(metrics.find((metric) => metric.name === name)?.median ?? Number.NaN);
  const hdd = (name: string) => formatFigure(predicted(predictions, name, 'hdd:exos-x20'));
  const course = (name: string) => formatFigure(predicted(predictions, name, 'course'));
  const text = (ratio: string) => pairText(measured, hdd, pairNamed(ratio));
  const disk = ctx.environment.device.model ?? ctx.environment.device.name ?? 'this disk';
  const headEach = 'puzzle.B.alwaysHeadEach.msgsPerSec';
  return (
    `On ${disk}, design A (slot file) against design B (log), three ways (Exos X20 ` +
    "model: a 7,200 rpm disk replaying this run's writes). " +
    `Same policy, always (${COMPARISONS.always.guarantee}; A syncs each delete, B saves its ` +
    `head every 1,000 deletes or 1 s): ${text('always')}; with B saving its head at each ` +
    `delete, B ${measured(headEach)} (${measured('puzzle.alwaysHeadEach.ratioBA')}×). ` +
    `Same policy, group (${COMPARISONS.group.guarantee}; A's deletes share it): ` +
    `${text('group')}. The course's comparison, ${COMPARISONS.course.guarantee}: ${text('course')}; ` +
    `the course's datasheet arithmetic: ${course('puzzle.course.ratioBA')}× ` +
    `(A ${course('puzzle.A.course.msgsPerSec')} vs B ${course('puzzle.B.course.msgsPerSec')}). ${why}`
  );
}

/** Whether the disk spins, from A's synced random slot writes (lab/models/spinning-verdict.ts). */
function spinning(ctx: LabContext, metrics: readonly Metric[]): SpinningVerdict | null {
  const latency = metrics.find((metric) => metric.name === 'puzzle.A.always.sendLatencyNs');
  if (latency === undefined) return null;
  return spinningVerdict({
    rotational: ctx.environment.device.rotational,
    medianMs: latency.median / 1e6,
    roundMediansMs: (latency.samples ?? []).map((ns) => ns / 1e6),
  });
}

/** One sentence: why the same-policy gap on this disk is what it is. */
export function whyTheGap(spins: boolean | null, randomMs: number, appendMs: number): string {
  const costs =
    `a synced random write (A's send under always, median ` +
    `${formatFigure(randomMs)} ms) costs ${formatFigure(randomMs / appendMs)}× a synced ` +
    `append (B's, ${formatFigure(appendMs)} ms)`;
  if (spins === true) {
    return (
      `Why: this disk spins, so ${costs} — a seek and half a turn each — and even the ` +
      'same-policy gap is large.'
    );
  }
  const disk = spins === false ? 'this disk does not spin' : 'this disk may not spin';
  return (
    `Why the same-policy gap is small: ${disk} (see the notes), so ${costs}; the large ` +
    "gap is the course's, the disk's bandwidth against one sync per message."
  );
}

function why(metrics: readonly Metric[], verdict: SpinningVerdict | null): string {
  const median = (name: string) => metrics.find((metric) => metric.name === name)?.median;
  const random = median('puzzle.A.always.sendLatencyNs');
  const append = median('puzzle.B.always.sendLatencyNs');
  if (random === undefined || append === undefined) return '';
  return whyTheGap(verdict?.spins ?? null, random / 1e6, append / 1e6);
}

/** The series the open-loop phase drives: A and B under each policy `openLoopPolicies` names. */
function openLoopConfigs(ctx: LabContext, configs: readonly Config[]): Config[] {
  const policies = ctx.stringParam('openLoopPolicies').split(',');
  return configs.filter(
    (config) =>
      config.variant.key === config.variant.policy && policies.includes(config.variant.policy),
  );
}

interface OpenLoopRun {
  readonly config: Config;
  /** Sends per second of the closed-loop rounds' send phases: the median round's. */
  readonly closedSendsPerSec: number;
  /** One per offered rate, in OFFERED_PCTS order. */
  readonly series: readonly OpenLoopSeries[];
}

async function openLoopSeriesRound(ctx: LabContext, config: Config, series: OpenLoopSeries) {
  const flushed = flushDirtyPages();
  if (flushed !== null) ctx.note(`before an open-loop round: ${flushed}`);
  const phase = ctx.ioPhase(config.cycle.io);
  const round = await config.cycle.openLoopRound(
    series,
    ctx.numberParam('openLoopSeconds'),
    ctx.numberParam('producers'),
  );
  phase.end();
  return round;
}

/**
 * After the closed-loop rounds: each chosen series sends at fixed shares of the send rate its
 * closed-loop rounds reached, rates in turn and the series interleaved at each rate.
 */
async function openLoopPhase(ctx: LabContext, configs: readonly Config[]): Promise<OpenLoopRun[]> {
  const runs = openLoopConfigs(ctx, configs).map((config): OpenLoopRun => {
    const closedSendsPerSec = median(config.send.repetitions.map((rep) => rep.ratePerSec));
    return {
      config,
      closedSendsPerSec,
      series: offeredRates(closedSendsPerSec).map(
        (offered) => new OpenLoopSeries(M, config.prefix, config.labels, offered),
      ),
    };
  });
  const entries = OFFERED_PCTS.flatMap((pct, at) =>
    runs.map((run) => {
      const series = run.series[at] as OpenLoopSeries;
      return {
        name: `${nameOf(run.config)} open loop at ${pct}%`,
        round: () => openLoopSeriesRound(ctx, run.config, series),
      };
    }),
  );
  await interleave(ctx.numberParam('openLoopRounds'), entries, ctx.progress);
  return runs;
}

function openLoopMetrics(ctx: LabContext, runs: readonly OpenLoopRun[]): Metric[] {
  const producers = ctx.numberParam('producers');
  return runs.flatMap((run) =>
    run.series.flatMap((series) =>
      series.metrics(
        ctx.random,
        `the ${formatFigure(run.closedSendsPerSec)} sends/s of the closed-loop rounds' send ` +
          `phases, ${producers} producers; at most ${producers} sends in flight`,
      ),
    ),
  );
}

function openLoopNote(ctx: LabContext, runs: readonly OpenLoopRun[]): string {
  const names = runs.map((run) => run.config.prefix).join(', ');
  return (
    `Open loop (latency without coordinated omission): after the closed-loop rounds, ` +
    `${names} sent on a fixed schedule at ${OFFERED_PCTS.join('/')}% of the send rate their ` +
    `closed-loop rounds reached, ${ctx.numberParam('openLoopRounds')} rounds of ` +
    `${ctx.numberParam('openLoopSeconds')} s per rate, at most ` +
    `${ctx.numberParam('producers')} sends in flight; consumers then took as many, untimed. ` +
    "openLoopLatencyNs counts from each send's intended start, so a send queued behind a " +
    'slow one is charged its wait; openLoopServiceNs, from its actual start, is what a closed ' +
    'loop reports; openLoopLateSends counts sends a whole interval or more behind schedule.'
  );
}

function notes(ctx: LabContext): string[] {
  const slotBytes = ctx.numberParam('slotBytes');
  return [
    `Design A's ${slotBytes}-byte slot holds a ${bodyBytesFor(slotBytes)}-byte body after its ` +
      `${SLOT_HEADER_BYTES}-byte header; both designs send that same body (design B adds its ` +
      `${RECORD_HEADER_BYTES}-byte record header).`,
    `Each queue holds a backlog of ${ctx.numberParam('backlogMessages')} messages; consumers ` +
      `keep ${ctx.numberParam('inFlightMessages')} in flight and delete a random one each ` +
      "time. Design A's free list is last in, first out, so a send reuses the slot a recent " +
      'delete freed.',
    `group: one fdatasync covers every send waiting (${ctx.numberParam('producers')} ` +
      'producers); with no sync running one starts at the end of the event-loop turn, and ' +
      'sends made while it runs are synced together the moment it ends' +
      (ctx.numberParam('groupMaxDelayMs') > 0
        ? ` (after a delay of ${ctx.numberParam('groupMaxDelayMs')} ms).`
        : '.') +
      ' none: figures are page-cache speed; the ' +
      'bytes reach the disk at a sync after each round, not timed.',
    "The course's comparison: design B streaming runs under none and ends each round with one " +
      'fdatasync of the log, timed in the round (puzzle.B.course); design A synced per message ' +
      'is its always rounds (puzzle.A.course repeats puzzle.A.always).',
    "Deletes are kept differently, and each series says how: design A writes the slot's " +
      'state byte under the policy (synced under always, in the shared sync under group); ' +
      'design B saves its head, every 1,000 deletes or 1 s, and a delete past the saved head ' +
      'comes back after a crash (at-least-once). B cannot make one delete durable alone, so ' +
      'under always the nearest it comes, a head save at every delete that moves the head ' +
      '(puzzle.B.alwaysHeadEach), is measured beside it.',
    'Every figure is on a warm page cache (the queues were just written). Device bytes and ' +
      "I/Os are the whole disk's, so other programs' writes during a round count too.",
    "Predictions replay the recorded writes and syncs of this run's rounds (not the set-up " +
      'before them) against the disk models (docs/models.md); under none the model writes ' +
      'everything back once at the end.',
  ];
}

export async function run(ctx: LabContext): Promise<Results> {
  const rounds = ctx.numberParam('rounds');
  const configs: Config[] = [];
  try {
    await openConfigs(ctx, configs);
    for (const config of configs) {
      ctx.recordWarmUp(
        nameOf(config),
        await config.cycle.warmUp(ctx.numberParam('inFlightMessages')),
      );
    }
    const phases = rounds * configs.length * 2;
    const seconds = ctx.syncedRoundSeconds(phaseSeconds(ctx.secondsBudget, phases));
    const byName = await interleave(
      rounds,
      configs.map((config) => ({
        name: nameOf(config),
        round: () => measuredRound(ctx, config, seconds),
      })),
      ctx.progress,
    );
    const rates = new Map([...byName].map(([name, list]) => [name, list.map(ratePerSec)]));
    const metrics = [
      ...configs.flatMap((config) => configMetrics(ctx, config, byName.get(nameOf(config)) ?? [])),
      courseAMetric(rates),
      ...ratioMetrics(rates),
    ];
    // Before the open loop: the models replay the closed-loop rounds' trace alone.
    const predictions = [...modelPredictions(configs), ...coursePredictions()];
    const verdict = spinning(ctx, metrics);
    const openStartNs = process.hrtime.bigint();
    const open = await openLoopPhase(ctx, configs);
    const counters = { 'openLoop.elapsedNs': Number(process.hrtime.bigint() - openStartNs) };
    return ctx.results({
      metrics: [...metrics, ...openLoopMetrics(ctx, open)],
      predictions,
      counters,
      headline: headline(ctx, metrics, predictions, why(metrics, verdict)),
      notes: [
        ...notes(ctx),
        ...(verdict === null ? [] : [verdict.sentence]),
        openLoopNote(ctx, open),
      ],
    });
  } finally {
    for (const config of configs) await config.cycle.close();
  }
}

export const experiment: Experiment = {
  id: 'puzzle',
  question: 'why does the log store thousands of times more messages on the same disk?',
  params: {
    ...QUEUE_CYCLE_PARAMS,
    producers: { quick: 8, full: 16 },
    // Group commit as a log runs it by default: no delay beyond the event-loop turn.
    groupMaxDelayMs: { quick: 0, full: 0 },
    // The open-loop phase: short rounds in quick mode (the quick suite has 3 minutes), synced
    // rounds of SYNCED_ROUND_MIN_SECONDS in full mode.
    openLoopPolicies: { quick: 'always', full: 'always,group' },
    openLoopRounds: { quick: 2, full: 6 },
    openLoopSeconds: { quick: 0.15, full: 0.5 },
  },
  seed: 42,
  metrics: M,
  charts: PUZZLE_CHARTS,
  run,
};
