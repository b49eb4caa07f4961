/**
 * The puzzle (seed, lesson 2): on one disk, design A (a file of 1 KiB slots updated in place)
 * stores about 50 messages a second and design B (a log) about 278,000. Both designs do the same
 * send, receive and delete work here, at each durability policy, in interleaved rounds; beside
 * what this disk showed stand the disk models' estimates of the same run, priced from its write
 * trace, and the seed's datasheet arithmetic.
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
  counterMetric,
  estimatePrediction,
  estimateTrace,
  flushDirtyPages,
  formatFigure,
  hddSeedFigures,
  interleave,
  measuredMetric,
  metricFromSamples,
  perMessage,
  spinningVerdict,
} from '../lab/index.js';
import { DURABILITY_POLICIES, type DurabilityPolicy } from '../storage/durability.js';
import { RECORD_HEADER_BYTES } from '../storage/record.js';
import { SLOT_HEADER_BYTES } from '../storage/slot-file.js';
import {
  type CycleRound,
  DESIGNS,
  type Design,
  QUEUE_CYCLE_PARAMS,
  QueueCycle,
  bodyBytesFor,
  phaseSeconds,
} from './queue-cycle.js';

interface Config {
  readonly design: Design;
  readonly policy: DurabilityPolicy;
  readonly prefix: string;
  readonly cycle: QueueCycle;
  readonly send: Measurement;
  readonly consume: Measurement;
  readonly totals: PhaseTotals;
}

/** Opens every design at every policy into `configs`, so a failure can close what opened. */
async function openConfigs(ctx: LabContext, configs: Config[]): Promise<void> {
  for (const policy of DURABILITY_POLICIES) {
    for (const design of DESIGNS) {
      const labels = { design, policy };
      const cycle = await QueueCycle.open({
        design,
        policy,
        dir: path.join(ctx.dir, `${design}-${policy}`),
        slotBytes: ctx.numberParam('slotBytes'),
        backlogMessages: ctx.numberParam('backlogMessages'),
        inFlightMessages: ctx.numberParam('inFlightMessages'),
        groupMaxDelayMs: ctx.numberParam('groupMaxDelayMs'),
        random: ctx.random.fork(),
      });
      const prefix = `puzzle.${design}.${policy}`;
      configs.push({
        design, policy, prefix, cycle,
        send: new Measurement(`${prefix}.send`, 'async', labels),
        consume: new Measurement(`${prefix}.consume`, 'async', labels),
        totals: new PhaseTotals(),
      });
    }
  }
}

/** Runs one round of a design, with its I/O counted from a clean page cache to a final sync. */
async function measuredRound(ctx: LabContext, config: Config, seconds: number) {
  const flushed = flushDirtyPages();
  if (flushed !== null) ctx.note(`before a round: ${flushed}`);
  const phase = ctx.ioPhase(config.cycle.io);
  const round = await config.cycle.round(
    seconds, ctx.numberParam('producers'), config.send, config.consume);
  flushDirtyPages();
  config.totals.add(phase.end());
  return round;
}

function ratePerSec(round: CycleRound): number {
  return round.messages / (round.elapsedNs / 1e9);
}

function ioMetrics(config: Config, messages: number): Metric[] {
  const total = config.totals.total;
  if (total === null) return [];
  const figures = perMessage(total, messages);
  const labels = { design: config.design, policy: config.policy };
  const metrics: Metric[] = [];
  // The disk's counters are the whole disk's, after the kernel and the device had their say.
  const put = (quantity: string, unit: string, value: number | undefined, what: string) => {
    if (value === undefined) return;
    metrics.push(measuredMetric(`${config.prefix}.${quantity}`, unit, value,
      { class: 'measurement', direction: 'lower' }, labels, what));
  };
  put('deviceBytesPerMsg', 'B/msg', figures.deviceWriteBytesPerMsg,
    'bytes the disk wrote per message (its stat, after a sync ending each round)');
  put('deviceIosPerMsg', 'I/Os/msg', figures.deviceWriteIosPerMsg,
    'write requests the disk completed per message');
  put('deviceFlushesPerMsg', 'flushes/msg', figures.deviceFlushIosPerMsg,
    'cache flushes the disk completed per message');
  const fsyncs = total.fileIo === null
    ? undefined
    : (total.fileIo.fdatasyncCalls + total.fileIo.dirFsyncCalls) / messages;
  if (fsyncs === undefined) return metrics;
  const what = 'fdatasyncs and directory fsyncs the queue made per message (its FileIO counters)';
  // Design A syncs each write and delete itself; group commit's batches and design B's head
  // saves (every 1,000 deletes or 1 s) are decided by timing.
  metrics.push(config.design === 'A' && config.policy !== 'group'
    ? counterMetric(`${config.prefix}.fsyncsPerMsg`, 'fsyncs/msg', fsyncs, 'lower', labels, what)
    : measuredMetric(`${config.prefix}.fsyncsPerMsg`, 'fsyncs/msg', fsyncs,
      { class: 'measurement', direction: 'lower' }, labels, what));
  return metrics;
}

function configMetrics(ctx: LabContext, config: Config, rounds: readonly CycleRound[]): Metric[] {
  const labels = { design: config.design, policy: config.policy };
  const producers = ctx.numberParam('producers');
  const throughput = metricFromSamples(`${config.prefix}.msgsPerSec`, 'msgs/s',
    rounds.map(ratePerSec), {
      random: ctx.random, class: 'timing', direction: 'higher', labels,
      description: `messages sent, received and deleted per second, one sample per round ` +
        `(${producers} producers, then as many consumers, async closed loop)`,
    });
  const sendLatency = config.send.summarize(ctx.random).latencyNs;
  const messages = rounds.reduce((sum, round) => sum + round.messages, 0);
  return [
    throughput,
    { ...sendLatency, name: `${config.prefix}.sendLatencyNs`, labels,
      description: `time until a send was acknowledged; ${sendLatency.description ?? ''}` },
    ...ioMetrics(config, messages),
  ];
}

function ratioMetrics(ctx: LabContext, rates: ReadonlyMap<string, number[]>): Metric[] {
  return DURABILITY_POLICIES.map((policy) => {
    const a = rates.get(`A.${policy}`) ?? [];
    const b = rates.get(`B.${policy}`) ?? [];
    const samples = b.map((rateB, i) => rateB / (a[i] ?? Number.NaN));
    return metricFromSamples(`puzzle.${policy}.ratioBA`, 'ratio', samples, {
      random: ctx.random, class: 'timing', direction: 'higher', ratio: true, labels: { policy },
      description: 'design B messages per second over design A, round by round',
    });
  });
}

function modelPredictions(configs: readonly Config[]): Prediction[] {
  const predictions: Prediction[] = [];
  const rates = new Map<string, number>();
  for (const model of [EXOS_X20, SAMSUNG_990_PRO]) {
    for (const config of configs) {
      const estimate = estimateTrace(config.cycle.measuredTrace(), model);
      const labels = { design: config.design, policy: config.policy };
      const prediction = estimatePrediction(
        `${config.prefix}.msgsPerSec`, estimate, config.cycle.messagesMeasured, labels);
      predictions.push({ ...prediction, unit: 'msgs/s' });
      rates.set(`${estimate.model}.${config.design}.${config.policy}`, prediction.value);
    }
    for (const policy of DURABILITY_POLICIES) {
      const key = (design: Design) => `${model.kind}:${model.id}.${design}.${policy}`;
      const ratio = (rates.get(key('B')) ?? Number.NaN) / (rates.get(key('A')) ?? Number.NaN);
      predictions.push({ name: `puzzle.${policy}.ratioBA`, model: `${model.kind}:${model.id}`,
        unit: 'ratio', value: ratio, labels: { policy },
        basis: 'the two estimates above, B over A' });
    }
  }
  return predictions;
}

function seedPredictions(): Prediction[] {
  const seed = hddSeedFigures(EXOS_X20);
  const basis = "the seed's datasheet arithmetic for the Exos X20 (loglab model)";
  return [
    { name: 'puzzle.A.always.msgsPerSec', model: 'seed', unit: 'msgs/s',
      value: seed.designAMsgsPerSec, labels: { design: 'A', policy: 'always' },
      basis: `${basis}: two random writes per message at seek + half a turn each` },
    { name: 'puzzle.B.always.msgsPerSec', model: 'seed', unit: 'msgs/s',
      value: seed.designBMsgsPerSec, labels: { design: 'B', policy: 'always' },
      basis: `${basis}: sustained transfer rate over 1 KiB, what the drive absorbs; ` +
        'the seed adds that waiting for a sync per message costs more (lesson 3)' },
    { name: 'puzzle.always.ratioBA', model: 'seed', unit: 'ratio', value: seed.gap,
      labels: { policy: 'always' }, basis },
  ];
}

function predicted(predictions: readonly Prediction[], name: string, model: string): number {
  const found = predictions.find((item) => item.name === name && item.model === model);
  return found?.value ?? Number.NaN;
}

function headline(ctx: LabContext, metrics: readonly Metric[], predictions: Prediction[]): string {
  const measured = (name: string) => metrics.find((metric) => metric.name === name)?.median;
  const a = formatFigure(measured('puzzle.A.always.msgsPerSec') ?? Number.NaN);
  const b = formatFigure(measured('puzzle.B.always.msgsPerSec') ?? Number.NaN);
  const ratio = formatFigure(measured('puzzle.always.ratioBA') ?? Number.NaN);
  const hdd = (name: string) => formatFigure(predicted(predictions, name, 'hdd:exos-x20'));
  const seed = (name: string) => formatFigure(predicted(predictions, name, 'seed'));
  const disk = ctx.environment.device.model ?? ctx.environment.device.name ?? 'this disk';
  return `On ${disk} with an fdatasync per message, the log stored ${ratio}× as many messages ` +
    `as the slot file (B ${b} vs A ${a} msgs/s); on a 7,200 rpm disk the Exos X20 model ` +
    `puts this run at ${hdd('puzzle.always.ratioBA')}× (B ${hdd('puzzle.B.always.msgsPerSec')}` +
    ` vs A ${hdd('puzzle.A.always.msgsPerSec')}) and the seed's datasheet arithmetic at ` +
    `${seed('puzzle.always.ratioBA')}× (${seed('puzzle.B.always.msgsPerSec')} vs ` +
    `${seed('puzzle.A.always.msgsPerSec')}).`;
}

/** Whether the disk spins, from A's synced random slot writes (lab/spinning-verdict.ts). */
function spinningNote(ctx: LabContext, metrics: readonly Metric[]): string | null {
  const latency = metrics.find((metric) => metric.name === 'puzzle.A.always.sendLatencyNs');
  if (latency === undefined) return null;
  return spinningVerdict({
    rotational: ctx.environment.device.rotational,
    medianMs: latency.median / 1e6,
    roundMediansMs: (latency.samples ?? []).map((ns) => ns / 1e6),
  }).sentence;
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
    `group: one fdatasync covers every send waiting; a sync starts at most ` +
      `${ctx.numberParam('groupMaxDelayMs')} ms after the first unsynced write ` +
      `(${ctx.numberParam('producers')} producers). none: figures are page-cache speed; the ` +
      'bytes reach the disk at the sync ending each round.',
    'Every figure is on a warm page cache (the queues were just written). Device bytes and ' +
      "I/Os are the whole disk's, so other programs' writes during a round count too.",
    'Predictions replay the recorded writes and syncs of this run\'s rounds (not the set-up ' +
      'before them) against the disk models (docs/models.md); under none the model writes ' +
      'everything back once at the end.',
  ];
}

export async function run(ctx: LabContext): Promise<Results> {
  const rounds = ctx.numberParam('rounds');
  const configs: Config[] = [];
  try {
    await openConfigs(ctx, configs);
    for (const config of configs) await config.cycle.warmUp(ctx.numberParam('inFlightMessages'));
    const phases = rounds * configs.length * 2;
    const seconds = phaseSeconds(ctx.secondsBudget, phases);
    const byDesign = await interleave(rounds, configs.map((config) => ({
      name: `${config.design}.${config.policy}`,
      round: () => measuredRound(ctx, config, seconds),
    })), ctx.progress);
    const rates = new Map([...byDesign].map(([name, list]) => [name, list.map(ratePerSec)]));
    const metrics = [
      ...configs.flatMap((config) =>
        configMetrics(ctx, config, byDesign.get(`${config.design}.${config.policy}`) ?? [])),
      ...ratioMetrics(ctx, rates),
    ];
    const predictions = [...modelPredictions(configs), ...seedPredictions()];
    const spinning = spinningNote(ctx, metrics);
    return ctx.results({
      metrics, predictions, headline: headline(ctx, metrics, predictions),
      notes: spinning === null ? notes(ctx) : [...notes(ctx), spinning],
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
    groupMaxDelayMs: { quick: 1, full: 1 },
  },
  seed: 42,
  run,
};
