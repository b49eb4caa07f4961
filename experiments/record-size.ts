/**
 * record-size: what does one synced append cost as the record grows — how many 4 KiB pages does
 * a message write to the device?
 *
 * One producer appends to a `Log` under `always` (an fdatasync before each acknowledgement), one
 * log per body size, in interleaved rounds: each size once per round, so a drift of the disk
 * touches every size alike. Per size: appends a second and message bytes a second (timings), and
 * the bytes the block device wrote per append, from its /sys/block stat across each round (a
 * measurement: the kernel and the device decide it, never an exact count).
 *
 * The page model beside it. The device is written in whole file-system blocks (pages, 4 KiB on
 * ext4), and a synced append writes every block its record touches, the partly filled last one
 * included, again at the next append. A record of R bytes starting at a uniformly random byte of
 * a P-byte block touches 1 + (R - 1)/P blocks on average, exactly: with R - 1 = qP + r it always
 * crosses q boundaries, and one more from the r start bytes of P whose record spills over. A log
 * lays its records end to end, so they start only at multiples of g = gcd(R, P), each equally
 * often, and the same count gives 1 + (R - g)/P (lab/models/page-floor.ts counts it): 1.25
 * blocks for a 1 KiB body behind its 16-byte header, and one, not two, for a record of exactly
 * one block. Under `always` the log aligns (storage/record/page-alignment.ts): a record that would cross
 * a block starts at the next one, so a record of at most a block touches one block, and the
 * model follows the log's layout. P times that is the floor of device bytes per synced append;
 * the file system's journal comes on top when a sync changes metadata (rarely here: under
 * `always` the log preallocates its segment, so a sync commits data only).
 *
 * What the log writes besides records — its segment zero-filled ahead of the appends, index
 * entries — reaches the device once per byte of log, not once per sync: `deviceBytesPerMsg`
 * leaves those bytes out (the log's FileIO counts them), `deviceWriteBytesPerMsg` is the
 * device's whole figure. With no block device under the directory (a tmpfs), or no readable
 * stat, there is no device figure and a note says so.
 */
import { statfsSync } from 'node:fs';
import {
  type ChartDef,
  type Experiment,
  type LabContext,
  Measurement,
  type Metric,
  type PhaseIo,
  type Prediction,
  type Results,
  byLabel,
  chart,
  declareMetrics,
  measureAsync,
  plot,
  warmUpAsync,
} from '../lab/index.js';
import { alignedFloorBytesPerAppend, blocksPerAppend } from '../lab/models/page-floor.js';
import { Log, NodeFileIO, recordSizeBytes } from '../storage/index.js';

const SIZE_LABELS = ['bodyBytes', 'recordBytes'];

const METRICS = declareMetrics('record-size', {
  msgsPerSec: {
    unit: 'msgs/s',
    class: 'timing',
    direction: 'higher',
    labels: SIZE_LABELS,
    title: 'synced appends per second',
  },
  mbPerSec: {
    unit: 'MB/s',
    class: 'timing',
    direction: 'higher',
    labels: SIZE_LABELS,
    title: 'message bytes per second',
  },
  deviceBytesPerMsg: {
    unit: 'B/msg',
    class: 'measurement',
    direction: 'lower',
    labels: SIZE_LABELS,
    title: 'device bytes per synced append (records)',
  },
  deviceWriteBytesPerMsg: {
    unit: 'B/msg',
    class: 'measurement',
    direction: 'lower',
    labels: SIZE_LABELS,
    title: "device bytes per synced append (all the log's writes)",
  },
});

const RECORD_SIZE = byLabel('recordBytes', 'record size (16-byte header included)');

const CHARTS: readonly ChartDef[] = [
  chart(
    'device-bytes',
    'Device bytes per synced append against record size',
    'Lower is better: bars are what the device wrote per append, hollow marks the page ' +
      "model's floor (a whole block per block the record touches); the gap is the file system's.",
    plot(METRICS.deviceBytesPerMsg, {
      yTitle: 'device bytes per append',
      x: RECORD_SIZE,
      mark: 'bar',
    }),
  ),
  chart(
    'throughput',
    'Synced appends per second against record size',
    "Higher is faster: each append waits for its own fdatasync, so the rate is the disk's " +
      'sync rate until the blocks written per sync grow.',
    plot(METRICS.msgsPerSec, { yTitle: 'appends per second', x: RECORD_SIZE, mark: 'line' }),
  ),
];

export const experiment: Experiment = {
  id: 'record-size',
  question:
    'what does one synced append cost as the record grows — how many 4 KiB pages does a ' +
    'message write to the device?',
  params: {
    bodySizesBytes: { quick: '64,1024,4080', full: '64,512,1024,2048,4080,4096,16384' },
    // Six full rounds give each size's device bytes an exact 95% interval (lab/stats.ts), which
    // compare needs to gate them; the budget is shared among the rounds, so no longer a run.
    rounds: { quick: 2, full: 6 },
  },
  seed: 11,
  metrics: METRICS,
  charts: CHARTS,
  run,
};

/** Appends discarded before the rounds: the first zero-fills the segment's first extent. */
const WARM_UP_APPENDS = 8;
/** The model's name in the predictions (docs/report-contract.md). */
const PAGE_MODEL = 'page-model';

function bodySizes(ctx: LabContext): number[] {
  return ctx.stringParam('bodySizesBytes').split(',').map(Number);
}

interface SizeRun {
  readonly bodyBytes: number;
  readonly recordBytes: number;
  readonly log: Log;
  readonly io: NodeFileIO;
  readonly body: Uint8Array;
  readonly measurement: Measurement;
  /** Per round: device bytes written, and those less the log's writes other than records. */
  readonly deviceBytes: number[];
  readonly recordDeviceBytes: number[];
  readonly mbPerSec: number[];
  /** False once a round had no device figure. */
  deviceSeen: boolean;
}

async function openRun(ctx: LabContext, bodyBytes: number): Promise<SizeRun> {
  const io = new NodeFileIO();
  const log = Log.open(`${ctx.dir}/${bodyBytes}`, { durability: 'always', io });
  const body = new Uint8Array(bodyBytes);
  ctx.random.fork().fillBytes(body);
  const labels = { bodyBytes, recordBytes: recordSizeBytes(bodyBytes) };
  const measurement = new Measurement(`record-size.${bodyBytes}`, 'async', labels);
  const append = async () => Number(await log.append(body));
  ctx.recordWarmUp(
    `${bodyBytes}`,
    await warmUpAsync(measurement, append, { ops: WARM_UP_APPENDS }),
  );
  return {
    ...labels,
    log,
    io,
    body,
    measurement,
    deviceBytes: [],
    recordDeviceBytes: [],
    mbPerSec: [],
    deviceSeen: true,
  };
}

async function round(ctx: LabContext, run: SizeRun, seconds: number): Promise<void> {
  const phase = ctx.ioPhase(run.io);
  const fillBefore = run.log.extraWriteBytes;
  const append = async () => Number(await run.log.append(run.body));
  const repetition = await measureAsync(run.measurement, append, { seconds });
  const io: PhaseIo = phase.end();
  run.mbPerSec.push((repetition.ratePerSec * run.bodyBytes) / 1e6);
  if (io.device === null || io.fileIo === null || repetition.ops === 0) {
    run.deviceSeen = false;
    return;
  }
  // Zero-fill ahead and index entries: written once per byte of log, whenever a round crosses.
  // A page fill (page-fill.ts) is not among them: its zeros share the record's last page, so
  // the device writes no byte more for them.
  const fillBytes = run.log.extraWriteBytes - fillBefore;
  const besidesRecords = Math.max(
    0,
    io.fileIo.writeBytes - fillBytes - repetition.ops * run.recordBytes,
  );
  run.deviceBytes.push(io.device.writeBytes / repetition.ops);
  run.recordDeviceBytes.push(Math.max(0, io.device.writeBytes - besidesRecords) / repetition.ops);
}

function sizeMetrics(ctx: LabContext, run: SizeRun): Metric[] {
  const labels = { bodyBytes: run.bodyBytes, recordBytes: run.recordBytes };
  const prefix = `record-size.${run.bodyBytes}`;
  const summary = run.measurement.summarize(ctx.random);
  const metrics = [
    METRICS.msgsPerSec.adopt(`${prefix}.msgsPerSec`, summary.ratePerSec, labels),
    METRICS.mbPerSec.fromSamples(`${prefix}.mbPerSec`, run.mbPerSec, labels),
  ];
  if (!run.deviceSeen) return metrics;
  return [
    ...metrics,
    METRICS.deviceBytesPerMsg.fromSamples(
      `${prefix}.deviceBytesPerMsg`,
      run.recordDeviceBytes,
      labels,
      "device bytes written per synced append, less the log's writes other than records",
    ),
    METRICS.deviceWriteBytesPerMsg.fromSamples(
      `${prefix}.deviceWriteBytesPerMsg`,
      run.deviceBytes,
      labels,
      'device bytes written per synced append',
    ),
  ];
}

/** Blocks one synced append of `run`'s records touches, as its log lays them out. */
function blocksOf(run: SizeRun, blockBytes: number): number {
  const aligns = run.log.config.pageAlign && run.log.config.pageBytes === blockBytes;
  return aligns
    ? alignedFloorBytesPerAppend(run.recordBytes, blockBytes) / blockBytes
    : blocksPerAppend(run.recordBytes, blockBytes);
}

function floorPrediction(run: SizeRun, blockBytes: number): Prediction {
  const blocks = blocksOf(run, blockBytes);
  const layout =
    blocks === blocksPerAppend(run.recordBytes, blockBytes)
      ? `1 + (R - gcd(R, P))/P for a record of R = ${run.recordBytes} bytes laid end to end`
      : `a record of R = ${run.recordBytes} bytes the log starts at the next block rather than ` +
        'cross one (page alignment)';
  return {
    name: `record-size.${run.bodyBytes}.deviceBytesPerMsg`,
    model: PAGE_MODEL,
    unit: 'B/msg',
    value: blocks * blockBytes,
    labels: { bodyBytes: run.bodyBytes, recordBytes: run.recordBytes },
    basis: `${blocks} blocks of ${blockBytes} bytes per append: ${layout} in blocks of P = ${blockBytes}`,
  };
}

async function run(ctx: LabContext): Promise<Results> {
  const sizes = bodySizes(ctx);
  const rounds = ctx.numberParam('rounds');
  const seconds = ctx.syncedRoundSeconds(ctx.secondsBudget / (rounds * sizes.length));
  const runs: SizeRun[] = [];
  for (const bodyBytes of sizes) runs.push(await openRun(ctx, bodyBytes));
  for (let index = 0; index < rounds; index++) {
    for (const sizeRun of runs) {
      ctx.progress.phase(`record-size: ${sizeRun.recordBytes} B, round ${index + 1}/${rounds}`);
      await round(ctx, sizeRun, seconds);
    }
  }
  ctx.progress.done();
  for (const sizeRun of runs) await sizeRun.log.close();
  const blockBytes = statfsSync(ctx.dir).bsize;
  const measured = runs.filter((sizeRun) => sizeRun.deviceSeen);
  if (measured.length < runs.length) {
    ctx.note(
      'No device figure: the directory has no block device (a tmpfs?) or its /sys/block stat ' +
        'could not be read; the page model stands alone in the headline.',
    );
  }
  const metrics = runs.flatMap((sizeRun) => sizeMetrics(ctx, sizeRun));
  return ctx.results({
    metrics,
    predictions: measured.map((sizeRun) => floorPrediction(sizeRun, blockBytes)),
    headline: headline(runs, metrics, blockBytes),
  });
}

/** The 1 KiB message if it ran, else the first size: its pages, its floor, what the disk did. */
function headline(
  runs: readonly SizeRun[],
  metrics: readonly Metric[],
  blockBytes: number,
): string {
  const chosen = runs.find((sizeRun) => sizeRun.bodyBytes === 1024) ?? runs[0]!;
  const pages = blocksOf(chosen, blockBytes);
  const floor = pages * blockBytes;
  const median = (quantity: string) =>
    metrics.find((metric) => metric.name === `record-size.${chosen.bodyBytes}.${quantity}`)?.median;
  const rate = median('msgsPerSec')!;
  const device = median('deviceBytesPerMsg');
  const measuredPart =
    device === undefined
      ? 'no device figure here'
      : `this disk wrote ${Math.round(device).toLocaleString('en-US')} bytes ` +
        `(${(device / floor).toFixed(1)}× the floor)`;
  return (
    `A ${chosen.recordBytes.toLocaleString('en-US')}-byte record touches ` +
    `${pages.toFixed(2)} pages on average: ${floor.toLocaleString('en-US')} bytes per synced ` +
    `append is the floor; ${measuredPart}, at ` +
    `${Math.round(rate).toLocaleString('en-US')} appends a second.`
  );
}
