/**
 * index-density: what does a sparse index cost and save against a dense one?
 *
 * One log per setting — index intervals 0 (dense), 512 B, 1, 4, 16 and 64 KiB, records of 53 B,
 * 1 KiB and a mixed distribution — filled side by side in interleaved rounds with the index
 * maintained. Per setting: index bytes per GiB of log (the course's 131,072 vs 10,129,640 bytes per
 * 64 MiB segment of 53-byte records beside them), append throughput, lookup latency of random
 * offsets with a warm and a cold cache, bytes and 4 KiB pages the step forward reads, and the
 * binary search's comparisons (Log.explainLookup).
 *
 * The log keeps each segment's offset index resident (like Kafka's memory-mapped index kept hot),
 * so a cold lookup reads only the .log pages of its step forward. Kafka's "warm section first"
 * is about the other case, index pages that left the cache: for the 53-byte logs (whose indexes
 * range from a few KiB to 10 MB) the .index file itself is searched, a pread per probe
 * (searchIndexFile), plainly and warm section first, for recent and for any offsets.
 */
import * as path from 'node:path';
import {
  ColdReadFileIO,
  type Experiment,
  type LabContext,
  type Labels,
  Measurement,
  type Metric,
  type Prediction,
  type Results,
  formatBytes,
  interleave,
  measureSync,
} from '../lab/index.js';
import { GiB, KiB, Log, MiB } from '../storage/index.js';
import { OFFSET_INDEX_ENTRY_BYTES, offsetIndexFileBytes } from '../storage/testing/index.js';
import { formatNs, mean, pagesSpanned } from './support/figures.js';
import { INDEX_DENSITY_CHARTS, INDEX_DENSITY_METRICS } from './metrics/index-density.js';
import { randomOffsets } from './support/targets.js';
import {
  type FileSearch,
  fileSearchResults,
  measureColdFileSearches,
  openFileSearches,
} from './support/index-file-search.js';
import {
  MIXED_MAX_RECORD_BYTES,
  MIXED_MIN_RECORD_BYTES,
  type RecordSize,
  meanRecordBytes,
  mixedMeanRecordBytes,
  recordBodies,
} from './support/record-bodies.js';

export const INTERVALS_BYTES: readonly number[] = [0, 512, KiB, 4 * KiB, 16 * KiB, 64 * KiB];
export const RECORD_SIZES: readonly RecordSize[] = [53, 1024, 'mixed'];
/** Share of the time budget spent on warm lookups; fills and cold rounds are sized by count. */
const WARM_LOOKUP_SHARE = 0.4;
/** Random offsets drawn once per setting for the warm lookups, cycled through. */
const WARM_TARGETS = 4096;
/** The sizing example of the course (lesson 2): a 64 MiB segment of 53-byte records. */
const COURSE_SEGMENT_BYTES = 64 * MiB;
const COURSE_RECORD_BYTES = 53;
const COURSE_SPARSE_INTERVAL_BYTES = 4096;

interface Setting {
  readonly key: string;
  readonly intervalBytes: number;
  readonly recordSizeBytes: RecordSize;
  readonly labels: Labels;
  readonly io: ColdReadFileIO;
  readonly log: Log;
  readonly bodies: readonly Buffer[];
  readonly records: number;
  readonly append: Measurement;
  readonly warm: Measurement;
  readonly cold: Measurement;
  readonly warmIo: { readBytes: number; lookups: number };
  readonly coldDeviceBytesPerLookup: number[];
}

interface Walks {
  readonly comparisons: number;
  readonly stepForwardBytes: number;
  readonly pages: number;
  readonly indexEntries: number;
}

export const experiment: Experiment = {
  id: 'index-density',
  question: 'what does a sparse index cost and save against a dense one?',
  params: {
    logBytes: { quick: 4 * MiB, full: 64 * MiB },
    rounds: { quick: 2, full: 10 },
    coldLookupsPerRound: { quick: 20, full: 100 },
    walkSamples: { quick: 50, full: 200 },
    recentBytes: { quick: 256 * KiB, full: 4 * MiB },
  },
  seed: 53,
  metrics: INDEX_DENSITY_METRICS,
  charts: INDEX_DENSITY_CHARTS,
  run,
};

async function run(ctx: LabContext): Promise<Results> {
  const logBytes = ctx.numberParam('logBytes');
  const rounds = ctx.numberParam('rounds');
  const settings = RECORD_SIZES.flatMap((size) =>
    INTERVALS_BYTES.map((interval) => ({ size, interval })),
  );
  // Log, offset index (8 B per entry) and time index (12 B) of the densest setting stay below
  // twice the log; the index copies the file search uses are a fraction of that.
  ctx.ensureFreeSpace(settings.length * logBytes * 2);
  const opened = settings.map(({ size, interval }) => openSetting(ctx, size, interval, logBytes));
  const searches: FileSearch[] = [];
  try {
    await fill(ctx, opened, rounds);
    const walks = opened.map((setting) => walkFigures(ctx, setting));
    await warmLookups(ctx, opened, rounds);
    searches.push(...openFileSearches(ctx, opened.filter(isCourseRecordSize)));
    const coldMeasured = measureCold(ctx, opened, searches, rounds);
    return ctx.results(resultsParts(ctx, opened, walks, searches, coldMeasured));
  } finally {
    for (const search of searches) search.close();
    for (const setting of opened) await setting.log.close();
  }
}

function isCourseRecordSize(setting: Setting): boolean {
  return setting.recordSizeBytes === COURSE_RECORD_BYTES;
}

function openSetting(
  ctx: LabContext,
  recordSizeBytes: RecordSize,
  intervalBytes: number,
  logBytes: number,
): Setting {
  const key = `${recordSizeBytes}.${intervalBytes}`;
  const io = new ColdReadFileIO();
  // One segment holds the whole log: the index of one segment is what is being priced.
  const log = Log.open(path.join(ctx.dir, 'logs', key), {
    durability: 'none',
    segmentBytes: logBytes * 2,
    indexIntervalBytes: intervalBytes,
    io,
  });
  const bodies = recordBodies(ctx.random.fork(), recordSizeBytes);
  const labels: Labels = { intervalBytes, recordSizeBytes };
  return {
    key,
    intervalBytes,
    recordSizeBytes,
    labels,
    io,
    log,
    bodies,
    records: Math.max(1, Math.round(logBytes / meanRecordBytes(bodies))),
    append: new Measurement(`index-density.${key}.append`, 'sync', labels),
    warm: new Measurement(`index-density.${key}.warm`, 'sync', { ...labels, cache: 'warm' }),
    cold: new Measurement(`index-density.${key}.cold`, 'sync', { ...labels, cache: 'cold' }),
    warmIo: { readBytes: 0, lookups: 0 },
    coldDeviceBytesPerLookup: [],
  };
}

/** Appends every setting's records in interleaved rounds, each append timed, then syncs. */
async function fill(ctx: LabContext, settings: readonly Setting[], rounds: number): Promise<void> {
  await interleave(
    rounds,
    settings.map((setting) => {
      const { log, bodies } = setting;
      const ops = Math.ceil(setting.records / rounds);
      return {
        name: `append ${setting.key}`,
        round: () =>
          measureSync(
            setting.append,
            (i) => log.appendNoWait(bodies[i % bodies.length]!),
            { ops },
            { progress: ctx.progress },
          ),
      };
    }),
    ctx.progress,
  );
  for (const setting of settings) await setting.log.flush();
}

/** The lookup walk of sampled offsets: comparisons, bytes stepped and pages they span. */
function walkFigures(ctx: LabContext, setting: Setting): Walks {
  const samples = ctx.numberParam('walkSamples');
  const offsets = randomOffsets(ctx.random.fork(), setting.log.endOffset, samples);
  const walks = offsets.map((offset) => setting.log.explainLookup(offset));
  const pages = walks.map((walk) =>
    pagesSpanned(
      walk.indexEntry?.positionBytes ?? 0,
      walk.recordPositionBytes + walk.recordSizeBytes,
    ),
  );
  return {
    comparisons: mean(walks.map((walk) => walk.comparisons)),
    stepForwardBytes: mean(walks.map((walk) => walk.stepForwardBytes)),
    pages: mean(pages),
    indexEntries: walks[0]?.indexEntries ?? 0,
  };
}

async function warmLookups(ctx: LabContext, settings: readonly Setting[], rounds: number) {
  const seconds = (ctx.secondsBudget * WARM_LOOKUP_SHARE) / (settings.length * rounds);
  await interleave(
    rounds,
    settings.map((setting) => {
      const targets = randomOffsets(ctx.random.fork(), setting.log.endOffset, WARM_TARGETS);
      return {
        name: `warm lookups ${setting.key}`,
        round: () => {
          const phase = ctx.ioPhase(setting.io);
          const repetition = measureSync(
            setting.warm,
            (i) => setting.log.read(targets[i % WARM_TARGETS]!).sizeBytes,
            { seconds },
          );
          setting.warmIo.readBytes += phase.end().fileIo?.readBytes ?? 0;
          setting.warmIo.lookups += repetition.ops;
          return repetition;
        },
      };
    }),
    ctx.progress,
  );
}

/**
 * Cold rounds: the page cache made unable to answer (a drop, or O_DIRECT reads), then fresh random
 * offsets in every setting (no other lookup of the round touches their pages) and the index file
 * searches. Returns false when no cold reads can be made here (the context notes why).
 */
function measureCold(
  ctx: LabContext,
  settings: readonly Setting[],
  searches: readonly FileSearch[],
  rounds: number,
): boolean {
  const lookups = ctx.numberParam('coldLookupsPerRound');
  const ios = [...settings.map((setting) => setting.io), ...searches.map((search) => search.io)];
  for (let round = 0; round < rounds; round++) {
    ctx.progress.phase(`cold round ${round + 1}/${rounds}: emptying the page cache`);
    const coldReads = ctx.startColdReads(ios);
    if (coldReads.method === null) return false;
    for (const setting of settings) {
      const targets = randomOffsets(ctx.random.fork(), setting.log.endOffset, lookups);
      const phase = ctx.ioPhase(setting.io);
      const repetition = measureSync(
        setting.cold,
        (i) => setting.log.read(targets[i % lookups]!).sizeBytes,
        { ops: lookups },
      );
      const deviceBytes = phase.end().proc?.readBytes;
      if (deviceBytes === undefined) continue;
      setting.coldDeviceBytesPerLookup.push(deviceBytes / repetition.ops);
    }
    measureColdFileSearches(ctx, searches, lookups);
    coldReads.end();
  }
  return true;
}

function indexFileBytes(setting: Setting): number {
  return setting.log
    .segments()
    .reduce((sum, segment) => sum + offsetIndexFileBytes(setting.log.dir, segment.baseOffset), 0);
}

function settingMetrics(ctx: LabContext, setting: Setting, walks: Walks, coldMeasured: boolean) {
  const prefix = `index-density.${setting.key}`;
  const { labels } = setting;
  const perGiB = (indexFileBytes(setting) * GiB) / setting.log.sizeBytes;
  const M = INDEX_DENSITY_METRICS;
  const metrics: Metric[] = [
    M.indexBytesPerGiB.counter(
      `${prefix}.indexBytesPerGiB`,
      perGiB,
      labels,
      'offset index file bytes per GiB of log, from the file sizes after the fill',
    ),
    M.appendMsgsPerSec.adopt(
      `${prefix}.appendMsgsPerSec`,
      setting.append.summarize(ctx.random).ratePerSec,
    ),
    M.lookupLatencyNs.adopt(
      `${prefix}.warm.lookupLatencyNs`,
      setting.warm.summarize(ctx.random).latencyNs,
    ),
    M.comparisons.counter(
      `${prefix}.comparisons`,
      walks.comparisons,
      labels,
      'index entries the binary search compared, mean over sampled lookups (explainLookup)',
    ),
    M.stepForwardBytes.counter(
      `${prefix}.stepForwardBytes`,
      walks.stepForwardBytes,
      labels,
      'bytes from the index entry to the end of the target record, mean',
    ),
    M.pagesPerLookup.counter(
      `${prefix}.pagesPerLookup`,
      walks.pages,
      labels,
      '4 KiB pages the step forward spans, mean: what a cold lookup must fetch at least',
    ),
    // A mean over however many lookups the timed warm phase reached: a measurement.
    M.readBytesPerLookup.measured(
      `${prefix}.readBytesPerLookup`,
      setting.warmIo.readBytes / setting.warmIo.lookups,
      labels,
      'bytes the lookups asked the file system for (FileIO counters, 8 KiB read windows), mean',
    ),
  ];
  if (!coldMeasured) return metrics;
  const cold = setting.cold.summarize(ctx.random).latencyNs;
  metrics.push(M.lookupLatencyNs.adopt(`${prefix}.cold.lookupLatencyNs`, cold));
  if (setting.coldDeviceBytesPerLookup.length > 0) {
    metrics.push(
      M.deviceReadBytesPerLookup.fromSamples(
        `${prefix}.cold.deviceReadBytesPerLookup`,
        setting.coldDeviceBytesPerLookup,
        { ...labels, cache: 'cold' },
        'bytes the block layer read per cold lookup (/proc/self/io read_bytes, readahead ' +
          'included), one sample per round',
      ),
    );
  }
  return metrics;
}

/** The course's two index sizes for 64 MiB of 53-byte records, per GiB of log. */
function coursePredictions(): Prediction[] {
  const segmentsPerGiB = GiB / COURSE_SEGMENT_BYTES;
  // Rounded as the course rounds it: 67,108,864 / 53 = 1,266,205 entries.
  const denseBytes =
    Math.round(COURSE_SEGMENT_BYTES / COURSE_RECORD_BYTES) * OFFSET_INDEX_ENTRY_BYTES;
  const sparseBytes =
    (COURSE_SEGMENT_BYTES / COURSE_SPARSE_INTERVAL_BYTES) * OFFSET_INDEX_ENTRY_BYTES;
  const labels = (intervalBytes: number) => ({
    intervalBytes,
    recordSizeBytes: COURSE_RECORD_BYTES,
  });
  return [
    {
      name: `index-density.${COURSE_RECORD_BYTES}.0.indexBytesPerGiB`,
      model: 'course',
      unit: 'B',
      value: denseBytes * segmentsPerGiB,
      labels: labels(0),
      basis:
        `course: dense, ${denseBytes.toLocaleString('en-US')} B per 64 MiB segment ` +
        `of 53-byte records, × ${segmentsPerGiB} segments per GiB`,
    },
    {
      name: `index-density.${COURSE_RECORD_BYTES}.${COURSE_SPARSE_INTERVAL_BYTES}.indexBytesPerGiB`,
      model: 'course',
      unit: 'B',
      value: sparseBytes * segmentsPerGiB,
      labels: labels(COURSE_SPARSE_INTERVAL_BYTES),
      basis:
        `course: one entry per 4 KiB, ${sparseBytes.toLocaleString('en-US')} B per 64 MiB ` +
        `segment, × ${segmentsPerGiB} segments per GiB`,
    },
  ];
}

function resultsParts(
  ctx: LabContext,
  settings: readonly Setting[],
  walks: readonly Walks[],
  searches: readonly FileSearch[],
  coldMeasured: boolean,
) {
  const metrics = settings.flatMap((setting, i) =>
    settingMetrics(ctx, setting, walks[i]!, coldMeasured),
  );
  const fileSearch = fileSearchResults(ctx, searches, coldMeasured);
  metrics.push(...fileSearch.metrics);
  const counters: Record<string, number> = {};
  settings.forEach((setting, i) => {
    counters[`${setting.key}.logBytes`] = setting.log.sizeBytes;
    counters[`${setting.key}.records`] = setting.log.endOffset;
    counters[`${setting.key}.indexEntries`] = walks[i]!.indexEntries;
    counters[`${setting.key}.appendChecksum`] = setting.append.checksum;
    counters[`${setting.key}.lookupChecksum`] = setting.warm.checksum;
  });
  return {
    metrics,
    counters,
    predictions: coursePredictions(),
    notes: [...designNotes(ctx, coldMeasured), ...fileSearch.notes],
    headline: headline(metrics),
  };
}

function designNotes(ctx: LabContext, coldMeasured: boolean): string[] {
  const notes = [
    "The log keeps each segment's offset index in memory (like Kafka's memory-mapped index " +
      'kept hot): the binary search makes no system call, and a cold lookup reads only the ' +
      '.log pages of its step forward, in 8 KiB windows from the index entry.',
    `Each setting is one log of ${formatBytes(ctx.numberParam('logBytes'))} in one segment, ` +
      'appended one record per write with durability none (page cache), the index entries ' +
      'written behind; the settings were filled and looked up side by side in interleaved rounds.',
    "Record sizes count the whole record, 16-byte header included (the course's 53 bytes); " +
      `"mixed" draws sizes log-uniformly from ${MIXED_MIN_RECORD_BYTES} B to ` +
      `${formatBytes(MIXED_MAX_RECORD_BYTES)} (mean ${formatBytes(mixedMeanRecordBytes())}).`,
    sparseRuleNote(),
  ];
  if (coldMeasured) {
    notes.push(
      'Cold lookups: once a round the page cache was made unable to answer (dropped, ' +
        `or bypassed with O_DIRECT, as noted above), then ${ctx.numberParam('coldLookupsPerRound')} ` +
        "fresh random offsets per setting; device bytes per lookup include the kernel's readahead " +
        'after a drop, and exactly the 4 KiB pages read with O_DIRECT.',
    );
  }
  return notes;
}

/** Why the measured sparse index is a little smaller than the course's round figure. */
function sparseRuleNote(): string {
  const recordsPerEntry = Math.floor(COURSE_SPARSE_INTERVAL_BYTES / COURSE_RECORD_BYTES) + 1;
  const bytesPerEntry = recordsPerEntry * COURSE_RECORD_BYTES;
  const courseEntries = COURSE_SEGMENT_BYTES / COURSE_SPARSE_INTERVAL_BYTES;
  return (
    'The sparse rule adds an entry when MORE than the interval has passed since the last ' +
    `one, so ${COURSE_RECORD_BYTES}-byte records get one every ${recordsPerEntry} records ` +
    `(${bytesPerEntry.toLocaleString('en-US')} bytes) at 4 KiB: ` +
    `${Math.floor(COURSE_SEGMENT_BYTES / bytesPerEntry).toLocaleString('en-US')} entries per ` +
    `64 MiB against the course's round ${courseEntries.toLocaleString('en-US')}.`
  );
}

function findMedian(metrics: readonly Metric[], name: string): number | null {
  return metrics.find((metric) => metric.name === name)?.median ?? null;
}

function headline(metrics: readonly Metric[]): string {
  const dense = findMedian(metrics, `index-density.53.0.indexBytesPerGiB`);
  const sparse = findMedian(metrics, `index-density.53.4096.indexBytesPerGiB`);
  const denseNs = findMedian(metrics, 'index-density.53.0.warm.lookupLatencyNs');
  const sparseNs = findMedian(metrics, 'index-density.53.4096.warm.lookupLatencyNs');
  const courseRatio = COURSE_SEGMENT_BYTES / COURSE_RECORD_BYTES / (COURSE_SEGMENT_BYTES / 4096);
  if (dense === null || sparse === null || denseNs === null || sparseNs === null) {
    return 'Index density measured; see the table.';
  }
  return (
    `For 53-byte records a 4 KiB interval kept the index ${Math.round(dense / sparse)}× ` +
    `smaller than a dense one (${formatBytes(sparse)} vs ${formatBytes(dense)} per GiB; the ` +
    `course: ${Math.round(courseRatio)}×) while a warm lookup took ${formatNs(sparseNs)} against ` +
    `${formatNs(denseNs)}.`
  );
}
