/**
 * recovery: how long until the broker serves again after a crash?
 *
 * Logs of 1, 10, 100 and 1,000 segments whose active segment holds a tail of 1, 16 or 64 MiB
 * (divided by `tailDivisor` with --quick), opened in three states made by editing files, never by
 * hoping a crash happens:
 *   clean           closed normally: the recovery point is the end, nothing is scanned;
 *   torn            the last record cut in half and the recovery point removed: the whole active
 *                   segment is checked from its start (as after a crash under durability group,
 *                   whose last recovery point is the roll's, at the start of the active segment);
 *   recovery-point  the same cut, with the recovery point saved `recoveryPointGapBytes` before
 *                   the end put back: only the bytes after it are checked.
 * Each open is timed with the page cache warm, as after a process crash, and the torn open also
 * cold, as after a machine restart: the tail and the index files then come from the device. The
 * open's own recovery report (scanned bytes, records, index entries rebuilt, bytes cut) gives
 * the counters. Then the index rebuild: the time of the first lookup in a sealed segment whose
 * .index file was deleted, against one whose index is there, per MiB of segment.
 *
 * Sealed segments are hard links to the files of one template log: opening trusts and only opens
 * and fstats the segments before the recovery point (their indexes load on first use), so their
 * number matters, not their bytes, and 1,000 of them need not be written 12 times.
 */
import * as path from 'node:path';
import {
  ColdReadFileIO,
  type ColdReadMethod,
  type Experiment,
  type LabContext,
  Measurement,
  type Metric,
  type Results,
  formatBytes,
  interleave,
  measureSync,
} from '../lab/index.js';
import { type FileIO, KiB, Log, MiB, NodeFileIO, type RecoveryReport } from '../storage/index.js';
import {
  type SavedTail,
  assert,
  dropOffsetIndex,
  linkSegmentFiles,
  restoreRecoveryPoint,
  restoreTail,
  saveRecoveryPoint,
  saveTail,
  segmentFilePaths,
  tearTail,
} from '../storage/testing/index.js';
import { formatNs } from './support/figures.js';
import { RECOVERY_CHARTS, RECOVERY_METRICS } from './metrics/recovery.js';
import { timedLogOpen } from './support/timed-open.js';
import { recordBodies } from './support/record-bodies.js';

export const TAILS_BYTES: readonly number[] = [1 * MiB, 16 * MiB, 64 * MiB];
export const STATES = ['clean', 'torn', 'recovery-point'] as const;
type State = (typeof STATES)[number];
const RECORD_BYTES = 1024;
const APPEND_BATCH_RECORDS = 1024;

export const experiment: Experiment = {
  id: 'recovery',
  question: 'how long until the broker serves again after a crash?',
  params: {
    segmentCounts: { quick: '1,10,100,1000', full: '1,10,100,1000' },
    tailDivisor: { quick: 16, full: 1 },
    sealedSegmentBytes: { quick: 16 * KiB, full: 256 * KiB },
    recoveryPointGapBytes: { quick: 32 * KiB, full: 512 * KiB },
    rebuildSegmentBytes: { quick: MiB, full: 16 * MiB },
    rounds: { quick: 3, full: 5 },
  },
  seed: 3,
  metrics: RECOVERY_METRICS,
  charts: RECOVERY_CHARTS,
  run,
};

/** One log: `segments` segments, the last holding `tailBytes`, and what restores its states. */
interface TailedLog {
  readonly segments: number;
  readonly tailBytes: number;
  readonly dir: string;
  /** The active segment's last record, where it starts and its bytes, to put back after a cut. */
  readonly lastRecord: SavedTail;
  readonly cleanPoint: Buffer;
  readonly olderPoint: Buffer;
  readonly olderPointPositionBytes: number;
  readonly opens: Readonly<Record<State, Measurement>>;
  readonly reports: Partial<Record<State, RecoveryReport>>;
  /** Torn opens with a cold page cache, and the bytes the device supplied to each. */
  readonly coldOpen: Measurement;
  readonly coldDeviceReadBytes: number[];
}

interface Template {
  readonly dir: string;
  readonly baseOffsets: readonly number[];
}

export function parseCounts(text: string): number[] {
  const counts = text.split(',').map((part) => Number(part.trim()));
  for (const count of counts) {
    assert(Number.isSafeInteger(count) && count > 0, `segment counts are positive: '${text}'`);
  }
  return counts;
}

async function run(ctx: LabContext): Promise<Results> {
  const counts = parseCounts(ctx.stringParam('segmentCounts'));
  const tails = TAILS_BYTES.map((bytes) => bytes / ctx.numberParam('tailDivisor'));
  const gapBytes = ctx.numberParam('recoveryPointGapBytes');
  assert(
    tails.every((bytes) => bytes > gapBytes),
    'the recovery point gap is inside every tail',
  );
  const sealedBytes = ctx.numberParam('sealedSegmentBytes');
  const tailSum = tails.reduce((sum, bytes) => sum + bytes, 0);
  ctx.ensureFreeSpace(
    (Math.max(...counts) * sealedBytes +
      counts.length * tailSum +
      ctx.numberParam('rebuildSegmentBytes') * 3) *
      1.2,
  );
  const [body] = recordBodies(ctx.random.fork(), RECORD_BYTES);
  const template = buildTemplate(ctx, body!, Math.max(...counts));
  const logs = counts.flatMap((segments) =>
    tails.map((tailBytes) => buildTailedLog(ctx, template, body!, segments, tailBytes)),
  );
  await measureOpens(ctx, logs);
  const coldMethod = measureColdOpens(ctx, logs);
  const rebuild = await measureRebuild(ctx, body!);
  return ctx.results(resultsParts(ctx, logs, rebuild, coldMethod));
}

function appendRecords(log: Log, body: Buffer, count: number): void {
  for (let done = 0; done < count; done += APPEND_BATCH_RECORDS) {
    log.appendBatchNoWait(
      new Array<Buffer>(Math.min(APPEND_BATCH_RECORDS, count - done)).fill(body),
    );
  }
}

/** A log of `segments` small segments whose files the tailed logs link to. */
function buildTemplate(ctx: LabContext, body: Buffer, segments: number): Template {
  const dir = path.join(ctx.dir, 'template');
  const segmentBytes = ctx.numberParam('sealedSegmentBytes');
  const log = Log.open(dir, { durability: 'none', segmentBytes, io: new NodeFileIO() });
  const perSegment = Math.floor(segmentBytes / RECORD_BYTES);
  assert(perSegment > 0, `a sealed segment of ${segmentBytes} bytes holds a record`);
  ctx.progress.phase(`writing ${segments} sealed segments of ${formatBytes(segmentBytes)}`);
  while (log.segments().length < segments) appendRecords(log, body, perSegment);
  const baseOffsets = log.segments().map((segment) => segment.baseOffset);
  void log.close();
  return { dir, baseOffsets };
}

/** Writes the tail (saving the recovery point `gap` before its end), then links the rest. */
function buildTailedLog(
  ctx: LabContext,
  template: Template,
  body: Buffer,
  segments: number,
  tailBytes: number,
): TailedLog {
  const dir = path.join(ctx.dir, `log-${segments}-${tailBytes}`);
  const baseOffset = template.baseOffsets[segments - 1];
  assert(baseOffset !== undefined, `the template has ${segments} segments`);
  ctx.progress.phase(`writing a ${formatBytes(tailBytes)} tail after ${segments - 1} segments`);
  const log = Log.open(dir, {
    durability: 'none',
    baseOffset,
    segmentBytes: 2 * tailBytes,
    io: new NodeFileIO(),
  });
  const gapBytes = ctx.numberParam('recoveryPointGapBytes');
  appendRecords(log, body, Math.ceil((tailBytes - gapBytes) / RECORD_BYTES));
  void log.flush();
  const olderPointPositionBytes = log.sizeBytes;
  const olderPoint = saveRecoveryPoint(dir);
  appendRecords(log, body, Math.ceil((tailBytes - log.sizeBytes) / RECORD_BYTES));
  const endBytes = log.sizeBytes;
  void log.close();
  const activeLogPath = segmentFilePaths(dir, baseOffset).log;
  const lastRecord = saveTail(activeLogPath, endBytes - RECORD_BYTES, RECORD_BYTES);
  for (const base of template.baseOffsets.slice(0, segments - 1)) {
    linkSegmentFiles(template.dir, dir, base);
  }
  const open = (state: State) =>
    new Measurement(`recovery.${segments}.${tailBytes}.${state}`, 'sync', {
      segments,
      tailBytes,
      state,
      cache: 'warm',
    });
  return {
    segments,
    tailBytes,
    dir,
    lastRecord,
    cleanPoint: saveRecoveryPoint(dir),
    olderPoint,
    olderPointPositionBytes,
    opens: { clean: open('clean'), torn: open('torn'), 'recovery-point': open('recovery-point') },
    reports: {},
    coldOpen: new Measurement(`recovery.${segments}.${tailBytes}.torn.cold`, 'sync', {
      segments,
      tailBytes,
      state: 'torn',
      cache: 'cold',
    }),
    coldDeviceReadBytes: [],
  };
}

/**
 * Puts the files in `state`: the last record back whole, then for torn states cut in half, and
 * the recovery point of the state (the end, none, or the older one).
 */
function prepare(log: TailedLog, state: State): void {
  const recordBytes = log.lastRecord.bytes.length;
  if (state === 'clean') restoreTail(log.lastRecord);
  else tearTail(log.lastRecord, recordBytes - Math.floor(recordBytes / 2));
  const point = { clean: log.cleanPoint, torn: null, 'recovery-point': log.olderPoint }[state];
  restoreRecoveryPoint(log.dir, point);
}

/** One timed open of `log` as its files are. */
function timedOpen(log: TailedLog, measurement: Measurement, io: FileIO) {
  return timedLogOpen(measurement, log.dir, { segmentBytes: 2 * log.tailBytes, io });
}

async function measureOpens(ctx: LabContext, logs: readonly TailedLog[]): Promise<void> {
  const designs = logs.flatMap((log) =>
    STATES.map((state) => ({
      name: `open ${log.segments} segments, ${formatBytes(log.tailBytes)} tail, ${state}`,
      round: () => {
        prepare(log, state);
        const { repetition, report } = timedOpen(log, log.opens[state], new NodeFileIO());
        log.reports[state] = report;
        return repetition;
      },
    })),
  );
  await interleave(ctx.numberParam('rounds'), designs, ctx.progress);
}

/**
 * Torn opens after a machine restart: per log and round, the files torn, the page cache made
 * unable to answer (a drop, or O_DIRECT reads), one timed open. Returns how, or null when no cold
 * reads can be made here (the context notes why).
 */
function measureColdOpens(ctx: LabContext, logs: readonly TailedLog[]): ColdReadMethod | null {
  const rounds = ctx.numberParam('rounds');
  let used: ColdReadMethod | null = null;
  for (let round = 0; round < rounds; round++) {
    for (const log of logs) {
      ctx.progress.phase(
        `cold open ${round + 1}/${rounds}: ${log.segments} segments, ` +
          `${formatBytes(log.tailBytes)} tail`,
      );
      prepare(log, 'torn');
      const io = new ColdReadFileIO();
      const coldReads = ctx.startColdReads([io]);
      if (coldReads.method === null) return null;
      used = coldReads.method;
      const phase = ctx.ioPhase(io);
      timedOpen(log, log.coldOpen, io);
      coldReads.end();
      const deviceBytes = phase.end().proc?.readBytes;
      if (deviceBytes !== undefined) log.coldDeviceReadBytes.push(deviceBytes);
    }
  }
  return used;
}

interface Rebuild {
  readonly segmentBytes: number;
  readonly missing: Measurement;
  readonly present: Measurement;
  readonly entriesRebuilt: number;
}

/**
 * The first lookup in a sealed segment whose .index file was deleted (rebuilt from the log on
 * first use) against one whose index is there, interleaved.
 */
async function measureRebuild(ctx: LabContext, body: Buffer): Promise<Rebuild> {
  const segmentBytes = ctx.numberParam('rebuildSegmentBytes');
  const dir = path.join(ctx.dir, 'rebuild');
  const options = { durability: 'none', segmentBytes, io: new NodeFileIO() } as const;
  const built = Log.open(dir, options);
  const perSegment = Math.floor(segmentBytes / RECORD_BYTES);
  while (built.segments().length < 2) appendRecords(built, body, perSegment);
  const sealed = built.segments()[0]!;
  await built.close();
  const target = sealed.baseOffset + Math.floor(perSegment / 2);
  const labels = (index: string) => ({ index, segmentBytes: sealed.sizeBytes });
  const missing = new Measurement('recovery.rebuild.missing', 'sync', labels('missing'));
  const present = new Measurement('recovery.rebuild.present', 'sync', labels('present'));
  let entriesRebuilt = 0;
  const firstLookup = (measurement: Measurement) => {
    const log = Log.open(dir, options);
    const repetition = measureSync(measurement, () => log.read(target).sizeBytes, { ops: 1 });
    if (measurement === missing) entriesRebuilt = log.explainLookup(target).indexEntries;
    void log.close();
    return repetition;
  };
  await interleave(
    ctx.numberParam('rounds'),
    [
      {
        name: 'first lookup, index deleted',
        round: () => {
          dropOffsetIndex(dir, sealed.baseOffset);
          return firstLookup(missing);
        },
      },
      { name: 'first lookup, index present', round: () => firstLookup(present) },
    ],
    ctx.progress,
  );
  return { segmentBytes: sealed.sizeBytes, missing, present, entriesRebuilt };
}

function reportOf(log: TailedLog, state: State): RecoveryReport {
  const report = log.reports[state];
  assert(report !== undefined, `log ${log.dir} was opened ${state}`);
  return report;
}

/** The torn open with a cold cache, and what the device read for it. */
function coldMetrics(ctx: LabContext, log: TailedLog): Metric[] {
  const prefix = `recovery.${log.segments}.${log.tailBytes}.torn.cold`;
  const M = RECOVERY_METRICS;
  const metrics = [
    M.openNs.adopt(`${prefix}.openNs`, log.coldOpen.summarize(ctx.random).latencyNs),
  ];
  if (log.coldDeviceReadBytes.length > 0) {
    metrics.push(
      M.deviceReadBytes.fromSamples(
        `${prefix}.deviceReadBytes`,
        log.coldDeviceReadBytes,
        { segments: log.segments, tailBytes: log.tailBytes, state: 'torn', cache: 'cold' },
        'bytes the block layer read for one cold open (/proc/self/io read_bytes)',
      ),
    );
  }
  return metrics;
}

function openMetrics(ctx: LabContext, log: TailedLog): Metric[] {
  return STATES.flatMap((state) => {
    const prefix = `recovery.${log.segments}.${log.tailBytes}.${state}`;
    const labels = { segments: log.segments, tailBytes: log.tailBytes, state };
    return [
      RECOVERY_METRICS.openNs.adopt(
        `${prefix}.openNs`,
        log.opens[state].summarize(ctx.random).latencyNs,
      ),
      RECOVERY_METRICS.scannedBytes.counter(
        `${prefix}.scannedBytes`,
        reportOf(log, state).scannedBytes,
        labels,
        'bytes the open checked record by record (its recovery report)',
      ),
    ];
  });
}

function rebuildMetrics(ctx: LabContext, rebuild: Rebuild): Metric[] {
  const mib = rebuild.segmentBytes / MiB;
  const perMiB = rebuild.missing.repetitions.map((repetition) => repetition.latencyNsP50 / mib);
  const M = RECOVERY_METRICS;
  return [
    M.rebuildNsPerMiB.fromSamples(
      'recovery.rebuildNsPerMiB',
      perMiB,
      { segmentBytes: rebuild.segmentBytes },
      'first lookup in a sealed segment whose .index was deleted (the index rebuilt from the ' +
        'log: a scan of the segment and two fdatasyncs), per MiB of segment',
    ),
    M.firstLookupNs.adopt(
      'recovery.rebuild.missing.firstLookupNs',
      rebuild.missing.summarize(ctx.random).latencyNs,
    ),
    M.firstLookupNs.adopt(
      'recovery.rebuild.present.firstLookupNs',
      rebuild.present.summarize(ctx.random).latencyNs,
    ),
  ];
}

function counters(logs: readonly TailedLog[], rebuild: Rebuild): Record<string, number> {
  const all: Record<string, number> = { 'rebuild.indexEntries': rebuild.entriesRebuilt };
  for (const log of logs) {
    const key = `${log.segments}.${log.tailBytes}`;
    all[`${key}.tailBytes`] = log.lastRecord.positionBytes + log.lastRecord.bytes.length;
    all[`${key}.olderPointPositionBytes`] = log.olderPointPositionBytes;
    for (const state of STATES) {
      const report = reportOf(log, state);
      all[`${key}.${state}.scannedRecords`] = report.scannedRecords;
      all[`${key}.${state}.scannedSegments`] = report.scannedSegments;
      all[`${key}.${state}.indexEntriesRebuilt`] = report.indexEntriesRebuilt;
      all[`${key}.${state}.discardedBytes`] = report.truncation?.discardedBytes ?? 0;
      all[`${key}.${state}.fromSegmentStart`] = report.startedFrom === 'segment-start' ? 1 : 0;
    }
  }
  return all;
}

function resultsParts(
  ctx: LabContext,
  logs: readonly TailedLog[],
  rebuild: Rebuild,
  coldMethod: ColdReadMethod | null,
) {
  const metrics = [
    ...logs.flatMap((log) => openMetrics(ctx, log)),
    ...(coldMethod === null ? [] : logs.flatMap((log) => coldMetrics(ctx, log))),
    ...rebuildMetrics(ctx, rebuild),
  ];
  return {
    metrics,
    counters: counters(logs, rebuild),
    notes: notes(ctx, coldMethod),
    headline: headline(logs, metrics),
  };
}

function coldNote(method: ColdReadMethod): string {
  const how =
    method === 'drop-caches'
      ? 'after a page-cache drop before each, which also empties the inode and directory caches'
      : "with O_DIRECT reads, while the file system's metadata stayed cached";
  return (
    `Cold opens: the torn state of every log, opened ${how}: the walked tail and the index ` +
    'files came from the device, as after a machine restart. These are the figures to size ' +
    'recovery by (loglab plan --measured prefers them).'
  );
}

function notes(ctx: LabContext, coldMethod: ColdReadMethod | null): string[] {
  const gap = formatBytes(ctx.numberParam('recoveryPointGapBytes'));
  return [
    'The states are made by editing files, not by crashing: torn cuts the last record of the ' +
      'active segment in half and removes the recovery point; recovery-point makes the same cut ' +
      `and puts back the recovery point saved ${gap} before the end (the log saves one at every ` +
      'flush and clean close, under durability always and group also at every roll, and every ' +
      '16 MiB synced under always). Torn checks the whole active segment: a crash under group ' +
      'just before the segment fills; under none the point stays at the last flush, and a crash ' +
      'checks every segment written since.',
    "Sealed segments are hard links to one template log's files: an open trusts the segments " +
      'before the recovery point and only opens and fstats them (their indexes load on first ' +
      'use), so their number matters, not their content.',
    'Warm opens: the page cache as after a process crash (it survives the process).',
    ...(coldMethod === null ? [] : [coldNote(coldMethod)]),
    `Index rebuild: a sealed segment of ${formatBytes(ctx.numberParam('rebuildSegmentBytes'))} ` +
      'whose .index was deleted is rebuilt on its first lookup, timed against the first lookup ' +
      'with the index present.',
  ];
}

function headline(logs: readonly TailedLog[], metrics: readonly Metric[]): string {
  const log = logs.at(-1);
  if (log === undefined) return 'Recovery measured; see the table.';
  const median = (name: string) =>
    metrics.find((metric) => metric.name === `recovery.${log.segments}.${log.tailBytes}.${name}`)
      ?.median;
  const at = (state: State) => median(`${state}.openNs`) ?? 0;
  const cold = median('torn.cold.openNs');
  const restart =
    cold === undefined
      ? ''
      : `; ${formatNs(cold)} with a cold page cache, as after a machine restart`;
  return (
    `With ${log.segments.toLocaleString('en-US')} segments and a ` +
    `${formatBytes(log.tailBytes)} tail the log served again ${formatNs(at('torn'))} after a ` +
    `torn tail (the whole tail checked${restart}), ${formatNs(at('recovery-point'))} with a ` +
    `saved recovery point, and ${formatNs(at('clean'))} after a clean close.`
  );
}
