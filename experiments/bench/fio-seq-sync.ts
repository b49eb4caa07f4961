/**
 * The disk's limit for one synced append at a time, measured by fio beside the log: fio's
 * sequential 1 KiB writes with an fdatasync after each (scripts/fio/seq-sync.fio) on a file laid
 * out beforehand, in the middle of each round of the log's appends under `always` (one producer
 * awaiting each acknowledgement), in the same directory and for the same round length. The log
 * appends in its steady state with retention, into a recycled segment file (support/steady-state.ts):
 * laid out, as fio's file is.
 *
 * fio's psync engine writes and syncs on one thread, as the log does with `syncMode: 'inline'`:
 * `append.always.inline.vsFioSeqSync` is the like-for-like ratio (issue 20: at least 1.0). With
 * the default thread-pool syncs every fdatasync costs two thread hand-offs, which fio never pays;
 * so the bench also runs the plainest Node program that syncs the same way (`writeSync` of a
 * record's bytes, then `fs.fdatasync` on the pool, awaiting each) on a laid-out file of its own,
 * and `append.always.vsNodeThreadPoolSync` is the log's default over it: what the log itself
 * costs above Node's hand-off. `append.always.vsFioSeqSync` (the default over fio) is printed beside
 * them. Where fio is missing its figures are skipped, with a note.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LabContext } from '../../lab/experiment.js';
import { metricFromSamples } from '../../lab/metric.js';
import { packageFile } from '../../lab/package-root.js';
import { type FioOutcome, fioVersion, runFioJob } from '../../lab/probes/fio.js';
import type { Metric } from '../../lab/results.js';
import { type TurnTakingDesign, oneAtATime, takeTurns } from '../../lab/runner.js';
import { Log, type LogOptions, MiB, recordSizeBytes } from '../../storage/index.js';
import { SyncedAppendLoop, layOutFile } from '../support/laid-out-file.js';
import { recycleToSteadyState } from '../support/steady-state.js';

const BODY = Buffer.alloc(1024, 0x6c);
/** What the plain Node loop writes per append: as many bytes as the log's record takes. */
const RECORD = Buffer.alloc(recordSizeBytes(BODY.length), 0x6c);
const LAID_OUT_BYTES = 64 * MiB;
const SEGMENT_BYTES = 64 * MiB;
/** The sides' turns within a round (lab/runner.ts takeTurns says why). */
const TURN_SECONDS = 0.1;

/** One program appending with an fdatasync per append, one append at a time. */
interface Side extends TurnTakingDesign {
  readonly name: 'default' | 'inline' | 'node-thread-pool';
  /** Between rounds: drops what the round wrote, where it keeps growing. */
  readonly afterRound: () => void;
  readonly close: () => Promise<void>;
  readonly rates: number[];
}

/** The log in its steady state with retention: appending into a recycled segment file. */
async function logSide(
  dir: string,
  name: 'default' | 'inline',
  options: LogOptions,
): Promise<Side> {
  const log = Log.open(path.join(dir, `log-${name}`), {
    durability: 'always',
    segmentBytes: SEGMENT_BYTES,
    ...options,
  });
  await recycleToSteadyState(log, BODY);
  return {
    name,
    rates: [],
    turn: oneAtATime(() => log.append(BODY)),
    afterRound: () => log.deleteSegmentsBelow(log.endOffset),
    close: () => log.close(),
  };
}

/**
 * Plain Node's synced append (SyncedAppendLoop) of the log's record size (1,040 bytes for a 1 KiB
 * body: the same blocks per sync). What the log costs above it is its own code, preallocation and
 * indexes, not the format's bytes (the byte ledger has those).
 */
function nodeThreadPoolSide(file: string): Side {
  const loop = new SyncedAppendLoop(file, RECORD, LAID_OUT_BYTES);
  return {
    name: 'node-thread-pool',
    rates: [],
    turn: oneAtATime(loop.append),
    afterRound: () => {},
    close: async () => loop.close(),
  };
}

/**
 * One round: the sides take turns (lab/runner.ts takeTurns) for half a round, fio runs its
 * round, and the sides take the other half: the sides' rates are centred on fio's, so a disk
 * whose rate drifts over the round moves both alike. Returns fio's outcome.
 */
async function roundAroundFio(
  sides: readonly Side[],
  seconds: number,
  roundIndex: number,
  runFio: () => FioOutcome,
): Promise<FioOutcome> {
  const halfSeconds = Math.max(TURN_SECONDS, seconds / 2);
  const before = await takeTurns(sides, halfSeconds, TURN_SECONDS, roundIndex);
  const outcome = runFio();
  const after = await takeTurns(sides, halfSeconds, TURN_SECONDS, roundIndex + 1);
  for (const side of sides) {
    const first = before.get(side.name)!;
    const second = after.get(side.name)!;
    side.rates.push((first.operations + second.operations) / (first.seconds + second.seconds));
    side.afterRound();
  }
  return outcome;
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
  const env = {
    FILE: file,
    SIZE: String(LAID_OUT_BYTES),
    RUNTIME: `${Math.round(seconds * 1000)}ms`,
  };
  const runFio = () =>
    runFioJob(packageFile('scripts', 'fio', 'seq-sync.fio'), env, seconds * 1000 + 30_000);
  try {
    sides.push(
      await logSide(dir, 'default', {}),
      await logSide(dir, 'inline', { syncMode: 'inline' }),
      nodeThreadPoolSide(path.join(dir, 'node-laid-out')),
    );
    await takeTurns(sides, TURN_SECONDS, TURN_SECONDS); // first turns, JIT
    for (let r = 0; r < rounds; r++) {
      const outcome = await roundAroundFio(sides, seconds, r, runFio);
      if (!outcome.ok) {
        ctx.note(`append.always.vsFioSeqSync skipped: ${outcome.reason}.`);
        return [];
      }
      fioRates.push(outcome.write.iops);
    }
  } finally {
    for (const side of sides) await side.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  ctx.note(
    `append.always.vsFioSeqSync: ${version}, sequential 1 KiB writes with fdatasync=1 (psync) on a ` +
      'laid-out 64 MiB file, run in the middle of each round, while the sides below take turns of ' +
      `${TURN_SECONDS} s for half a round before it and half after (one producer each); the logs ` +
      'append under always in their steady state with retention, into a recycled segment file, ' +
      "laid out as fio's is; " +
      '`.inline` is the log with syncMode inline (like for like: psync waits on its own thread). ' +
      'vsNodeThreadPoolSync: the log with its default thread-pool syncs over a plain Node loop ' +
      `(writeSync of ${RECORD.length} bytes, the log's record, then fs.fdatasync on the thread ` +
      'pool) on a laid-out file: the hand-off both pay.',
  );
  const timing = { class: 'timing', direction: 'higher', random: ctx.random } as const;
  const [byDefault, inline, nodeThreadPool] = sides as [Side, Side, Side];
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
      'thread-pool',
      `the log's synced appends per second (one producer, default thread-pool syncs) ${FIO}`,
    ),
    ratio(
      'append.always.inline.vsFioSeqSync',
      inline,
      fioRates,
      'inline',
      `the log's synced appends per second (one producer, inline syncs) ${FIO}`,
    ),
    ratio(
      'append.always.nodeThreadPool.vsFioSeqSync',
      nodeThreadPool,
      fioRates,
      'thread-pool',
      `plain Node's appends synced on the thread pool ${FIO}: what the hand-off costs`,
    ),
    ratio(
      'append.always.vsNodeThreadPoolSync',
      byDefault,
      nodeThreadPool.rates,
      'thread-pool',
      "the log's synced appends per second (default thread-pool syncs) over plain Node's " +
        'writeSync + fs.fdatasync on the thread pool',
    ),
  ];
}
