/**
 * `loglab bench byte-ledger`: where the device bytes of one synced append go (issue 20). A log
 * under `always` takes 1 KiB appends from one producer in steady state, once without retention
 * and once with it (a consumer's `deleteSegmentsBelow` every `retentionEveryMessages` appends, as
 * a log queue removes what its saved head passed), the two interleaved round by round. Each
 * round's device bytes (/sys/block/<disk>/stat, the whole disk) are split by
 * lab/models/byte-ledger.ts into the causes the round's write trace names; what the trace cannot
 * explain is the file system's metadata and journal row, never left out.
 *
 * Every row is a measurement: the disk decides the total, and the round's length decides how
 * many messages share a segment's zeros. The rows of one round add up to its total exactly; each
 * row's median is over rounds, so medians need not.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  type ByteLedger,
  CAUSE_NAMES,
  type LedgerCause,
  NOTHING_TRACED,
  type TracedBytes,
  addTraced,
  attributeTrace,
  byteLedger,
  describeLedger,
  rowBytesPerMsg,
} from '../../lab/models/byte-ledger.js';
import type { Experiment, LabContext } from '../../lab/experiment.js';
import { formatBytes, formatNumber } from '../../lab/format.js';
import { IoPhase } from '../../lab/io.js';
import { Measurement } from '../../lab/measurement.js';
import { type Labels, metricFromSamples } from '../../lab/metric.js';
import { flushDirtyPages } from '../../lab/probes/page-cache.js';
import type { Metric } from '../../lab/results.js';
import {
  alignedFloorBytesPerAppend,
  alignedSegmentBytesPerRecord,
  blocksPerAppend,
  pageFloorBytesPerAppend,
} from '../../lab/models/page-floor.js';
import { interleave, measureAsync, warmUpAsync } from '../../lab/runner.js';
import { median } from '../../lab/stats.js';
import { TracingFileIO } from '../../lab/models/trace-io.js';
import { DIRECT_BLOCK_BYTES, Log, MiB, NodeFileIO, recordSizeBytes } from '../../storage/index.js';
import { encodeRecord } from '../../storage/testing/index.js';
import { SyncedAppendLoop } from '../support/laid-out-file.js';
import { wroteDirectly } from '../support/direct-writes.js';
import { recycleToSteadyState } from '../support/steady-state.js';
import type { Target } from './targets.js';
import { BENCH_BYTE_LEDGER_METRICS } from '../metrics/bench-byte-ledger.js';

const BODY_BYTES = 1024;
/** Each log appends for this share of a round before the first, so it starts in steady state. */
const WARMUP_SHARE = 0.5;
/** Records per batch of the fill that brings a log to steady state (one sync a batch). */
const FILL_BATCH_RECORDS = 256;
/** The most bytes a second synced 1 KiB appends could add to a log: what free space must hold. */
const MAX_SYNCED_BYTES_PER_SEC = 64 * MiB;
const PREFIX = 'byteLedger.always';

type SettingName = 'noRetention' | 'retention' | 'direct.noRetention' | 'direct.retention';
/** Through the page cache (the default), then with direct writes (storage/io/direct-write.ts). */
const SETTINGS: readonly SettingName[] = [
  'noRetention',
  'retention',
  'direct.noRetention',
  'direct.retention',
];

/**
 * Issue 43's bound on a synced append's device bytes in steady state, for every setting: at most
 * 5% above the floor the ledger computes. The blocks' floor (`floorBytesPerMsg`) is the block
 * the record is in (the log aligns records to blocks, storage/record/page-alignment.ts, so each
 * sync writes one block), and without retention also the zeros preallocation lays over the
 * segment bytes a record takes (a third of a block for 1,040-byte records, three to a block:
 * 5,461 B in all); written directly, the blocks are 512 bytes. The floor the bound is on adds
 * what the file system itself writes a second while a file is appended to and synced, whoever
 * writes it: the plain loop beside the logs (the same records back to back, as fio or plain
 * Node would write them) measures it in the same round (`fsBytesPerSec`), and a setting's share
 * is that over its own rate. On this lab's ext4, which has no journal, that is the file's inode
 * block, written by the first fdatasync after each clock tick moved the file's timestamps: about
 * 250 blocks, 1 MB, a second (docs/storage.md, the byte ledger). No program writing the same
 * blocks can put less on the device.
 */
export const BYTE_LEDGER_TARGETS: readonly Target[] = SETTINGS.map((setting) => ({
  metric: `${PREFIX}.${setting}.vsFsFloor`,
  atMost: 1.05,
  why: `a synced append (${setting}) writes at most 5% above its blocks' floor plus the file system's own bytes a second over its rate (issue 43)`,
}));

function keepsRetention(setting: SettingName): boolean {
  return setting === 'retention' || setting === 'direct.retention';
}

function writesDirectly(setting: SettingName): boolean {
  return setting.startsWith('direct.');
}

/** A setting's labels: direct writes named only where they are on. */
function settingLabels(setting: SettingName): Labels {
  return {
    policy: 'always',
    retention: keepsRetention(setting),
    ...(writesDirectly(setting) ? { directWrites: true } : {}),
  };
}
/** The plain loop's name among the interleaved sides. */
const PLAIN_LOOP = 'plainLoop';

interface LedgerRound {
  readonly messages: number;
  readonly elapsedNs: number;
  readonly traced: TracedBytes;
  /** What the disk wrote during the round; null without its counters. */
  readonly deviceBytes: number | null;
  readonly discardBytes: number;
  /** What the disk wrote per second just before, this process idle; null without counters. */
  readonly idleDeviceBytesPerSec: number | null;
}

/** One log and its trace, measured round after round. */
class LedgerLog {
  readonly setting: SettingName;
  readonly io = new TracingFileIO(new NodeFileIO());
  readonly log: Log;
  readonly measurement: Measurement;
  readonly #body = Buffer.alloc(BODY_BYTES, 0x6c);
  readonly #retentionEveryMessages: number;

  constructor(ctx: LabContext, setting: SettingName) {
    this.setting = setting;
    this.#retentionEveryMessages = ctx.numberParam('retentionEveryMessages');
    const dir = path.join(ctx.dir, setting);
    fs.mkdirSync(dir);
    this.log = Log.open(dir, {
      durability: 'always',
      directWrites: writesDirectly(setting),
      segmentBytes: ctx.numberParam('segmentBytes'),
      // Extents, not laid-out spares: the same zeros either way (a segment's worth per segment),
      // but extents spread them over the segment's appends, 4 MiB at a time, where a layout
      // writes a whole segment's in one go. A round (5 s, under a segment) then holds a whole
      // layout or none, and the median over rounds would leave the zeros out.
      layOutSpares: false,
      io: this.io,
    });
    this.measurement = new Measurement(`${PREFIX}.${setting}`, 'async');
  }

  /** One synced append; with retention, a consumer's removal every so many. */
  readonly append = async (): Promise<number> => {
    const offset = await this.log.append(this.#body);
    const every = this.#retentionEveryMessages;
    if (keepsRetention(this.setting) && (offset + 1) % every === 0) {
      await this.log.deleteSegmentsBelow(offset + 1 - every);
    }
    return offset;
  };

  /**
   * Batched appends before the warm-up, so the rounds run on a log in steady state even with
   * full-size segments. Without retention two segments: the rolls have zero-filled as a
   * long-running log's do. With retention each sealed segment is removed at once, so the next
   * roll renames it back into place (support/steady-state.ts): the active segment is a reused
   * file (no zeros) and a spare waits for the next roll. Untraced by the rounds, which start
   * after it.
   */
  async fill(segmentBytes: number): Promise<void> {
    if (keepsRetention(this.setting)) await recycleToSteadyState(this.log, this.#body);
    else {
      const batch = Array.from({ length: FILL_BATCH_RECORDS }, () => this.#body);
      for (let bodyBytes = 0; bodyBytes < 2 * segmentBytes; bodyBytes += batch.length * BODY_BYTES)
        await this.log.appendBatch(batch);
    }
    await this.log.flush();
  }

  /**
   * Appends for `seconds`, then flushes: the files are clean again when the phase ends, and the
   * removed segments' blocks freed (their closes run on the thread pool; the flush's directory
   * fsync commits the freeing), so the phase holds what its retention wrote.
   */
  round(ctx: LabContext, seconds: number, blockBytes: number): Promise<LedgerRound> {
    const fromEvent = this.io.trace.length;
    return measureRound(ctx, seconds, {
      measurement: this.measurement,
      append: this.append,
      io: this.io,
      end: async () => {
        await this.log.removalsSettled();
        await this.log.flush();
      },
      traced: () => attributeTrace(this.io.trace, fromEvent, this.io.trace.length, blockBytes),
    });
  }
}

/**
 * The file system's own share, measured beside the logs: the same 1,040-byte records appended
 * by plain Node (SyncedAppendLoop: writeSync, then fdatasync) over a file as large as a segment,
 * laid out beforehand as fio's job is, so no sync changes its size. What a log writes above it is
 * what loglab adds: indexes, recovery points, rolls, removals and zeros.
 */
class PlainLoop {
  readonly measurement = new Measurement(`${PREFIX}.${PLAIN_LOOP}`, 'async');
  readonly #loop: SyncedAppendLoop;
  readonly append: () => Promise<number>;

  constructor(ctx: LabContext) {
    const dir = path.join(ctx.dir, PLAIN_LOOP);
    fs.mkdirSync(dir);
    const record = encodeRecord(0, Buffer.alloc(BODY_BYTES, 0x6c));
    this.#loop = new SyncedAppendLoop(
      path.join(dir, 'plain.log'),
      record,
      ctx.numberParam('segmentBytes'),
    );
    this.append = this.#loop.append;
  }

  round(ctx: LabContext, seconds: number): Promise<LedgerRound> {
    return measureRound(ctx, seconds, {
      measurement: this.measurement,
      append: this.append,
      end: async () => {},
      traced: () => NOTHING_TRACED,
    });
  }

  close(): void {
    this.#loop.close();
  }
}

interface RoundSide {
  readonly measurement: Measurement;
  readonly append: () => Promise<number>;
  /** The side's FileIO, whose calls the phase counts; none for the plain loop. */
  readonly io?: TracingFileIO;
  /** What the side does after its appends, inside the phase (a log's flush). */
  readonly end: () => Promise<void>;
  readonly traced: () => TracedBytes;
}

/** One round of a side: `sync` and an idle wait first, then its appends in an I/O phase. */
async function measureRound(
  ctx: LabContext,
  seconds: number,
  side: RoundSide,
): Promise<LedgerRound> {
  const flushed = flushDirtyPages();
  if (flushed !== null) ctx.note(`before a round: ${flushed}`);
  const idleDeviceBytesPerSec = await idleBytesPerSec(ctx, ctx.numberParam('idleSeconds'));
  const phase = ctx.ioPhase(side.io);
  const repetition = await measureAsync(side.measurement, side.append, { seconds });
  await side.end();
  const io = phase.end();
  return {
    messages: repetition.ops,
    elapsedNs: repetition.elapsedNs,
    traced: side.traced(),
    idleDeviceBytesPerSec,
    deviceBytes: io.device?.writeBytes ?? null,
    discardBytes: io.device?.discardBytes ?? 0,
  };
}

/**
 * What the disk wrote per second while this process wrote nothing: other programs' writes,
 * which the next round's metadata row will hold too. Not a phase of the context's, so the
 * device-sharing check does not count it as ours.
 */
async function idleBytesPerSec(ctx: LabContext, seconds: number): Promise<number | null> {
  if (ctx.device === null) return null;
  const phase = IoPhase.start({ device: ctx.device });
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const io = phase.end();
  return io.device === null ? null : io.device.writeBytes / (io.elapsedNs / 1e9);
}

async function openLogs(ctx: LabContext, logs: LedgerLog[], seconds: number): Promise<void> {
  for (const setting of SETTINGS) {
    const log = new LedgerLog(ctx, setting);
    logs.push(log);
    await log.fill(ctx.numberParam('segmentBytes'));
    const warmUp = await warmUpAsync(log.measurement, log.append, {
      seconds: seconds * WARMUP_SHARE,
    });
    await log.log.flush();
    ctx.recordWarmUp(setting, warmUp);
  }
}

/** Each round's ledger, and all rounds pooled (whose rows decide which causes are listed). */
function ledgersOf(rounds: readonly LedgerRound[]): { each: ByteLedger[]; pooled: ByteLedger } {
  const device = (round: LedgerRound) => round.deviceBytes ?? 0;
  const each = rounds.map((round) => byteLedger(round.traced, device(round), round.messages));
  const traced = rounds.reduce((sum, round) => addTraced(sum, round.traced), NOTHING_TRACED);
  const messages = rounds.reduce((sum, round) => sum + round.messages, 0);
  const deviceBytes = rounds.reduce((sum, round) => sum + device(round), 0);
  return { each, pooled: byteLedger(traced, deviceBytes, messages) };
}

const MEASURED = { class: 'measurement', direction: 'lower' } as const;

/**
 * The floor of a synced append's device bytes: the blocks its record touches (one when the log
 * aligns records to blocks: storage/record/page-alignment.ts; 512-byte ones when it writes directly:
 * storage/io/direct-write.ts), and without retention also the zeros preallocation lays over the
 * segment bytes the record takes (its gap included).
 */
function floorBytesPerMsg(setting: SettingName, aligns: boolean, blockBytes: number): number {
  const recordBytes = recordSizeBytes(BODY_BYTES);
  const retention = keepsRetention(setting);
  if (!aligns) {
    const written = writesDirectly(setting) ? DIRECT_BLOCK_BYTES : blockBytes;
    const blocks = pageFloorBytesPerAppend(recordBytes, written);
    return retention ? blocks : blocks + recordBytes;
  }
  const block = alignedFloorBytesPerAppend(recordBytes, blockBytes);
  return retention ? block : block + alignedSegmentBytesPerRecord(recordBytes, blockBytes);
}

function ledgerMetrics(
  setting: SettingName,
  each: readonly ByteLedger[],
  pooled: ByteLedger,
  blockBytes: number,
  aligns: boolean,
) {
  const labels = (cause: LedgerCause | 'total'): Labels => ({ ...settingLabels(setting), cause });
  const name = (cause: string) => `${PREFIX}.${setting}.${cause}.deviceBytesPerMsg`;
  const rows = pooled.rows.map((row) =>
    metricFromSamples(
      name(row.cause),
      'B/msg',
      each.map((ledger) => rowBytesPerMsg(ledger, row.cause)),
      {
        ...MEASURED,
        labels: labels(row.cause),
        description:
          `${row.title}, per message, one sample per round; a round's rows add up to ` +
          'its total',
      },
    ),
  );
  const total = metricFromSamples(
    name('total'),
    'B/msg',
    each.map((ledger) => ledger.deviceBytesPerMsg),
    {
      ...MEASURED,
      labels: labels('total'),
      description: 'bytes the disk wrote per synced append (its stat, whole disk), per round',
    },
  );
  const floorBytes = floorBytesPerMsg(setting, aligns, blockBytes);
  const aboveFloor = metricFromSamples(
    `${PREFIX}.${setting}.aboveFloorBytesPerMsg`,
    'B/msg',
    each.map((ledger) => ledger.deviceBytesPerMsg - floorBytes),
    {
      ...MEASURED,
      labels: labels('total'),
      description:
        `bytes the disk wrote per synced append above its floor of ${formatNumber(floorBytes)} B ` +
        '(floorBytesPerMsg: the blocks its record touches, and without retention the zeros ' +
        'preallocation lays over its segment bytes), per round',
    },
  );
  const vsFloor = metricFromSamples(
    `${PREFIX}.${setting}.vsFloor`,
    'ratio',
    each.map((ledger) => ledger.deviceBytesPerMsg / floorBytes),
    {
      ...MEASURED,
      ratio: true,
      labels: settingLabels(setting),
      description: `bytes the disk wrote per synced append over its floor of ${formatNumber(floorBytes)} B, per round`,
    },
  );
  return [...rows, total, aboveFloor, vsFloor];
}

function syncMetrics(setting: SettingName, each: readonly ByteLedger[]): Metric[] {
  const labels = settingLabels(setting);
  const per = (quantity: string, values: number[], description: string) =>
    metricFromSamples(`${PREFIX}.${setting}.${quantity}`, 'fsyncs/msg', values, {
      ...MEASURED,
      labels,
      description,
    });
  return [
    per(
      'fdatasyncsPerMsg',
      each.map((ledger) => ledger.fdatasyncsPerMsg),
      'fdatasyncs the log issued per message (the trace), per round',
    ),
    per(
      'dirFsyncsPerMsg',
      each.map((ledger) => ledger.dirFsyncsPerMsg),
      'directory fsyncs per message (rolls, recovery points, removals), per round',
    ),
  ];
}

/** A round's appends a second. */
function ratePerSec(round: LedgerRound): number {
  return round.messages / (round.elapsedNs / 1e9);
}

function rateMetric(setting: SettingName, rounds: readonly LedgerRound[]): Metric {
  return metricFromSamples(`${PREFIX}.${setting}.ratePerSec`, 'ops/s', rounds.map(ratePerSec), {
    class: 'timing',
    direction: 'higher',
    labels: { ...settingLabels(setting), cache: 'page cache' },
    description: 'synced appends per second, one producer, awaiting each, per round',
  });
}

/** A round's device bytes per message; NaN without the disk's counters. */
function deviceBytesPerMsg(round: LedgerRound): number {
  return (round.deviceBytes ?? Number.NaN) / round.messages;
}

function plainLoopMetric(rounds: readonly LedgerRound[]): Metric {
  return metricFromSamples(
    `${PREFIX}.${PLAIN_LOOP}.deviceBytesPerMsg`,
    'B/msg',
    rounds.map(deviceBytesPerMsg),
    {
      ...MEASURED,
      labels: { policy: 'always', cause: 'total' },
      description:
        'bytes the disk wrote per write+fdatasync of a plain loop over a laid-out file, the ' +
        "same records: the file system's own share, per round",
    },
  );
}

/**
 * What the file system wrote a second beside the plain loop's records, round by round: its
 * device bytes above the blocks its records touch (back to back, through the page cache), over
 * the round's length. Other programs' writes meanwhile count too, as they do in every row.
 */
function fsBytesPerSec(round: LedgerRound, blockBytes: number): number {
  const recordsBytes =
    round.messages * pageFloorBytesPerAppend(recordSizeBytes(BODY_BYTES), blockBytes);
  return ((round.deviceBytes ?? Number.NaN) - recordsBytes) / (round.elapsedNs / 1e9);
}

function fsBytesPerSecMetric(fsBytesPerSecs: readonly number[]): Metric {
  return metricFromSamples(`${PREFIX}.${PLAIN_LOOP}.fsBytesPerSec`, 'B/s', fsBytesPerSecs, {
    class: 'measurement',
    direction: 'informational',
    labels: { policy: 'always' },
    description:
      "what the disk wrote a second beside the plain loop's record blocks: the file " +
      "system's own share of synced appends (and other programs' writes), per round",
  });
}

/**
 * Each round's total over the floor the targets are on: the blocks' floor plus the file system's
 * bytes a second in the plain loop's round of the same index, over this setting's rate in its
 * round (BYTE_LEDGER_TARGETS).
 */
function vsFsFloorMetric(
  summary: Summary,
  fsBytesPerSecs: readonly number[],
  blockBytes: number,
): Metric {
  const { setting, rounds, each } = summary;
  const floorBytes = floorBytesPerMsg(setting, summary.aligns, blockBytes);
  const fsFloor = (i: number) => floorBytes + fsBytesPerSecs[i]! / ratePerSec(rounds[i]!);
  return metricFromSamples(
    `${PREFIX}.${setting}.vsFsFloor`,
    'ratio',
    each.map((ledger, i) => ledger.deviceBytesPerMsg / fsFloor(i)),
    {
      ...MEASURED,
      ratio: true,
      labels: settingLabels(setting),
      description:
        `bytes the disk wrote per synced append over its floor of ${formatNumber(floorBytes)} B ` +
        "plus the file system's own bytes a second (plainLoop.fsBytesPerSec, same round) over " +
        "this setting's appends a second, per round",
    },
  );
}

/** Each round's log total less the plain loop's of the same round: what loglab adds or saves. */
function abovePlainLoopMetric(
  setting: SettingName,
  each: readonly ByteLedger[],
  plainRounds: readonly LedgerRound[],
): Metric {
  return metricFromSamples(
    `${PREFIX}.${setting}.abovePlainLoopBytesPerMsg`,
    'B/msg',
    each.map((ledger, i) => ledger.deviceBytesPerMsg - deviceBytesPerMsg(plainRounds[i]!)),
    {
      ...MEASURED,
      labels: { ...settingLabels(setting), cause: 'total' },
      description:
        'bytes the disk wrote per synced append above a plain write+fdatasync loop of the same ' +
        'records back to back in the same round: indexes, recovery points, rolls, removals and ' +
        'zeros, less what page alignment saves (negative when it saves more)',
    },
  );
}

interface Summary {
  readonly setting: SettingName;
  /** Whether the setting's log aligns records to pages (storage/record/page-alignment.ts). */
  readonly aligns: boolean;
  readonly rounds: readonly LedgerRound[];
  readonly each: readonly ByteLedger[];
  readonly pooled: ByteLedger;
}

function idleMetric(summary: Summary): Metric {
  const { setting, rounds } = summary;
  return metricFromSamples(
    `${PREFIX}.${setting}.idleDeviceBytesPerSec`,
    'B/s',
    rounds.map((round) => round.idleDeviceBytesPerSec ?? 0),
    {
      class: 'measurement',
      direction: 'informational',
      labels: settingLabels(setting),
      description:
        'what the disk wrote per second just before each round, this process idle: ' +
        "other programs' writes, which the metadata row holds too",
    },
  );
}

function headline(
  summaries: readonly Summary[],
  plainRounds: readonly LedgerRound[],
  blockBytes: number,
): string {
  const said = (summary: Summary) => {
    const rows = summary.pooled.rows
      .map((row) => `${CAUSE_NAMES[row.cause]} ${formatNumber(row.bytesPerMsg)}`)
      .join(', ');
    return `${formatNumber(summary.pooled.deviceBytesPerMsg)} B (${rows})`;
  };
  const of = (setting: SettingName) => summaries.find((summary) => summary.setting === setting);
  const without = of('noRetention')!;
  const withRetention = of('retention')!;
  const recordBytes = recordSizeBytes(BODY_BYTES);
  const floorBytes = floorBytesPerMsg('retention', without.aligns, blockBytes);
  const layout = without.aligns ? 'aligned to blocks' : 'back to back';
  const directWithout = of('direct.noRetention');
  const directWith = of('direct.retention');
  const direct =
    directWithout === undefined || directWith === undefined
      ? ''
      : ` Written directly (directWrites: 512-byte blocks, floor ${formatNumber(floorBytesPerMsg('direct.retention', false, blockBytes))} B), ` +
        `${said(directWithout)} without retention and ${said(directWith)} with it.`;
  return (
    `One synced 1 KiB append put ${said(without)} on the device without retention, ` +
    `and ${said(withRetention)} with it; the floor is the ${formatNumber(floorBytes)} B of the ` +
    `blocks a ${formatNumber(recordBytes)}-byte record ${layout} touches ` +
    `(${(floorBytes / blockBytes).toFixed(2)} blocks on average), and a plain write+fdatasync ` +
    `loop of the same records back to back ` +
    `(${blocksPerAppend(recordBytes, blockBytes).toFixed(2)} blocks) put ` +
    `${formatNumber(median(plainRounds.map(deviceBytesPerMsg)))} B: the file system's own share.` +
    direct
  );
}

/** The pooled ledger, and how much of its metadata row other programs' idle rate could be. */
function settingNotes(summary: Summary): string[] {
  const { setting, rounds, pooled } = summary;
  const idle = median(rounds.map((round) => round.idleDeviceBytesPerSec ?? 0));
  const rate = median(rounds.map(ratePerSec));
  const lines = [
    `${setting}, all rounds pooled: ${describeLedger(pooled)}.`,
    `${setting}: with this process idle before each round the disk wrote a median ` +
      `${formatBytes(idle)}/s; at this setting's median ${formatNumber(rate)} appends/s that is ` +
      `about ${formatNumber(idle / rate)} B per message of its metadata row, others' writes.`,
  ];
  if (rowBytesPerMsg(pooled, 'metadata') < 0) {
    lines.push(
      `${setting}: the trace claims more bytes than the disk wrote (a negative ` +
        'metadata row): a block it counts was not written, so its rows are upper bounds.',
    );
  }
  if (keepsRetention(setting)) {
    const discardBytes = rounds.reduce((sum, round) => sum + round.discardBytes, 0);
    lines.push(
      `With retention, removals sent ${formatNumber(discardBytes / pooled.messages)} B ` +
        'of discards per message to the disk (not writes: in no row).',
    );
  }
  return lines;
}

function notes(ctx: LabContext, summaries: readonly Summary[], blockBytes: number): string[] {
  return [
    ...summaries.flatMap(settingNotes),
    `${BODY_BYTES}-byte bodies (${recordSizeBytes(BODY_BYTES)}-byte records) appended one at a ` +
      `time under always, in ${formatNumber(ctx.numberParam('segmentBytes'))}-byte segments ` +
      'preallocated in 4 MiB extents (layOutSpares off: a laid-out spare writes the same zeros, ' +
      "a segment's at once, which no round of under a segment amortises); " +
      `${blockBytes}-byte file-system blocks. Each round ends ` +
      'with log.flush() inside its phase; `sync` and an idle wait run before each round.',
    "The metadata row is the whole disk's bytes less every traced one: inode and extent " +
      "updates, directory entries and their fsyncs, retention's unlinks, the file system's " +
      'journal where it has one, write-back the trace cannot see, and whatever other programs ' +
      'wrote to the disk meanwhile. On ext4 without a journal most of it is the inode block, ' +
      "written by the first fdatasync after each clock tick moved the file's timestamps; " +
      "plainLoop.fsBytesPerSec measures it beside the logs, and vsFsFloor adds each setting's " +
      'share of it to the floor.',
  ];
}

async function measure(
  ctx: LabContext,
  logs: LedgerLog[],
  plain: PlainLoop,
  blockBytes: number,
): Promise<Map<string, LedgerRound[]>> {
  const seconds = ctx.numberParam('roundSeconds');
  await openLogs(ctx, logs, seconds);
  const warmUp = await warmUpAsync(plain.measurement, plain.append, {
    seconds: seconds * WARMUP_SHARE,
  });
  ctx.recordWarmUp(PLAIN_LOOP, warmUp);
  return interleave(
    ctx.numberParam('rounds'),
    [
      ...logs.map((log) => ({
        name: log.setting,
        round: () => log.round(ctx, seconds, blockBytes),
      })),
      { name: PLAIN_LOOP, round: () => plain.round(ctx, seconds) },
    ],
    ctx.progress,
  );
}

/** The settings' ledgers; direct ones only where the system took direct writes. */
function summarize(
  ctx: LabContext,
  logs: readonly LedgerLog[],
  measured: ReadonlyMap<string, LedgerRound[]>,
): Summary[] {
  return logs.flatMap(({ setting, log }) => {
    if (writesDirectly(setting) && !wroteDirectly(ctx, log, setting)) return [];
    const rounds = measured.get(setting) ?? [];
    return [{ setting, aligns: log.config.pageAlign, rounds, ...ledgersOf(rounds) }];
  });
}

async function run(ctx: LabContext) {
  const seconds = ctx.numberParam('roundSeconds');
  const rounds = ctx.numberParam('rounds');
  ctx.ensureFreeSpace(Math.ceil((rounds + 1) * seconds * MAX_SYNCED_BYTES_PER_SEC));
  const logs: LedgerLog[] = [];
  const plain = new PlainLoop(ctx);
  try {
    const blockBytes = fs.statfsSync(ctx.dir).bsize;
    const measured = await measure(ctx, logs, plain, blockBytes);
    const metrics = SETTINGS.map((setting) => rateMetric(setting, measured.get(setting) ?? []));
    if (ctx.device === null) {
      ctx.note("No device counters: the ledger needs the disk's total, so it is not given.");
      return ctx.results({ metrics });
    }
    const summaries = summarize(ctx, logs, measured);
    const plainRounds = measured.get(PLAIN_LOOP) ?? [];
    const fsBytesPerSecs = plainRounds.map((round) => fsBytesPerSec(round, blockBytes));
    metrics.push(plainLoopMetric(plainRounds), fsBytesPerSecMetric(fsBytesPerSecs));
    for (const summary of summaries) {
      const { setting, each, pooled } = summary;
      metrics.push(
        ...ledgerMetrics(setting, each, pooled, blockBytes, summary.aligns),
        vsFsFloorMetric(summary, fsBytesPerSecs, blockBytes),
        abovePlainLoopMetric(setting, each, plainRounds),
        ...syncMetrics(setting, each),
        idleMetric(summary),
      );
    }
    return ctx.results({
      metrics,
      headline: headline(summaries, plainRounds, blockBytes),
      notes: notes(ctx, summaries, blockBytes),
    });
  } finally {
    for (const log of logs) await log.log.close();
    plain.close();
  }
}

export const byteLedgerBench: Experiment = {
  id: 'bench-byte-ledger',
  question: 'where do the device bytes of one synced append go?',
  params: {
    // Six rounds give each row's median an exact 95% interval (lab/stats.ts).
    rounds: { quick: 3, full: 6 },
    roundSeconds: { quick: 0.3, full: 5 },
    // Quick rounds roll small segments, so retention removes some; full runs use the default.
    segmentBytes: { quick: 1 * MiB, full: 64 * MiB },
    // A log queue saves its head every 1,000 deletes by default, and retention follows it.
    retentionEveryMessages: { quick: 256, full: 1000 },
    // How long the disk is watched with this process idle before each round.
    idleSeconds: { quick: 0.1, full: 1 },
  },
  seed: 20,
  metrics: BENCH_BYTE_LEDGER_METRICS,
  run,
};
