/**
 * Write amplification (the course, lesson 2, "On an SSD the Gap Shrinks"): how many bytes reach the
 * device per 1 KiB message. The course predicts about 8 KiB for design A (a send and a delete each
 * rewrite a 4 KiB page) and about 1 KiB for design B (the message appended once). Both designs do
 * the puzzle's send, receive and delete work in interleaved rounds, with no sync until the end of
 * each round (`none`) and with an fdatasync per write (`always`); the device's own counters, read
 * after a sync, say what reached it.
 *
 * The total is split where it can be told honestly: `data` is the filesystem blocks the
 * program's writes dirtied, each counted once per sync that wrote it (from the run's write trace;
 * lab/models/trace-blocks.ts says why not /proc/self/io), `journal` is zero only when the
 * filesystem provably has none, and `metadata` is what remains of the total — inode, extent and
 * bitmap blocks, and whatever other programs wrote to the shared disk meanwhile.
 *
 * Design B under `always` is the log's synced append, so its total is also given as a byte
 * ledger (lab/models/byte-ledger.ts): the data share split by cause (record pages, preallocation,
 * the indexes, the recovery point, the queue's head) and the rest as metadata and journal.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  type Experiment,
  type JournalInfo,
  type LabContext,
  Measurement,
  type Metric,
  type PhaseIo,
  PhaseTotals,
  type Prediction,
  type Results,
  SAMSUNG_990_PRO,
  describeJournal,
  flushDirtyPages,
  flushedBlocks,
  formatBytes,
  interleave,
  ssdCourseFigures,
} from '../lab/index.js';
import {
  type TracedBytes,
  NOTHING_TRACED,
  addTraced,
  attributeTrace,
  byteLedger,
  describeLedger,
} from '../lab/models/byte-ledger.js';
import { type DurabilityPolicy, recordSizeBytes } from '../storage/index.js';
import {
  WRITE_AMPLIFICATION_CHARTS,
  WRITE_AMPLIFICATION_METRICS,
} from './metrics/write-amplification.js';
import {
  type CycleRound,
  DESIGNS,
  type Design,
  QUEUE_CYCLE_PARAMS,
  QueueCycle,
  bodyBytesFor,
  phaseSeconds,
} from './support/queue-cycle.js';

const POLICIES: readonly DurabilityPolicy[] = ['none', 'always'];

interface Config {
  readonly design: Design;
  readonly policy: DurabilityPolicy;
  readonly cycle: QueueCycle;
  readonly send: Measurement;
  readonly consume: Measurement;
  readonly totals: PhaseTotals;
  /** Data blocks the rounds' writes sent to the disk, in bytes. */
  dataBytes: number;
  /** The same blocks by cause, for the configuration with a ledger (hasLedger). */
  traced: TracedBytes;
}

/** The log's synced append: the configuration whose bytes get a ledger. */
function hasLedger(config: Pick<Config, 'design' | 'policy'>): boolean {
  return config.design === 'B' && config.policy === 'always';
}

type Share = 'total' | 'data' | 'journal' | 'metadata';

async function openConfigs(ctx: LabContext, configs: Config[]): Promise<void> {
  for (const policy of POLICIES) {
    for (const design of DESIGNS) {
      const cycle = await QueueCycle.open({
        design,
        policy,
        dir: path.join(ctx.dir, `${design}-${policy}`),
        slotBytes: ctx.numberParam('slotBytes'),
        backlogMessages: ctx.numberParam('backlogMessages'),
        inFlightMessages: ctx.numberParam('inFlightMessages'),
        groupMaxDelayMs: 0,
        random: ctx.random.fork(),
      });
      const name = `write-amplification.${design}.${policy}`;
      configs.push({
        design,
        policy,
        cycle,
        totals: new PhaseTotals(),
        dataBytes: 0,
        traced: NOTHING_TRACED,
        send: new Measurement(`${name}.send`, 'async'),
        consume: new Measurement(`${name}.consume`, 'async'),
      });
    }
  }
}

async function measuredRound(ctx: LabContext, config: Config, seconds: number) {
  const flushed = flushDirtyPages();
  if (flushed !== null) ctx.note(`before a round: ${flushed}`);
  const { trace } = config.cycle.io;
  const fromEvent = trace.length;
  const phase = ctx.ioPhase(config.cycle.io);
  const round = await config.cycle.round(seconds, 1, config.send, config.consume);
  // Under `none` the round's bytes reach the disk here, inside the phase.
  flushDirtyPages();
  config.totals.add(phase.end());
  const blockBytes = fs.statfsSync(ctx.dir).bsize;
  config.dataBytes += flushedBlocks(trace, fromEvent, trace.length, blockBytes) * blockBytes;
  if (hasLedger(config)) {
    const traced = attributeTrace(trace, fromEvent, trace.length, blockBytes);
    config.traced = addTraced(config.traced, traced);
  }
  return round;
}

/** Bytes per message by share; a share that cannot be told is left out. */
export function shareBytes(
  total: PhaseIo,
  dataBytes: number,
  journal: JournalInfo,
): Partial<Record<Share, number>> {
  if (total.device === null) return {};
  const shares: Partial<Record<Share, number>> = { total: total.device.writeBytes };
  const data = dataBytes;
  shares.data = data;
  if (journal.kind !== 'none') return shares;
  shares.journal = 0;
  const rest = total.device.writeBytes - data;
  if (rest >= 0) shares.metadata = rest;
  return shares;
}

const SHARE_DESCRIPTIONS: Readonly<Record<Share, string>> = {
  total: 'bytes the disk wrote per message (its stat, after a sync ending each round)',
  data:
    "filesystem blocks the program's writes dirtied, per message, each counted once per " +
    "sync that wrote it (from the run's write trace)",
  journal: 'journal bytes per message: zero, the filesystem has no journal',
  metadata:
    "the rest of the total: inode, extent and bitmap blocks, and other programs' " +
    'writes to the shared disk',
};

function configMetrics(config: Config, rounds: readonly CycleRound[], journal: JournalInfo) {
  const total = config.totals.total;
  const messages = rounds.reduce((sum, round) => sum + round.messages, 0);
  if (total === null || messages === 0) return [];
  const prefix = `write-amplification.${config.design}.${config.policy}`;
  const labels = { design: config.design, policy: config.policy };
  return Object.entries(shareBytes(total, config.dataBytes, journal)).map(([share, bytes]) =>
    WRITE_AMPLIFICATION_METRICS.deviceBytesPerMsg.measured(
      `${prefix}.${share}.deviceBytesPerMsg`,
      bytes / messages,
      { ...labels, share },
      SHARE_DESCRIPTIONS[share as Share],
    ),
  );
}

/** The pooled ledger of design B under always; null without the device's total. */
function ledgerOf(config: Config, rounds: readonly CycleRound[]) {
  const device = config.totals.total?.device ?? null;
  const messages = rounds.reduce((sum, round) => sum + round.messages, 0);
  if (!hasLedger(config) || device === null || messages === 0) return null;
  return byteLedger(config.traced, device.writeBytes, messages);
}

/** One row per cause; they add up to the configuration's total.deviceBytesPerMsg. */
function ledgerMetrics(config: Config, rounds: readonly CycleRound[]): Metric[] {
  const ledger = ledgerOf(config, rounds);
  if (ledger === null) return [];
  const prefix = `write-amplification.${config.design}.${config.policy}`;
  return ledger.rows.map((row) =>
    WRITE_AMPLIFICATION_METRICS.ledgerBytesPerMsg.measured(
      `${prefix}.${row.cause}.ledgerBytesPerMsg`,
      row.bytesPerMsg,
      { design: config.design, policy: config.policy, cause: row.cause },
      row.title,
    ),
  );
}

function ratioMetrics(metrics: readonly Metric[]): Metric[] {
  return POLICIES.flatMap((policy) => {
    const bytes = (design: Design) =>
      metrics.find(
        (metric) =>
          metric.name === `write-amplification.${design}.${policy}.total.deviceBytesPerMsg`,
      )?.median;
    const a = bytes('A');
    const b = bytes('B');
    if (a === undefined || b === undefined || b === 0) return [];
    return [
      WRITE_AMPLIFICATION_METRICS.ratioAB.measured(
        `write-amplification.${policy}.ratioAB`,
        a / b,
        { policy },
        'device bytes per message, design A over design B',
      ),
    ];
  });
}

function throughputMetrics(config: Config, rounds: readonly CycleRound[]): Metric {
  const rates = rounds.map((round) => round.messages / (round.elapsedNs / 1e9));
  return WRITE_AMPLIFICATION_METRICS.msgsPerSec.fromSamples(
    `write-amplification.${config.design}.${config.policy}.msgsPerSec`,
    rates,
    { design: config.design, policy: config.policy },
    'messages sent, received and deleted per second (one producer), per round',
  );
}

/** The course's figures, beside the totals under `always` (its per-write page rewrites). */
function coursePredictions(): Prediction[] {
  const course = ssdCourseFigures(SAMSUNG_990_PRO);
  const courseBytes: Record<Design, number> = {
    A: course.bytesPerMessageA,
    B: course.bytesPerMessageB,
  };
  return DESIGNS.map(
    (design): Prediction => ({
      name: `write-amplification.${design}.always.total.deviceBytesPerMsg`,
      model: 'course',
      unit: 'B/msg',
      value: courseBytes[design],
      labels: { design, policy: 'always', share: 'total' },
      basis:
        design === 'A'
          ? 'the course: a send and a delete each rewrite one whole 4 KiB page'
          : 'the course: the message appended once',
    }),
  );
}

function headline(metrics: readonly Metric[]): string {
  const bytes = (design: Design, policy: DurabilityPolicy) => {
    const name = `write-amplification.${design}.${policy}.total.deviceBytesPerMsg`;
    const value = metrics.find((metric) => metric.name === name)?.median;
    return value === undefined ? 'no device figure' : formatBytes(Math.round(value));
  };
  return (
    `With an fdatasync per write, design A put ${bytes('A', 'always')} on the device per ` +
    `message and design B ${bytes('B', 'always')} (the course predicts 8 KiB and 1 KiB); with ` +
    `one sync at the end of each round, ${bytes('A', 'none')} and ${bytes('B', 'none')}.`
  );
}

function notes(ctx: LabContext, journal: JournalInfo): string[] {
  const split =
    journal.kind === 'none'
      ? `The journal share is zero because ${journal.evidence}; metadata is the total less the ` +
        "data, and counts other programs' writes to the shared disk too."
      : `Only total and data are given: ${journal.evidence}, and the journal's bytes cannot be ` +
        'told apart from metadata with the counters the kernel offers (jbd2 keeps rounded averages).';
  const bodyBytes = bodyBytesFor(ctx.numberParam('slotBytes'));
  return [
    split,
    `Messages are ${bodyBytes}-byte bodies in ${ctx.numberParam('slotBytes')}-byte slots ` +
      `(design A) or ${recordSizeBytes(bodyBytes)}-byte records (design B); ` +
      'one producer and one consumer, page cache warm.',
    'Why the disk differs from the course: a synced append rewrites the whole partly filled last ' +
      "page of the log, not only the new kilobyte, and the log's index and checkpoint files add " +
      'their own pages; under always the log preallocates its segment, so a sync need not write ' +
      'a new file size (metadata stays small). Without syncs, several writes to one page share ' +
      'one write-back.',
  ];
}

export async function run(ctx: LabContext): Promise<Results> {
  const rounds = ctx.numberParam('rounds');
  const journal = describeJournal(ctx.environment.filesystem);
  const configs: Config[] = [];
  try {
    await openConfigs(ctx, configs);
    for (const config of configs) {
      const warmUp = await config.cycle.warmUp(ctx.numberParam('inFlightMessages'));
      ctx.recordWarmUp(`${config.design}.${config.policy}`, warmUp);
    }
    const phases = rounds * configs.length * 2;
    const share = phaseSeconds(ctx.secondsBudget, phases);
    const seconds = ctx.syncedRoundSeconds(share);
    const byDesign = await interleave(
      rounds,
      configs.map((config) => ({
        name: `${config.design}.${config.policy}`,
        round: () => measuredRound(ctx, config, seconds),
      })),
      ctx.progress,
    );
    const roundsOf = (config: Config) => byDesign.get(`${config.design}.${config.policy}`) ?? [];
    const bytes = configs.flatMap((config) => configMetrics(config, roundsOf(config), journal));
    const metrics = [
      ...bytes,
      ...configs.flatMap((config) => ledgerMetrics(config, roundsOf(config))),
      ...ratioMetrics(bytes),
      ...configs.map((config) => throughputMetrics(config, roundsOf(config))),
    ];
    // A prediction stands beside a measured figure; without device counters there is none.
    const beside = coursePredictions().filter((prediction) =>
      metrics.some((metric) => metric.name === prediction.name),
    );
    const ledgers = configs.flatMap((config) => {
      const ledger = ledgerOf(config, roundsOf(config));
      return ledger === null
        ? []
        : [
            `Design ${config.design} under ${config.policy}, its ` +
              `device bytes by cause (lab/models/byte-ledger.ts): ${describeLedger(ledger)}.`,
          ];
    });
    return ctx.results({
      metrics,
      predictions: beside,
      headline: headline(metrics),
      notes: [...notes(ctx, journal), ...ledgers],
    });
  } finally {
    for (const config of configs) await config.cycle.close();
  }
}

export const experiment: Experiment = {
  id: 'write-amplification',
  question: 'how many bytes reach the device per message?',
  // Device bytes are summed over the rounds and nothing here is gated, so the quick run needs
  // no six rounds for an interval (the puzzle, whose ratios are gated, keeps them): three
  // rounds keep the quick suite within its three minutes.
  params: { ...QUEUE_CYCLE_PARAMS, rounds: { quick: 3, full: QUEUE_CYCLE_PARAMS.rounds.full } },
  seed: 43,
  metrics: WRITE_AMPLIFICATION_METRICS,
  charts: WRITE_AMPLIFICATION_CHARTS,
  run,
};
