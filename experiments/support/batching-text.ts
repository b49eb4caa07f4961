/**
 * The batching experiment's headline and notes, from the figures it measured. The headline takes
 * one workload (1 KiB JSON events when measured), the largest batch size and lz4 (the codec dumped
 * in the Kafka storage text, ../shared/seeds/004_bb62643935f5b191.txt), and says what batching and
 * compression did to messages per second, bytes per message and the cost of reading one record
 * back.
 */
import { type LabContext, type Metric, formatFigure } from '../../lab/index.js';
import { SEGMENT_BYTES } from './batching-appends.js';

type Figure = (name: string) => number | undefined;

function figuresOf(metrics: readonly Metric[]): Figure {
  const byName = new Map(metrics.map((metric) => [metric.name, metric.median]));
  return (name) => byName.get(name);
}

function listOf(ctx: LabContext, name: string): string[] {
  return ctx
    .stringParam(name)
    .split(',')
    .map((item) => item.trim());
}

function shown(value: number | undefined, unit = ''): string {
  return value === undefined ? 'not measured' : `${formatFigure(value)}${unit}`;
}

interface Choice {
  readonly body: string;
  readonly bytes: string;
  readonly batch: string;
  readonly codec: string;
}

function choiceOf(ctx: LabContext): Choice {
  const bodies = listOf(ctx, 'bodies');
  const sizes = listOf(ctx, 'messageBytes');
  const batches = listOf(ctx, 'batchSizes')
    .map(Number)
    .sort((a, b) => a - b);
  const codecs = listOf(ctx, 'codecs');
  return {
    body: bodies.includes('json') ? 'json' : (bodies[0] ?? 'json'),
    bytes: sizes.includes('1024') ? '1024' : (sizes[0] ?? '1024'),
    batch: String(batches[batches.length - 1] ?? 1),
    codec: codecs.includes('lz4') ? 'lz4' : (codecs[0] ?? 'none'),
  };
}

function appendSentence(figure: Figure, c: Choice, policy: string): string {
  const own = `batching.${c.body}.${c.bytes}.${policy}.append.none.1`;
  const kafka = `batching.${c.body}.${c.bytes}.${policy}.kafka.${c.codec}.${c.batch}`;
  return (
    `under ${policy}, loglab one record per append ${shown(figure(`${own}.msgsPerSec`))} ` +
    `msgs/s against ${shown(figure(`${kafka}.msgsPerSec`))} for ${c.codec} batches of ` +
    `${c.batch} (${shown(figure(`${kafka}.vsAppend`), '×')}), the disk writing ` +
    `${shown(figure(`${own}.deviceBytesPerMsg`), ' B')} against ` +
    `${shown(figure(`${kafka}.deviceBytesPerMsg`), ' B')} a message`
  );
}

export function headline(ctx: LabContext, metrics: readonly Metric[]): string {
  const figure = figuresOf(metrics);
  const c = choiceOf(ctx);
  const disk = ctx.environment.device.model ?? ctx.environment.device.name ?? 'this disk';
  const events = c.body === 'json' ? 'JSON events' : 'random bytes';
  const own = `batching.${c.body}.${c.bytes}.append.none.1`;
  const kafka = `batching.${c.body}.${c.bytes}.kafka.${c.codec}.${c.batch}`;
  const policies = listOf(ctx, 'policies');
  return (
    `On ${disk}, ${c.bytes}-byte ${events}: ` +
    `${policies.map((policy) => appendSentence(figure, c, policy)).join('; ')}. ` +
    `The code wrote ${shown(figure(`${own}.writtenBytesPerMsg`), ' B')} a message one record ` +
    `at a time and ${shown(figure(`${kafka}.writtenBytesPerMsg`), ' B')} in ${c.codec} batches ` +
    `(compression ${shown(figure(`${kafka}.compressionRatio`), '×')}); the price, as the ` +
    `Kafka storage text says, is the read: one record out of such a batch read ${shown(
      figure(`${kafka}.readBytesPerRead`),
      ' B',
    )} and decoded ${shown(figure(`${kafka}.recordsDecodedPerRead`))} records in ` +
    `${shown(nsToUs(figure(`${kafka}.readLatencyNs`)), ' µs')}, against ` +
    `${shown(figure(`${own}.readBytesPerRead`), ' B')} and ` +
    `${shown(nsToUs(figure(`${own}.readLatencyNs`)), ' µs')} from loglab's log.`
  );
}

function nsToUs(ns: number | undefined): number | undefined {
  return ns === undefined ? undefined : ns / 1000;
}

export function notes(ctx: LabContext): string[] {
  const rounds = ctx.numberParam('rounds');
  return [
    `Every append series ran in each of ${rounds} rounds, interleaved; a round appended for ` +
      `${ctx.numberParam('roundSeconds')} s or ${ctx.numberParam('roundMessages')} messages, ` +
      "whichever came first, and ended with a flush of its log (untimed, inside the round's " +
      "I/O accounting) so its bytes reached the disk's counters. Rounds are short because " +
      'so many series share the budget, and synced ones shorter than the 0.5 s the other ' +
      "experiments give a synced round: read the always figures as this run's, not the disk's " +
      'settled rate.',
    "loglab's log appends synchronously (one write per call; under always one fdatasync per " +
      'call, so per message for one-record appends and per batch for appendBatch); the batched ' +
      "log's appendBatch is async because its encoder is, one write and under always one " +
      'fdatasync per batch. loglab preallocates its segments under always (zeros written and ' +
      'synced 4 MiB ahead), and those bytes count in its device figures.',
    `Logs use ${SEGMENT_BYTES / 1024 / 1024} MiB segments and the 4,096-byte index interval ` +
      "(Kafka's default). Device bytes are the whole disk's, so other programs' writes during " +
      'a round count too; bytes written by the code, index size and compression come from a ' +
      `fixed ${ctx.numberParam('fixedMessages')} messages per store under none and are exact.`,
    'JSON events are generated from the seeded source: repeated field names, varied values ' +
      '(ids, users, pages, amounts, agents, times) and a note of words padding each to its ' +
      'size, so a batch compresses about as a real event topic does; random bodies do not ' +
      'compress, and show what a codec costs when it cannot help.',
    'CPU per message is process.cpuUsage (user + system, every thread) over loops of whole ' +
      'batches: encodeBatch and decodeBatch for Kafka batches, encodeRecordInto and ' +
      "checkRecord + decodeCheckedRecord for loglab's records; a first round warmed each up " +
      'and was left out.',
    'Reading one record: warm lookups of the same seeded offsets in every store. A Kafka lookup ' +
      'binary-searches the offset index, steps batch headers to the batch holding the record, ' +
      "then reads, checks and decompresses that whole batch (the Kafka storage text's trade-off); loglab's " +
      'reads from its index entry to the one record.',
    "Predictions replay each series' recorded writes and syncs of the measured rounds (not the " +
      'warm-up) against the Exos X20 and 990 PRO models (docs/models.md): messages per second ' +
      'and bytes per message; under none the model writes everything back at the flush ending ' +
      'each round. The models price the disk only, not the CPU the codecs spend.',
  ];
}
