/**
 * `loglab bench retention`: how long retention holds the event loop when it removes segments.
 *
 * Each round fills a log under `none` and one under `always` with a few segments, then times, in
 * turns, each log's `deleteSegmentsBelow` removing all but the last, and a plain node:fs loop
 * that closes and unlinks as many files of the same size: what removing them costs a program
 * whose event loop frees the blocks itself, as the log did before it closed removed files on the
 * thread pool (docs/storage.md, retention). The figure is the event loop's time in the call; the
 * files' closes go on afterwards, off the loop, and each log's removal is settled (closes done,
 * directory fsynced) before the next side's turn.
 *
 * The files were just written, so their pages are still in the page cache and every removal
 * drops them: the most a removal costs. A log whose retention keeps data for longer than the
 * cache holds it removes files whose pages are long gone.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Experiment, LabContext } from '../../lab/experiment.js';
import { metricFromSamples } from '../../lab/metric.js';
import type { Metric } from '../../lab/results.js';
import { type DurabilityPolicy, Log, MiB } from '../../storage/index.js';
import { zeroFill } from '../support/laid-out-file.js';
import { settleRemovals } from '../support/settled-retention.js';
import { BENCH_RETENTION_METRICS } from '../metrics/bench-retention.js';

const PREFIX = 'retention';
const RECORD_BODY_BYTES = 1024;
/** Records per appendBatch: about 1 MiB, one write (and under always one fdatasync) each. */
const BATCH_RECORDS = 1000;
const POLICIES = ['none', 'always'] as const;
const PLAIN = 'plainUnlink';

interface Side {
  readonly name: string;
  readonly heldNs: number[];
}

/** A log of `segments` + 1 segments, the last one begun; returns it open. */
async function filledLog(
  dir: string,
  durability: DurabilityPolicy,
  segmentBytes: number,
  segments: number,
) {
  const log = Log.open(dir, { durability, segmentBytes });
  const batch = Array.from({ length: BATCH_RECORDS }, () => Buffer.alloc(RECORD_BODY_BYTES, 0x61));
  while (log.segments().length <= segments) await log.appendBatch(batch);
  return log;
}

/** Times the removal of every segment but the last: the event loop's time in the call. */
function timeRetention(log: Log, segments: number): number {
  const below = log.segments()[segments]!.baseOffset;
  const start = process.hrtime.bigint();
  const removed = log.deleteSegmentsBelow(below);
  const heldNs = Number(process.hrtime.bigint() - start);
  if (removed.segments !== segments)
    throw new Error(`retention removed ${removed.segments} segments, expected ${segments}`);
  return heldNs;
}

/** `count` files of `sizeBytes`, written and synced, then closed and unlinked on the loop. */
function timePlainUnlink(dir: string, count: number, sizeBytes: number): number {
  const files = Array.from({ length: count }, (_, i) => path.join(dir, `plain-${i}.log`));
  const fds = files.map((file) => {
    const fd = fs.openSync(file, 'w+');
    zeroFill(fd, sizeBytes);
    return fd;
  });
  const start = process.hrtime.bigint();
  files.forEach((file, i) => {
    fs.closeSync(fds[i]!);
    fs.unlinkSync(file);
  });
  return Number(process.hrtime.bigint() - start);
}

async function round(
  ctx: LabContext,
  sides: Side[],
  roundIndex: number,
  segmentBytes: number,
  segments: number,
) {
  const dir = path.join(ctx.dir, `retention-${roundIndex}`);
  fs.mkdirSync(dir);
  try {
    const logs = new Map<string, Log>();
    for (const policy of POLICIES)
      logs.set(policy, await filledLog(path.join(dir, policy), policy, segmentBytes, segments));
    // Each segment's file holds whole records up to the segment size: the plain files match it.
    const sizeBytes = logs.get('none')!.segments()[0]!.sizeBytes;
    // Taking turns in a different order each round: no side always follows the same one.
    const order = roundIndex % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      const log = logs.get(side.name);
      if (log === undefined) side.heldNs.push(timePlainUnlink(dir, segments, sizeBytes));
      else {
        side.heldNs.push(timeRetention(log, segments));
        // Its freeing, on the thread pool, must not land in the next side's timed call.
        await settleRemovals(log);
      }
    }
    for (const log of logs.values()) await log.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function sideMetrics(
  ctx: LabContext,
  sides: readonly Side[],
  segments: number,
  segmentBytes: number,
): Metric[] {
  const plain = sides.find((side) => side.name === PLAIN)!;
  const labels = { segments, segmentBytes };
  const held = sides.map((side) =>
    metricFromSamples(`${PREFIX}.${side.name}.loopHeldNs`, 'ns', side.heldNs, {
      class: 'timing',
      direction: 'lower',
      random: ctx.random,
      labels: { ...labels, side: side.name },
      description:
        side.name === PLAIN
          ? `closing and unlinking ${segments} files of a segment's size with node:fs on the event loop`
          : `the event loop's time in deleteSegmentsBelow removing ${segments} segments of a log under ${side.name}`,
    }),
  );
  const ratios = sides
    .filter((side) => side !== plain)
    .map((side) =>
      metricFromSamples(
        `${PREFIX}.${side.name}.vsPlainUnlink`,
        'ratio',
        side.heldNs.map((ns, i) => ns / plain.heldNs[i]!),
        {
          class: 'timing',
          direction: 'lower',
          ratio: true,
          random: ctx.random,
          labels: { ...labels, policy: side.name },
          description: `the log's event-loop time removing segments over the plain close + unlink of as many files, round by round`,
        },
      ),
    );
  return [...held, ...ratios];
}

export const retentionBench: Experiment = {
  id: 'bench-retention',
  question: 'how long does retention hold the event loop when it removes segments?',
  params: {
    rounds: { quick: 3, full: 7 },
    segments: { quick: 2, full: 3 },
    segmentBytes: { quick: 4 * MiB, full: 64 * MiB },
  },
  seed: 2029,
  metrics: BENCH_RETENTION_METRICS,
  run: async (ctx) => {
    const rounds = ctx.numberParam('rounds');
    const segments = ctx.numberParam('segments');
    const segmentBytes = ctx.numberParam('segmentBytes');
    const sides: Side[] = [...POLICIES, PLAIN].map((name) => ({ name, heldNs: [] }));
    for (let i = 0; i < rounds; i++) {
      ctx.progress.phase(`retention: round ${i + 1}/${rounds}`);
      await round(ctx, sides, i, segmentBytes, segments);
    }
    return ctx.results({
      metrics: sideMetrics(ctx, sides, segments, segmentBytes),
      notes: [
        `Each round: a log under none and one under always, each filled with ${segments} ` +
          `segments of ${segmentBytes} bytes (1,024-byte bodies in batches of ${BATCH_RECORDS}) ` +
          'and a new one begun; then, in turns (the order reversed every other round), each ' +
          `log's deleteSegmentsBelow removing those ${segments}, and ${segments} plain files of ` +
          'the same size, written and synced, closed and unlinked with node:fs.',
        "The files' pages are still cached: each removal drops them, the most a removal costs. " +
          'The log closes removed files on the thread pool after their names are gone; that work, ' +
          'freeing the blocks, goes on after the timed call and is settled (closes awaited, ' +
          "directory fsynced) before the next side's turn.",
      ],
    });
  },
};
