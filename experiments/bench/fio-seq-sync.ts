/**
 * The disk's limit for one synced append at a time, measured by fio beside the log: fio's
 * sequential 1 KiB writes with an fdatasync after each (scripts/fio/seq-sync.fio) on a file laid
 * out beforehand, a quarter of a second at a time between turns of the log's appends under
 * `always` (one producer awaiting each acknowledgement), in the same directory and for as long in
 * each round. The log
 * appends in its steady state with retention, into a recycled segment file (support/steady-state.ts):
 * laid out, as fio's file is.
 *
 * fio's psync engine writes and syncs on one thread, as the log does with `syncMode: 'inline'`:
 * `append.always.inline.vsFioSeqSync` is the like-for-like ratio (issue 20: at least 1.0).
 * `append.always.vsFioSeqSync` is the default's (`adaptive`: inline while the event loop's budget
 * allows, on the thread pool between). On the thread pool every fdatasync costs two thread
 * hand-offs, which fio never pays; so the bench also runs the log with `syncMode: 'thread-pool'`
 * and the plainest Node program that syncs the same way (`writeSync` of a record's bytes, then
 * `fs.fdatasync` on the pool, awaiting each) on a laid-out file of its own, and
 * `append.always.threadPool.vsNodeThreadPoolSync` is the one over the other: what the log itself
 * costs above Node's hand-off. Where fio is missing its figures are skipped, with a note.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LabContext } from '../../lab/experiment.js';
import { LoopBusy } from '../../lab/loop-busy.js';
import { metricFromSamples } from '../../lab/metric.js';
import { packageFile } from '../../lab/package-root.js';
import { type FioOutcome, fioVersion, runFioJob } from '../../lab/probes/fio.js';
import type { Metric } from '../../lab/results.js';
import { TURN_SECONDS, type TurnTakingDesign, oneAtATime, takeTurns } from '../../lab/runner.js';
import { Log, type LogOptions, MiB, recordSizeBytes } from '../../storage/index.js';
import { SyncedAppendLoop, layOutFile } from '../support/laid-out-file.js';
import { wroteDirectly } from '../support/direct-writes.js';
import { dropSealedSegments } from '../support/settled-retention.js';
import { recycleToSteadyState } from '../support/steady-state.js';

const BODY = Buffer.alloc(1024, 0x6c);
/** What the plain Node loop writes per append: as many bytes as the log's record takes. */
const RECORD = Buffer.alloc(recordSizeBytes(BODY.length), 0x6c);
const LAID_OUT_BYTES = 64 * MiB;
const SEGMENT_BYTES = 64 * MiB;
/**
 * fio runs this long at a time, the sides' turns between its runs: a process of its own, fio
 * takes 0.3-0.4 s to start, so it cannot take turns of 0.1 s as the sides do.
 */
const FIO_SLICE_SECONDS = 0.25;

type LogSideName = 'default' | 'thread-pool' | 'inline' | 'direct';

/** One program appending with an fdatasync per append, one append at a time. */
interface Side extends TurnTakingDesign {
  readonly name: LogSideName | 'node-thread-pool';
  /** The log a log's side appends to: whether its direct writes were taken. */
  readonly log?: Log;
  /** Starts timing the event loop's busy time afresh. */
  readonly beginRound: () => void;
  /** Records the round's rate and the loop's busy time per append, then drops what it wrote. */
  readonly endRound: (operations: number, seconds: number) => Promise<void>;
  readonly close: () => Promise<void>;
  readonly rates: number[];
  /** The event loop's busy time per append, round by round (lab/loop-busy.ts). */
  readonly loopNsPerAppend: number[];
}

/**
 * A side whose turns run `append` one at a time and time the event loop's busy time over them:
 * what its appends cost the CPU, apart from how fast the disk went. `afterRound` drops what a
 * round wrote, where it keeps growing.
 */
function sideOf(
  name: Side['name'],
  append: () => Promise<unknown>,
  afterRound: () => Promise<void>,
  close: () => Promise<void>,
  log?: Log,
): Side {
  const turn = oneAtATime(append);
  let busy = new LoopBusy();
  const side: Side = {
    name,
    ...(log === undefined ? {} : { log }),
    rates: [],
    loopNsPerAppend: [],
    turn: (seconds) => busy.over(() => turn(seconds)),
    beginRound: () => {
      busy = new LoopBusy();
    },
    endRound: async (operations, seconds) => {
      side.rates.push(operations / seconds);
      side.loopNsPerAppend.push(busy.nsPerOperation(operations));
      await afterRound();
    },
    close,
  };
  return side;
}

/** The log in its steady state with retention: appending into a recycled segment file. */
async function logSide(dir: string, name: LogSideName, options: LogOptions): Promise<Side> {
  const log = Log.open(path.join(dir, `log-${name}`), {
    durability: 'always',
    segmentBytes: SEGMENT_BYTES,
    ...options,
  });
  await recycleToSteadyState(log, BODY);
  return sideOf(
    name,
    () => log.append(BODY),
    () => dropSealedSegments(log),
    () => log.close(),
    log,
  );
}

/**
 * Plain Node's synced append (SyncedAppendLoop) of the log's record size (1,040 bytes for a 1 KiB
 * body: the same blocks per sync). What the log costs above it is its own code, preallocation and
 * indexes, not the format's bytes (the byte ledger has those).
 */
function nodeThreadPoolSide(file: string): Side {
  const loop = new SyncedAppendLoop(file, RECORD, LAID_OUT_BYTES);
  return sideOf(
    'node-thread-pool',
    loop.append,
    async () => {},
    async () => loop.close(),
  );
}

/**
 * One round in slices: fio runs a slice at a time (FIO_SLICE_SECONDS), and the sides take turns
 * (lab/runner.ts takeTurns) between fio's slices, half a slice before the first and after the
 * last, so each side runs as long as fio does and a disk whose rate moves within the round moves
 * both alike. Records each side's rate; returns fio's over its slices, or why fio failed.
 */
async function roundBesideFio(
  sides: readonly Side[],
  seconds: number,
  roundIndex: number,
  runFio: (sliceSeconds: number) => FioOutcome,
): Promise<{ ok: true; iops: number } | { ok: false; reason: string }> {
  const slices = Math.max(1, Math.round(seconds / FIO_SLICE_SECONDS));
  const sliceSeconds = seconds / slices;
  const totals = new Map<string, { operations: number; seconds: number }>(
    sides.map((side) => [side.name, { operations: 0, seconds: 0 }]),
  );
  const sidesTakeTurns = async (turnsSeconds: number, k: number) => {
    const turns = await takeTurns(sides, turnsSeconds, TURN_SECONDS, roundIndex + k);
    for (const [name, done] of turns) {
      const total = totals.get(name)!;
      total.operations += done.operations;
      total.seconds += done.seconds;
    }
  };
  let ios = 0;
  let runtimeMs = 0;
  for (const side of sides) side.beginRound();
  await sidesTakeTurns(sliceSeconds / 2, 0);
  for (let k = 0; k < slices; k++) {
    const outcome = runFio(sliceSeconds);
    if (!outcome.ok) return outcome;
    ios += outcome.write.ios;
    runtimeMs += outcome.write.runtimeMs;
    await sidesTakeTurns(k === slices - 1 ? sliceSeconds / 2 : sliceSeconds, k + 1);
  }
  for (const side of sides) {
    const total = totals.get(side.name)!;
    await side.endRound(total.operations, total.seconds);
  }
  return { ok: true, iops: ios / (runtimeMs / 1000) };
}

export async function fioSeqSyncMetrics(
  ctx: LabContext,
  rounds: number,
  seconds: number,
): Promise<Metric[]> {
  const version = fioVersion();
  if (version === null) {
    ctx.note(
      'append.always.vsFioSeqSync skipped: fio is not installed (scripts/setup-debian.sh installs it).',
    );
    return [];
  }
  const dir = path.join(ctx.dir, 'fio-seq-sync');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'laid-out');
  layOutFile(file, LAID_OUT_BYTES);
  const sides: Side[] = [];
  const fioRates: number[] = [];
  const runFio = (sliceSeconds: number) =>
    runFioJob(
      packageFile('scripts', 'fio', 'seq-sync.fio'),
      { FILE: file, SIZE: String(LAID_OUT_BYTES), RUNTIME: `${Math.round(sliceSeconds * 1000)}ms` },
      sliceSeconds * 1000 + 30_000,
    );
  try {
    sides.push(
      await logSide(dir, 'default', {}),
      await logSide(dir, 'thread-pool', { syncMode: 'thread-pool' }),
      await logSide(dir, 'inline', { syncMode: 'inline' }),
      await logSide(dir, 'direct', { syncMode: 'inline', directWrites: true }),
      nodeThreadPoolSide(path.join(dir, 'node-laid-out')),
    );
    await takeTurns(sides, TURN_SECONDS, TURN_SECONDS); // first turns, JIT
    for (let r = 0; r < rounds; r++) {
      const outcome = await roundBesideFio(sides, seconds, r, runFio);
      if (!outcome.ok) {
        ctx.note(`append.always.vsFioSeqSync skipped: ${outcome.reason}.`);
        return [];
      }
      fioRates.push(outcome.iops);
    }
  } finally {
    for (const side of sides) await side.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  ctx.note(
    `append.always.vsFioSeqSync: ${version}, sequential 1 KiB writes with fdatasync=1 (psync) on a ` +
      `laid-out 64 MiB file, run ${FIO_SLICE_SECONDS} s at a time, the sides below taking turns of ` +
      `${TURN_SECONDS} s between fio's runs for as long as fio ran (one producer each); the logs ` +
      'append under always in their steady state with retention, into a recycled segment file, ' +
      "laid out as fio's is; " +
      'no suffix: the default syncMode (adaptive); `.threadPool`: syncMode thread-pool; ' +
      '`.inline` is the log with syncMode inline (like for like: psync waits on its own thread); ' +
      '`.direct.inline` the same with directWrites (storage/io/direct-write.ts: 512-byte blocks ' +
      'through O_DIRECT, where fio writes through the page cache). ' +
      'vsInline: the default over `.inline`, round by round (no fio in it: what holding the ' +
      'event loop to its budget costs the default, beside the same log syncing inline). ' +
      'threadPool.vsNodeThreadPoolSync: the log with thread-pool syncs over a plain Node loop ' +
      `(writeSync of ${RECORD.length} bytes, the log's record, then fs.fdatasync on the thread ` +
      "pool) on a laid-out file: the hand-off both pay. loopNsPerAppend: the event loop's busy " +
      "time per append over the same turns (perf_hooks eventLoopUtilization), the log's and the " +
      "plain loop's; aboveNodeThreadPoolSync is their difference, the log's own CPU per append.",
  );
  const timing = { class: 'timing', direction: 'higher', random: ctx.random } as const;
  const [byDefault, threadPool, inline, direct, nodeThreadPool] = sides as [
    Side,
    Side,
    Side,
    Side,
    Side,
  ];
  const over = (side: Side, base: readonly number[]) =>
    side.rates.map((rate, i) => rate / (base[i] ?? Number.NaN));
  const ratio = (
    name: string,
    side: Side,
    base: readonly number[],
    syncMode: string,
    description: string,
  ) =>
    metricFromSamples(name, 'ratio', over(side, base), {
      ...timing,
      ratio: true,
      labels: { policy: 'always', syncMode },
      description: `${description}, round by round`,
    });
  const FIO = "over fio's sequential 1 KiB writes with fdatasync";
  return [
    metricFromSamples('append.always.fioSeqSync.ratePerSec', 'ops/s', fioRates, {
      ...timing,
      labels: { policy: 'always', tool: 'fio' },
      description:
        'fio: sequential 1 KiB writes, fdatasync after each, laid-out file, one per round',
    }),
    metricFromSamples(
      'append.always.nodeThreadPoolSync.ratePerSec',
      'ops/s',
      nodeThreadPool.rates,
      {
        ...timing,
        labels: { policy: 'always', tool: 'node:fs' },
        description:
          `plain Node: writeSync of ${RECORD.length} bytes (the log's record), then fs.fdatasync ` +
          'on the thread pool, awaited, laid-out file',
      },
    ),
    ratio(
      'append.always.vsFioSeqSync',
      byDefault,
      fioRates,
      'adaptive',
      `the log's synced appends per second (one producer, the default adaptive syncs) ${FIO}`,
    ),
    ratio(
      'append.always.vsInline',
      byDefault,
      inline.rates,
      'adaptive',
      "the log's synced appends per second with the default adaptive syncs over the same log's " +
        'with inline syncs (one producer): what holding the event loop to its budget costs',
    ),
    ratio(
      'append.always.threadPool.vsFioSeqSync',
      threadPool,
      fioRates,
      'thread-pool',
      `the log's synced appends per second (one producer, thread-pool syncs) ${FIO}`,
    ),
    ratio(
      'append.always.inline.vsFioSeqSync',
      inline,
      fioRates,
      'inline',
      `the log's synced appends per second (one producer, inline syncs) ${FIO}`,
    ),
    ...(wroteDirectly(ctx, direct.log!, 'append.always.direct.inline.vsFioSeqSync')
      ? [
          ratio(
            'append.always.direct.inline.vsFioSeqSync',
            direct,
            fioRates,
            'inline',
            `the log's synced appends per second (one producer, inline syncs, direct writes) ${FIO}`,
          ),
        ]
      : []),
    ratio(
      'append.always.nodeThreadPool.vsFioSeqSync',
      nodeThreadPool,
      fioRates,
      'thread-pool',
      `plain Node's appends synced on the thread pool ${FIO}: what the hand-off costs`,
    ),
    ratio(
      'append.always.threadPool.vsNodeThreadPoolSync',
      threadPool,
      nodeThreadPool.rates,
      'thread-pool',
      "the log's synced appends per second (thread-pool syncs) over plain Node's " +
        'writeSync + fs.fdatasync on the thread pool',
    ),
    ...loopTimeMetrics(ctx, threadPool, nodeThreadPool),
  ];
}

/**
 * What the log's synced append costs the event loop above plain Node's, both syncing on the
 * thread pool, from the same turns as their rates: the part of vsNodeThreadPoolSync that is the
 * log's own CPU time. It leaves out the wait for the disk, whose speed moves the rates from turn
 * to turn; a host taking the vCPU away mid-call still adds to it.
 */
function loopTimeMetrics(ctx: LabContext, log: Side, node: Side): Metric[] {
  const timing = { class: 'timing', direction: 'lower', random: ctx.random } as const;
  const labels = { policy: 'always', syncMode: 'thread-pool' };
  const perAppend = (name: string, values: readonly number[], tool: string, what: string) =>
    metricFromSamples(name, 'ns', values, {
      ...timing,
      labels: { ...labels, tool },
      description: `the event loop's busy time (perf_hooks eventLoopUtilization) per synced append of ${what}, round by round: JavaScript and synchronous calls (the write, handing the fdatasync to the pool), not the wait for the disk`,
    });
  return [
    perAppend('append.always.threadPool.loopNsPerAppend', log.loopNsPerAppend, 'loglab', 'the log'),
    perAppend(
      'append.always.nodeThreadPoolSync.loopNsPerAppend',
      node.loopNsPerAppend,
      'node:fs',
      'the plain Node loop',
    ),
    metricFromSamples(
      'append.always.threadPool.aboveNodeThreadPoolSync.loopNsPerAppend',
      'ns',
      log.loopNsPerAppend.map((ns, i) => ns - (node.loopNsPerAppend[i] ?? Number.NaN)),
      {
        ...timing,
        labels,
        description:
          "the log's event-loop busy time per synced append less the plain Node loop's, round by round: what the log's own code costs each append on this machine",
      },
    ),
  ];
}
