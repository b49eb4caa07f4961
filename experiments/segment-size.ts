/**
 * segment-size: what does the segment size trade?
 *
 * Segment sizes of 4, 8, 64 and 100 MiB and 1 GiB (the course's, NATS's, ours, NSQ's and Kafka's;
 * divided by `sizeDivisor` with --quick), one log each of the same total size of 1 KiB messages,
 * built side by side in interleaved rounds. Per size: the cost of a roll (timed append that starts
 * a segment), files per GiB, the time to open the log after a clean close and after a crash that
 * left no recovery point in the active segment (its whole content scanned), lookup latency of
 * random offsets across all segments, and the retention lag for a stated consumer pattern. Beside
 * them, the course's table: how long one segment lasts at 5 messages a second of 1 KiB
 * (lab/plan/capacity.ts, which `loglab plan` shares).
 *
 * Every log ends with a full active segment, so a crash scan reads one whole segment at every
 * size (the worst case) and the logs are a little larger than the stated total where the size
 * does not divide it.
 */
import * as path from 'node:path';
import {
  type Experiment,
  type LabContext,
  Measurement,
  type Metric,
  type Prediction,
  type Results,
  COURSE_NORMAL_TRAFFIC,
  formatBytes,
  interleave,
  measureSync,
  secondsToFill,
} from '../lab/index.js';
import { GiB, Log, MiB, NodeFileIO, RECORD_HEADER_BYTES } from '../storage/index.js';
import {
  assert,
  dropRecoveryPoint,
  rewindLogDir,
  segmentFileNamesIn,
  snapshotLogDir,
} from '../storage/testing/index.js';
import { formatNs } from './support/figures.js';
import { SEGMENT_SIZE_CHARTS, SEGMENT_SIZE_METRICS } from './metrics/segment-size.js';
import { recordBodies } from './support/record-bodies.js';
import { timedLogOpen } from './support/timed-open.js';
import { randomOffsets } from './support/targets.js';

/**
 * NATS work queues, NATS streams, this broker, NSQ, Kafka (the course, lesson 2, "Choosing the
 * Segment Size").
 */
export const SEGMENT_SIZES_BYTES: readonly number[] = [4 * MiB, 8 * MiB, 64 * MiB, 100 * MiB, GiB];
/** The course's message: 1,024 bytes of body; the record adds its 16-byte header. */
const MESSAGE_BYTES = COURSE_NORMAL_TRAFFIC.messageBytes;
const RECORD_BYTES = MESSAGE_BYTES + RECORD_HEADER_BYTES;
const APPEND_BATCH_RECORDS = 1024;
const LOOKUP_SHARE = 0.3;
const WARM_TARGETS = 4096;

export const experiment: Experiment = {
  id: 'segment-size',
  question: 'what does the segment size trade?',
  params: {
    sizeDivisor: { quick: 64, full: 1 },
    totalBytes: { quick: 24 * MiB, full: 1536 * MiB },
    rounds: { quick: 2, full: 4 },
    /** 5 minutes (Kafka's retention check interval) at 5 messages a second; quick: / 64. */
    retentionCheckMessages: { quick: 23, full: 1500 },
  },
  seed: 100,
  metrics: SEGMENT_SIZE_METRICS,
  charts: SEGMENT_SIZE_CHARTS,
  run,
};

interface SizeSetting {
  readonly segmentBytes: number;
  readonly key: string;
  readonly dir: string;
  readonly io: NodeFileIO;
  readonly labels: { readonly segmentBytes: number };
  readonly roll: Measurement;
  readonly open: Measurement;
  readonly recovery: Measurement;
  readonly lookup: Measurement;
  readonly groupRoll: Measurement;
  log: Log;
  appendedBytes: number;
  activeBytes: number;
  recoveryScannedBytes: number;
}

interface Shape {
  readonly segments: number;
  readonly files: number;
  readonly sizeBytes: number;
  readonly recordsPerSegment: number;
}

interface Lag {
  readonly meanBytes: number;
  readonly maxBytes: number;
  readonly checks: number;
}

async function run(ctx: LabContext): Promise<Results> {
  const divisor = ctx.numberParam('sizeDivisor');
  const totalBytes = ctx.numberParam('totalBytes');
  const sizes = SEGMENT_SIZES_BYTES.map((bytes) => bytes / divisor);
  assert(sizes.every(Number.isSafeInteger), `sizeDivisor ${divisor} divides every segment size`);
  assert(
    sizes.every((bytes) => bytes >= 2 * RECORD_BYTES),
    'segments hold two records at least',
  );
  assert(totalBytes > Math.max(...sizes), 'the total spans two segments of the largest size');
  // Each log ends with a full segment: at most one segment beyond the total, and its indexes;
  // a roll under group preallocates the next segment's first extent (at most a segment).
  const logsBytes = sizes.reduce((sum, bytes) => sum + (totalBytes + bytes) * 1.1, 0);
  ctx.ensureFreeSpace(logsBytes + Math.max(...sizes));
  const settings = sizes.map((segmentBytes) => openSetting(ctx, segmentBytes));
  try {
    await build(ctx, settings, totalBytes);
    const shapes = settings.map(shapeOf);
    await measureOpens(ctx, settings);
    await measureGroupRolls(ctx, settings);
    await measureLookups(ctx, settings);
    const lags = settings.map((setting) => retentionLag(ctx, setting));
    return ctx.results(resultsParts(ctx, settings, shapes, lags));
  } finally {
    for (const setting of settings) await setting.log.close();
  }
}

function openSetting(ctx: LabContext, segmentBytes: number): SizeSetting {
  const key = String(segmentBytes);
  const dir = path.join(ctx.dir, `segments-${key}`);
  const io = new NodeFileIO();
  const labels = { segmentBytes };
  const measurement = (what: string) =>
    new Measurement(`segment-size.${key}.${what}`, 'sync', labels);
  return {
    segmentBytes,
    key,
    dir,
    io,
    labels,
    roll: measurement('roll'),
    open: measurement('open'),
    recovery: measurement('recovery'),
    lookup: measurement('lookup'),
    groupRoll: new Measurement(`segment-size.${key}.groupRoll`, 'sync', {
      ...labels,
      durability: 'group',
    }),
    log: Log.open(dir, { durability: 'none', segmentBytes, io }),
    appendedBytes: 0,
    activeBytes: 0,
    recoveryScannedBytes: 0,
  };
}

/** Appends in interleaved rounds, timing every append that rolls, then fills the last segment. */
async function build(ctx: LabContext, settings: readonly SizeSetting[], totalBytes: number) {
  const [body] = recordBodies(ctx.random.fork(), RECORD_BYTES);
  const batch = new Array<Buffer>(APPEND_BATCH_RECORDS).fill(body!);
  const rounds = ctx.numberParam('rounds');
  await interleave(
    rounds,
    settings.map((setting) => ({
      name: `append to ${formatBytes(setting.segmentBytes)} segments`,
      round: (round: number) => appendUntil(setting, batch, (totalBytes * (round + 1)) / rounds),
    })),
    ctx.progress,
  );
  for (const setting of settings) {
    appendUntil(setting, batch, Number.POSITIVE_INFINITY);
    const active = setting.log.segments().at(-1);
    assert(active?.sizeBytes === setting.activeBytes, `${setting.key}: active size tracked`);
    await setting.log.close();
  }
}

/**
 * Appends until `untilBytes` are written; with no limit, until the active segment is full. The
 * append that starts a segment is timed alone: the roll syncs the full segment (durability none
 * left it all in the page cache), creates three files and saves a recovery point.
 */
function appendUntil(setting: SizeSetting, batch: readonly Buffer[], untilBytes: number): number {
  const body = batch[0]!;
  const frameBytes = RECORD_BYTES;
  const fillOnly = untilBytes === Number.POSITIVE_INFINITY;
  let rolls = 0;
  while (fillOnly || setting.appendedBytes < untilBytes) {
    const room = Math.floor((setting.segmentBytes - setting.activeBytes) / frameBytes);
    if (room === 0 && fillOnly) break;
    if (room === 0) {
      measureSync(setting.roll, () => setting.log.appendNoWait(body), { ops: 1 });
      setting.activeBytes = frameBytes;
      setting.appendedBytes += frameBytes;
      rolls++;
      continue;
    }
    const wanted = fillOnly ? room : Math.ceil((untilBytes - setting.appendedBytes) / frameBytes);
    const count = Math.min(room, APPEND_BATCH_RECORDS, wanted);
    setting.log.appendBatchNoWait(batch.slice(0, count));
    setting.activeBytes += count * frameBytes;
    setting.appendedBytes += count * frameBytes;
  }
  return rolls;
}

function shapeOf(setting: SizeSetting): Shape {
  const log = Log.open(setting.dir, {
    durability: 'none',
    segmentBytes: setting.segmentBytes,
    io: setting.io,
  });
  const segments = log.segments();
  void log.close();
  const files = segmentFileNamesIn(setting.dir).length;
  const second = segments[1];
  assert(second !== undefined, `${setting.key}: the log rolled at least once`);
  return {
    segments: segments.length,
    files,
    sizeBytes: segments.reduce((sum, segment) => sum + segment.sizeBytes, 0),
    recordsPerSegment: second.baseOffset - segments[0]!.baseOffset,
  };
}

/**
 * Opens after a clean close and after a crash that left no recovery point in the active segment
 * (the file removed: recovery scans the whole active segment), interleaved across sizes.
 */
async function measureOpens(ctx: LabContext, settings: readonly SizeSetting[]): Promise<void> {
  const designs = settings.flatMap((setting) => {
    const options = { segmentBytes: setting.segmentBytes, io: setting.io };
    const openOnce = (measurement: Measurement) => {
      const { repetition, report } = timedLogOpen(measurement, setting.dir, options);
      if (measurement === setting.recovery) setting.recoveryScannedBytes = report.scannedBytes;
      return repetition;
    };
    return [
      { name: `open ${setting.key}`, round: () => openOnce(setting.open) },
      {
        name: `recover ${setting.key}`,
        round: () => {
          dropRecoveryPoint(setting.dir);
          return openOnce(setting.recovery);
        },
      },
    ];
  });
  await interleave(ctx.numberParam('rounds'), designs, ctx.progress);
}

/**
 * The roll under durability group, from the full active segment each log ends with: the append
 * that rolls syncs the segment, saves a recovery point, and (preallocation, on under group)
 * zero-fills the new segment to its full size and syncs it. Afterwards the new segment's files
 * are removed and the recovery point put back, so every round starts from the same full segment.
 */
async function measureGroupRolls(ctx: LabContext, settings: readonly SizeSetting[]) {
  const [body] = recordBodies(ctx.random.fork(), RECORD_BYTES);
  await interleave(
    ctx.numberParam('rounds'),
    settings.map((setting) => ({
      name: `roll under group, ${formatBytes(setting.segmentBytes)} segments`,
      round: async () => {
        const snapshot = snapshotLogDir(setting.dir);
        const log = Log.open(setting.dir, {
          segmentBytes: setting.segmentBytes,
          io: setting.io,
          durability: 'group',
        });
        const repetition = measureSync(setting.groupRoll, () => log.appendNoWait(body!), {
          ops: 1,
        });
        await log.close();
        rewindLogDir(snapshot);
        return repetition;
      },
    })),
    ctx.progress,
  );
}

/** Random offsets across every segment, warm, after each segment's index was loaded once. */
async function measureLookups(ctx: LabContext, settings: readonly SizeSetting[]): Promise<void> {
  const rounds = ctx.numberParam('rounds');
  const seconds = (ctx.secondsBudget * LOOKUP_SHARE) / (settings.length * rounds);
  const designs = settings.map((setting) => {
    setting.log = Log.open(setting.dir, {
      durability: 'none',
      segmentBytes: setting.segmentBytes,
      io: setting.io,
    });
    const log = setting.log;
    for (const segment of log.segments()) log.read(segment.baseOffset);
    const targets = randomOffsets(ctx.random.fork(), log.endOffset, WARM_TARGETS);
    return {
      name: `lookups across ${formatBytes(setting.segmentBytes)} segments`,
      round: () =>
        measureSync(setting.lookup, (i) => log.read(targets[i % WARM_TARGETS]!).sizeBytes, {
          seconds,
        }),
    };
  });
  await interleave(rounds, designs, ctx.progress);
}

/** Log bytes on disk below `head`: whole segments below its segment, and its own start. */
function lagAt(log: Log, head: number): number {
  const at = log.read(head);
  const below = log.segments().filter((segment) => segment.baseOffset < at.segmentBaseOffset);
  return below.reduce((sum, segment) => sum + segment.sizeBytes, 0) + at.positionBytes;
}

/**
 * The consumer pattern: one consumer keeps pace with the producer and retention checks every
 * `retentionCheckMessages` messages (5 minutes, Kafka's default check interval, at the course's 5
 * messages a second), deleting every segment wholly below the consumer. The lag grows between
 * checks and drops at each; it is sampled just before and just after every check. Destructive:
 * it runs last.
 */
function retentionLag(ctx: LabContext, setting: SizeSetting): Lag {
  const { log } = setting;
  const checkMessages = ctx.numberParam('retentionCheckMessages');
  const lags: number[] = [];
  let head: number = log.startOffset;
  while (head < log.endOffset - 1) {
    head = Math.min(log.endOffset - 1, head + checkMessages);
    lags.push(lagAt(log, head));
    log.deleteSegmentsBelow(head);
    lags.push(lagAt(log, head));
  }
  assert(lags.length > 0, `${setting.key}: retention checked at least once`);
  return {
    meanBytes: lags.reduce((sum, lag) => sum + lag, 0) / lags.length,
    maxBytes: Math.max(...lags),
    checks: lags.length / 2,
  };
}

function sizeMetrics(ctx: LabContext, setting: SizeSetting, shape: Shape, lag: Lag): Metric[] {
  const prefix = `segment-size.${setting.key}`;
  const { labels } = setting;
  const latency = (measurement: Measurement) => measurement.summarize(ctx.random).latencyNs;
  const lifetime = shape.recordsPerSegment / COURSE_NORMAL_TRAFFIC.msgsPerSec;
  const M = SEGMENT_SIZE_METRICS;
  return [
    M.rollNs.adopt(`${prefix}.rollNs`, latency(setting.roll)),
    M.groupRollNs.adopt(`${prefix}.groupRollNs`, latency(setting.groupRoll)),
    M.openNs.adopt(`${prefix}.openNs`, latency(setting.open)),
    M.recoveryNs.adopt(`${prefix}.recoveryNs`, latency(setting.recovery)),
    M.lookupLatencyNs.adopt(`${prefix}.lookupLatencyNs`, latency(setting.lookup)),
    M.retentionLagBytes.counter(
      `${prefix}.retentionLagBytes`,
      lag.meanBytes,
      labels,
      'log bytes left on disk below the consumer, mean of the lag just before and just after ' +
        'each retention check',
    ),
    M.retentionLagBytesMax.counter(
      `${prefix}.retentionLagBytesMax`,
      lag.maxBytes,
      labels,
      'the same, largest (just before a check)',
    ),
    M.filesPerGiB.counter(
      `${prefix}.filesPerGiB`,
      (shape.files * GiB) / shape.sizeBytes,
      labels,
      'segment files (.log, .index, .timeindex) per GiB of log',
    ),
    M.segments.counter(`${prefix}.segments`, shape.segments, labels),
    M.lifetimeSeconds.counter(
      `${prefix}.lifetimeSeconds`,
      lifetime,
      labels,
      'how long one segment lasts at 5 messages a second: the 1 KiB messages a full segment ' +
        'held here (16-byte headers included) over the rate',
    ),
  ];
}

function courseTable(settings: readonly SizeSetting[]): Prediction[] {
  return settings.map((setting) => ({
    name: `segment-size.${setting.key}.lifetimeSeconds`,
    model: 'course',
    unit: 's',
    value: secondsToFill(setting.segmentBytes, COURSE_NORMAL_TRAFFIC),
    basis:
      `course: ${formatBytes(setting.segmentBytes)} / (5 messages/s × 1,024 B), headers ` +
      'left out (lab/plan/capacity.ts secondsToFill)',
  }));
}

function resultsParts(
  ctx: LabContext,
  settings: readonly SizeSetting[],
  shapes: readonly Shape[],
  lags: readonly Lag[],
) {
  const metrics = settings.flatMap((setting, i) => sizeMetrics(ctx, setting, shapes[i]!, lags[i]!));
  const counters: Record<string, number> = {};
  settings.forEach((setting, i) => {
    counters[`${setting.key}.logBytes`] = shapes[i]!.sizeBytes;
    counters[`${setting.key}.recordsPerSegment`] = shapes[i]!.recordsPerSegment;
    counters[`${setting.key}.recoveryScannedBytes`] = setting.recoveryScannedBytes;
    counters[`${setting.key}.retentionChecks`] = lags[i]!.checks;
    counters[`${setting.key}.lookupChecksum`] = setting.lookup.checksum;
  });
  return {
    metrics,
    counters,
    predictions: courseTable(settings),
    notes: notes(ctx),
    headline: headline(settings, metrics),
  };
}

function notes(ctx: LabContext): string[] {
  const checkMessages = ctx.numberParam('retentionCheckMessages');
  return [
    `Each log holds at least ${formatBytes(ctx.numberParam('totalBytes'))} of 1 KiB messages ` +
      '(1,040-byte records) appended with durability none, and ends with a full active segment.',
    'rollNs is the append that starts a segment under durability none: it writes and closes ' +
      "the full segment's index files and creates three new files; nothing is synced. " +
      'groupRollNs is the same append under durability group: it also syncs the full segment, ' +
      'saves a recovery point and zero-fills the new segment to its full size (preallocation) ' +
      'and syncs that, so it grows with the segment.',
    'openNs opens the log after a clean close (one open and fstat per segment, the active ' +
      "segment's index loaded); recoveryNs after removing the recovery point, so the whole " +
      'active segment is checked record by record: what a crash under durability group costs ' +
      "just before the segment fills (its last recovery point is the roll's, at the segment " +
      'start).',
    'Lookups are of random offsets across all segments, with a warm cache, after every ' +
      "segment's index was loaded once.",
    'Retention lag: one consumer keeps pace with the producer; retention checks every ' +
      `${checkMessages.toLocaleString('en-US')} messages (5 minutes, Kafka's default check ` +
      'interval, at 5 messages a second; divided like the sizes with --quick) and deletes every ' +
      'segment wholly below the consumer. The lag is the log bytes still on disk below it: ' +
      'about half a segment plus half a check interval, since only whole segments can go.',
  ];
}

function headline(settings: readonly SizeSetting[], metrics: readonly Metric[]): string {
  const first = settings[0];
  const last = settings.at(-1);
  if (first === undefined || last === undefined) return 'Segment sizes measured; see the table.';
  const at = (setting: SizeSetting, quantity: string) =>
    metrics.find((metric) => metric.name === `segment-size.${setting.key}.${quantity}`)?.median;
  const range = (quantity: string, format: (value: number) => string) =>
    `${format(at(first, quantity) ?? 0)} to ${format(at(last, quantity) ?? 0)}`;
  const lifetime = (setting: SizeSetting) =>
    secondsToFill(setting.segmentBytes, COURSE_NORMAL_TRAFFIC);
  return (
    `From ${formatBytes(first.segmentBytes)} to ${formatBytes(last.segmentBytes)} segments, ` +
    `opening the log took ${range('openNs', formatNs)}, a crash scan ` +
    `${range('recoveryNs', formatNs)} and a roll ${range('rollNs', formatNs)} ` +
    `(${range('groupRollNs', formatNs)} under group), while retention ` +
    `left ${range('retentionLagBytes', formatBytes)} behind the consumer; at 5 messages a ` +
    `second one segment lasts ${Math.round(lifetime(first))} s to ` +
    `${Math.round(lifetime(last)).toLocaleString('en-US')} s (the course's table).`
  );
}
