/**
 * scan-vs-lookup: how much does the index save when a message comes back after its deadline?
 *
 * One segment of 1 KiB records (the course's email queue), targets at 1, 4, 16, 24, 48 and 64 MiB
 * of a 64 MiB segment (the same fractions of a smaller one with --quick). For each target: the
 * time to reach the record by scanning from the segment start (LogReader, every record's length,
 * CRC and id checked) and by an index lookup (Log.read), with a warm cache and, where the page
 * cache can be kept from answering (dropped, or bypassed with O_DIRECT), a cold one; the bytes
 * each asked the file system for (FileIO counters) and, cold, the bytes the block layer read
 * (/proc/self/io). Methods and targets are measured
 * side by side in every round. Every cold scan has a copy of the segment of its own, so no scan
 * finds pages an earlier one of the same round read; lookups touch disjoint pages.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ColdReadFileIO,
  type ColdReadMethod,
  EXOS_X20,
  type Experiment,
  type LabContext,
  Measurement,
  type Metric,
  PAGE_BYTES,
  type Prediction,
  type Results,
  formatBytes,
  halfTurnMs,
  interleave,
  measureSync,
  transferMs,
} from '../lab/index.js';
import { Log, MiB, StorageError } from '../storage/index.js';
import { formatNs } from './support/figures.js';
import { SCAN_VS_LOOKUP_CHARTS, SCAN_VS_LOOKUP_METRICS } from './metrics/scan-vs-lookup.js';
import { recordBodies } from './support/record-bodies.js';

/** Target positions as fractions of the segment: 1, 4, 16, 24, 48 and 64 MiB of 64 MiB. */
export const TARGET_SIXTY_FOURTHS: readonly number[] = [1, 4, 16, 24, 48, 64];
/** The course's case is the fourth target: 24 of 64. */
const COURSE_TARGET_INDEX = 3;
const RECORD_BYTES = 1024;
const APPEND_BATCH_RECORDS = 1024;
/** The lookup walk of the course (lesson 2): Asha's record starts 23,959,523 bytes in. */
const COURSE_RECORD_POSITION_BYTES = 23_959_523;
const COURSE_RECORD_BYTES = 53;
const COURSE_LOOKUP_PAGES = 2;
const COURSE_TARGET_MIB = 24;
export const METHODS = ['scan', 'lookup'] as const;
type Method = (typeof METHODS)[number];
type Cache = 'warm' | 'cold';

export const experiment: Experiment = {
  id: 'scan-vs-lookup',
  question: 'how much does the index save when a message comes back after its deadline?',
  params: {
    segmentBytes: { quick: 16 * MiB, full: 64 * MiB },
    rounds: { quick: 2, full: 5 },
    warmScansPerRound: { quick: 1, full: 3 },
    warmLookupsPerRound: { quick: 50, full: 200 },
  },
  seed: 24,
  metrics: SCAN_VS_LOOKUP_METRICS,
  charts: SCAN_VS_LOOKUP_CHARTS,
  run,
};

interface Target {
  readonly offset: number;
  readonly positionBytes: number;
  readonly targetMiB: number;
  /** The log this target's cold scans read, a copy of the segment of its own. */
  readonly scanLog: Log;
  readonly scanIo: ColdReadFileIO;
  readonly measurements: Readonly<Record<`${Method}.${Cache}`, Measurement>>;
  readonly bytesRead: Partial<Record<Method, number>>;
  readonly deviceBytes: Record<Method, number[]>;
}

interface Bench {
  readonly io: ColdReadFileIO;
  readonly log: Log;
  readonly targets: readonly Target[];
}

async function run(ctx: LabContext): Promise<Results> {
  const segmentBytes = ctx.numberParam('segmentBytes');
  ctx.ensureFreeSpace((TARGET_SIXTY_FOURTHS.length + 1) * segmentBytes * 1.1);
  const bench = build(ctx, segmentBytes);
  try {
    await measureWarm(ctx, bench);
    return ctx.results(resultsParts(ctx, bench, measureCold(ctx, bench)));
  } finally {
    await bench.log.close();
    for (const target of bench.targets) await target.scanLog.close();
  }
}

/** Fills one segment exactly, then copies it once per target for the cold scans. */
function build(ctx: LabContext, segmentBytes: number): Bench {
  const dir = path.join(ctx.dir, 'segment');
  const io = new ColdReadFileIO();
  const log = Log.open(dir, { durability: 'none', segmentBytes, io });
  const [body] = recordBodies(ctx.random.fork(), RECORD_BYTES);
  const records = Math.floor(segmentBytes / RECORD_BYTES);
  ctx.progress.phase(`writing a ${formatBytes(segmentBytes)} segment`);
  for (let done = 0; done < records; done += APPEND_BATCH_RECORDS) {
    log.appendBatchNoWait(
      new Array<Buffer>(Math.min(APPEND_BATCH_RECORDS, records - done)).fill(body!),
    );
  }
  void log.flush();
  const targets = TARGET_SIXTY_FOURTHS.map((sixtyFourths, i) => {
    const targetBytes = (segmentBytes * sixtyFourths) / 64;
    const offset = Math.min(records - 1, Math.floor((targetBytes - 1) / RECORD_BYTES));
    const copy = path.join(ctx.dir, `scan-copy-${i}`);
    fs.cpSync(dir, copy, { recursive: true });
    const scanIo = new ColdReadFileIO();
    const targetMiB = targetBytes / MiB;
    const measurement = (method: Method, cache: Cache) =>
      new Measurement(`scan-vs-lookup.${method}.${targetMiB}.${cache}`, 'sync', {
        method,
        targetMiB,
        cache,
      });
    return {
      offset,
      positionBytes: offset * RECORD_BYTES,
      targetMiB,
      scanLog: Log.open(copy, { durability: 'none', segmentBytes, io: scanIo }),
      scanIo,
      measurements: {
        'scan.warm': measurement('scan', 'warm'),
        'scan.cold': measurement('scan', 'cold'),
        'lookup.warm': measurement('lookup', 'warm'),
        'lookup.cold': measurement('lookup', 'cold'),
      },
      bytesRead: {},
      deviceBytes: { scan: [], lookup: [] },
    };
  });
  return { io, log, targets };
}

/** Reads from the segment start, record after record, until the target; returns its size. */
function scanTo(log: Log, offset: number): number {
  const reader = log.reader(log.startOffset);
  for (;;) {
    const record = reader.next();
    if (record === null) {
      throw new StorageError(
        'OFFSET_OUT_OF_RANGE',
        `scan of ${log.dir} ended before ` +
          `offset ${offset}; the segment is shorter than the experiment wrote: rerun it`,
      );
    }
    if (record.offset === offset) return record.sizeBytes;
  }
}

function operation(method: Method, log: Log, offset: number): () => number {
  return method === 'scan' ? () => scanTo(log, offset) : () => log.read(offset).sizeBytes;
}

async function measureWarm(ctx: LabContext, bench: Bench): Promise<void> {
  const ops: Record<Method, number> = {
    scan: ctx.numberParam('warmScansPerRound'),
    lookup: ctx.numberParam('warmLookupsPerRound'),
  };
  const designs = bench.targets.flatMap((target) =>
    METHODS.map((method) => ({
      name: `${method} to ${target.targetMiB} MiB, warm`,
      round: () => {
        // The bytes one operation asks for do not change from round to round: counted once.
        const phase = target.bytesRead[method] === undefined ? ctx.ioPhase(bench.io) : null;
        const op = operation(method, bench.log, target.offset);
        const repetition = measureSync(target.measurements[`${method}.warm`], op, {
          ops: ops[method],
        });
        if (phase !== null) {
          target.bytesRead[method] = (phase.end().fileIo?.readBytes ?? 0) / repetition.ops;
        }
        return repetition;
      },
    })),
  );
  await interleave(ctx.numberParam('rounds'), designs, ctx.progress);
}

/**
 * Once a round the page cache is made unable to answer (a drop, or O_DIRECT reads), then one cold
 * lookup and one cold scan per target (the method order alternates by round). Returns how, or
 * null when no cold reads can be made here.
 */
function measureCold(ctx: LabContext, bench: Bench): ColdReadMethod | null {
  const rounds = ctx.numberParam('rounds');
  const ios = [bench.io, ...bench.targets.map((target) => target.scanIo)];
  let used: ColdReadMethod | null = null;
  for (let round = 0; round < rounds; round++) {
    ctx.progress.phase(`cold round ${round + 1}/${rounds}: emptying the page cache`);
    const coldReads = ctx.startColdReads(ios);
    if (coldReads.method === null) return null;
    used = coldReads.method;
    const methods = round % 2 === 0 ? METHODS : [...METHODS].reverse();
    for (const target of bench.targets) {
      for (const method of methods) {
        const log = method === 'scan' ? target.scanLog : bench.log;
        const phase = ctx.ioPhase(method === 'scan' ? target.scanIo : bench.io);
        measureSync(target.measurements[`${method}.cold`], operation(method, log, target.offset), {
          ops: 1,
        });
        const deviceBytes = phase.end().proc?.readBytes;
        if (deviceBytes !== undefined) target.deviceBytes[method].push(deviceBytes);
      }
    }
    coldReads.end();
  }
  return used;
}

function targetMetrics(ctx: LabContext, target: Target, coldMeasured: boolean): Metric[] {
  const metrics: Metric[] = [];
  const M = SCAN_VS_LOOKUP_METRICS;
  for (const method of METHODS) {
    const prefix = `scan-vs-lookup.${method}.${target.targetMiB}`;
    const labels = { method, targetMiB: target.targetMiB };
    const caches: Cache[] = coldMeasured ? ['warm', 'cold'] : ['warm'];
    for (const cache of caches) {
      const summary = target.measurements[`${method}.${cache}`].summarize(ctx.random);
      metrics.push(M.timeNs.adopt(`${prefix}.${cache}.timeNs`, summary.latencyNs));
    }
    metrics.push(
      M.bytesRead.counter(
        `${prefix}.bytesRead`,
        target.bytesRead[method] ?? 0,
        labels,
        'bytes the method asked the file system for (FileIO counters; scans read 256 KiB ' +
          'windows, lookups one 8 KiB window)',
      ),
    );
    const device = target.deviceBytes[method];
    if (coldMeasured && device.length > 0) {
      metrics.push(
        M.deviceReadBytes.fromSamples(
          `${prefix}.cold.deviceReadBytes`,
          device,
          { ...labels, cache: 'cold' },
          'bytes the block layer read for one cold operation (/proc/self/io read_bytes, ' +
            'readahead included), one sample per round',
        ),
      );
    }
  }
  return metrics;
}

/** One read at a random place on the HDD model: a seek, half a turn, then the transfer. */
function hddReadNs(bytes: number): number {
  return (EXOS_X20.averageSeekMs + halfTurnMs(EXOS_X20) + transferMs(EXOS_X20, bytes)) * 1e6;
}

/**
 * The HDD model's price of every cold figure, from the bytes each method read here; beside the
 * 24 MiB target (full runs) the course's own figures for its case.
 */
export function scanPredictions(
  targets: ReadonlyArray<Pick<Target, 'targetMiB' | 'bytesRead'>>,
  coldMeasured: boolean,
): Prediction[] {
  const predicted: Prediction[] = [];
  for (const target of coldMeasured ? targets : []) {
    for (const method of METHODS) {
      const bytes = target.bytesRead[method] ?? 0;
      predicted.push({
        name: `scan-vs-lookup.${method}.${target.targetMiB}.cold.timeNs`,
        model: 'hdd:exos-x20',
        unit: 'ns',
        value: hddReadNs(bytes),
        basis:
          `one seek and half a turn, then ${formatBytes(bytes)} (the bytes read here) at ` +
          `${EXOS_X20.sustainedBytesPerSec / 1e6} MB/s; the index is in memory`,
      });
    }
  }
  if (!targets.some((target) => target.targetMiB === COURSE_TARGET_MIB)) return predicted;
  const courseScanBytes = COURSE_RECORD_POSITION_BYTES + COURSE_RECORD_BYTES;
  const name = (method: Method, quantity: string) =>
    `scan-vs-lookup.${method}.${COURSE_TARGET_MIB}.${quantity}`;
  if (coldMeasured) {
    predicted.push({
      name: name('scan', 'cold.timeNs'),
      model: 'course',
      unit: 'ns',
      value: transferMs(EXOS_X20, COURSE_RECORD_POSITION_BYTES) * 1e6,
      basis: 'course: scan of 23,959,523 bytes at 285 MB/s, about 84 ms for one message',
    });
  }
  predicted.push(
    {
      name: name('scan', 'bytesRead'),
      model: 'course',
      unit: 'B',
      value: courseScanBytes,
      basis: "course: the scan reads the segment up to the end of Asha's record, about 24 MB",
    },
    {
      name: name('lookup', 'bytesRead'),
      model: 'course',
      unit: 'B',
      value: COURSE_LOOKUP_PAGES * PAGE_BYTES,
      basis: 'course: the step forward (3,155 bytes) lies in two 4 KiB pages',
    },
  );
  return predicted;
}

function resultsParts(ctx: LabContext, bench: Bench, coldMethod: ColdReadMethod | null) {
  const coldMeasured = coldMethod !== null;
  const metrics = bench.targets.flatMap((target) => targetMetrics(ctx, target, coldMeasured));
  const counters: Record<string, number> = {};
  for (const target of bench.targets) {
    counters[`${target.targetMiB}.offset`] = target.offset;
    counters[`${target.targetMiB}.positionBytes`] = target.positionBytes;
    for (const [key, measurement] of Object.entries(target.measurements)) {
      counters[`${target.targetMiB}.${key}.checksum`] = measurement.checksum;
    }
  }
  const courseTarget = bench.targets[COURSE_TARGET_INDEX];
  return {
    metrics,
    counters,
    predictions: scanPredictions(bench.targets, coldMeasured),
    notes: notes(ctx, courseTarget, metrics, coldMethod),
    headline: headline(courseTarget, metrics, coldMeasured),
  };
}

function median(metrics: readonly Metric[], name: string): number | null {
  return metrics.find((metric) => metric.name === name)?.median ?? null;
}

function headline(target: Target | undefined, metrics: readonly Metric[], cold: boolean): string {
  if (target === undefined) return 'Scan and lookup measured; see the table.';
  const cache: Cache = cold ? 'cold' : 'warm';
  const at = (method: Method) =>
    median(metrics, `scan-vs-lookup.${method}.${target.targetMiB}.${cache}.timeNs`);
  const scan = at('scan');
  const lookup = at('lookup');
  if (scan === null || lookup === null) return 'Scan and lookup measured; see the table.';
  return (
    `Reaching the record ${target.targetMiB} MiB into the segment took ${formatNs(scan)} ` +
    `by scan and ${formatNs(lookup)} by lookup with a ${cache} cache; the course prices 24 MB ` +
    'of scan at 84 ms (285 MB/s) against two 4 KiB pages for the lookup.'
  );
}

/** Bytes per second of a scan that read `bytes` in `ns`, in MB/s as datasheets quote them. */
function mbPerSec(bytes: number, ns: number): number {
  return (bytes / ns) * 1e3;
}

function notes(
  ctx: LabContext,
  target: Target | undefined,
  metrics: readonly Metric[],
  coldMethod: ColdReadMethod | null,
): string[] {
  const written = [
    "Records are 1 KiB (the course's email queue) with the default 4 KiB index interval; the " +
      'index is in memory, so a lookup reads one 8 KiB window of the .log file. A scan checks ' +
      "every record on the way (length, CRC-32C, id), as recovery and the course's option 1 do.",
    'bytesRead counts what the methods asked for (FileIO counters); deviceReadBytes what the ' +
      'block layer fetched for a cold operation (/proc/self/io read_bytes, readahead included).',
  ];
  if (target === undefined) return written;
  if (target.targetMiB !== COURSE_TARGET_MIB) {
    written.push(
      `The course's case (24 MB into a 64 MiB segment) lies beyond this ${
        ctx.quick ? 'quick ' : ''
      }segment; its figures sit beside the 24 MiB target of a full run. The nearest ` +
        `target here is ${target.targetMiB} MiB, the same fraction of the segment.`,
    );
  }
  if (coldMethod !== null) written.push(...gapNotes(ctx, target, metrics, coldMethod));
  return written;
}

/** How much more than it asked for a cold scan fetched: the kernel's readahead, if any. */
function readaheadNote(target: Target, coldMethod: ColdReadMethod): string[] {
  const device = target.deviceBytes.scan;
  const asked = target.bytesRead.scan ?? 0;
  if (device.length === 0 || asked === 0) return [];
  const fetched = Math.max(...device);
  const start =
    `A cold scan to ${target.targetMiB} MiB asked for ${formatBytes(asked)} and the ` +
    `block layer fetched up to ${formatBytes(fetched)}`;
  if (coldMethod === 'o-direct') {
    return [
      `${start}: O_DIRECT reads have no readahead, so each 256 KiB window waited for the ` +
        'device in turn, where a buffered scan after a drop overlaps readahead with the checks.',
    ];
  }
  return [
    `${start}: readahead runs ahead of a sequential reader, which the model (bytes read ` +
      'at the sequential rate) leaves out.',
  ];
}

/** Where the measured gap between scan and lookup departs from the HDD model, and why. */
function gapNotes(
  ctx: LabContext,
  target: Target,
  metrics: readonly Metric[],
  coldMethod: ColdReadMethod,
): string[] {
  const name = (method: Method, cache: Cache) =>
    `scan-vs-lookup.${method}.${target.targetMiB}.${cache}.timeNs`;
  const scanCold = median(metrics, name('scan', 'cold'));
  const lookupCold = median(metrics, name('lookup', 'cold'));
  const scanWarm = median(metrics, name('scan', 'warm'));
  if (scanCold === null || lookupCold === null || scanWarm === null) return [];
  const scanBytes = target.bytesRead.scan ?? 0;
  const lookupBytes = target.bytesRead.lookup ?? 0;
  const modelGap = hddReadNs(scanBytes) / hddReadNs(lookupBytes);
  const coldRate = mbPerSec(scanBytes, scanCold);
  const warmRate = mbPerSec(scanBytes, scanWarm);
  const device = ctx.environment.device;
  const deviceName =
    `${device.model ?? device.name ?? 'this device'}` +
    `${device.rotational === true ? ', which reports that it spins' : ''}`;
  const modelLookupNs = hddReadNs(lookupBytes);
  // A cold lookup a quarter of the model's or less cannot have waited for a seek and half a
  // turn (an HDD reading near where it last read still pays most of the turn).
  const noPositioning = lookupCold < modelLookupNs / 4;
  const deviceBound = coldRate < warmRate / 1.25;
  return [
    `At ${target.targetMiB} MiB the cold scan took ${Math.round(scanCold / lookupCold)}× the ` +
      `cold lookup; the HDD model says ${modelGap.toFixed(1)}× ` +
      `(${formatNs(hddReadNs(scanBytes))} vs ${formatNs(modelLookupNs)}).`,
    `The model charges a lookup one seek and half a turn (${formatNs(modelLookupNs)}); the ` +
      `cold lookup here took ${formatNs(lookupCold)} on ${deviceName}: ${
        noPositioning
          ? 'no arm moved, so the positioning the model charges is absent and a lookup costs one ' +
            'small I/O, which widens the gap.'
          : 'positioning dominates a cold lookup here too.'
      }`,
    `The model streams the scan at 285 MB/s; the cold scan ran at ${coldRate.toFixed(0)} MB/s ` +
      `and the warm one at ${warmRate.toFixed(0)} MB/s, so ${
        deviceBound
          ? "the device, not the record checks, set the cold scan's pace."
          : 'the scan is bound by checking every record in JavaScript (length, CRC-32C, id), not ' +
            'by the device: a faster disk would not shorten it.'
      }`,
    ...readaheadNote(target, coldMethod),
  ];
}
