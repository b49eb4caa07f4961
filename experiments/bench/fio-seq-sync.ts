/**
 * The disk's limit for one synced append at a time, measured by fio beside the log: fio's
 * sequential 1 KiB writes with an fdatasync after each (scripts/fio/seq-sync.fio) on a file laid
 * out beforehand, interleaved round by round with the log's appends under `always` (one producer
 * awaiting each acknowledgement), in the same directory and for the same round length.
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
import { fioVersion, runFioJob } from '../../lab/probes/fio.js';
import type { Metric } from '../../lab/results.js';
import { Log, type LogOptions, MiB, recordSizeBytes } from '../../storage/index.js';
import { SyncedAppendLoop, layOutFile } from '../support/laid-out-file.js';

const BODY = Buffer.alloc(1024, 0x6c);
/** What the plain Node loop writes per append: as many bytes as the log's record takes. */
const RECORD = Buffer.alloc(recordSizeBytes(BODY.length), 0x6c);
const LAID_OUT_BYTES = 64 * MiB;
const SEGMENT_BYTES = 64 * MiB;

/** One program appending with an fdatasync per append, one append at a time. */
interface Side {
  readonly name: 'default' | 'inline' | 'node-thread-pool';
  /** Appends and waits for its sync once. */
  readonly append: () => Promise<unknown>;
  /** Between rounds: drops what the round wrote, where it keeps growing. */
  readonly afterRound: () => void;
  readonly close: () => Promise<void>;
  readonly rates: number[];
}

/** Appends for `seconds`; returns appends per second. */
async function round(side: Side, seconds: number): Promise<number> {
  const startNs = process.hrtime.bigint();
  const endNs = startNs + BigInt(Math.round(seconds * 1e9));
  let appends = 0;
  while (process.hrtime.bigint() < endNs) {
    await side.append();
    appends++;
  }
  side.afterRound();
  return appends / (Number(process.hrtime.bigint() - startNs) / 1e9);
}

function logSide(dir: string, name: 'default' | 'inline', options: LogOptions): Side {
  const log = Log.open(path.join(dir, `log-${name}`), {
    durability: 'always',
    segmentBytes: SEGMENT_BYTES,
    ...options,
  });
  return {
    name,
    rates: [],
    append: () => log.append(BODY),
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
    append: loop.append,
    afterRound: () => {},
    close: async () => loop.close(),
  };
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
  const sides = [
    logSide(dir, 'default', {}),
    logSide(dir, 'inline', { syncMode: 'inline' }),
    nodeThreadPoolSide(path.join(dir, 'node-laid-out')),
  ];
  const fioRates: number[] = [];
  const env = {
    FILE: file,
    SIZE: String(LAID_OUT_BYTES),
    RUNTIME: `${Math.round(seconds * 1000)}ms`,
  };
  try {
    for (const side of sides) await round(side, seconds / 10); // first extent, JIT
    for (let r = 0; r < rounds; r++) {
      // Alternate who goes first, so drift within a round pair hits both sides alike.
      if (r % 2 === 1) for (const side of sides) side.rates.push(await round(side, seconds));
      const outcome = runFioJob(
        packageFile('scripts', 'fio', 'seq-sync.fio'),
        env,
        seconds * 1000 + 30_000,
      );
      if (!outcome.ok) {
        ctx.note(`append.always.vsFioSeqSync skipped: ${outcome.reason}.`);
        return [];
      }
      fioRates.push(outcome.write.iops);
      if (r % 2 === 0) for (const side of sides) side.rates.push(await round(side, seconds));
    }
  } finally {
    for (const side of sides) await side.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  ctx.note(
    `append.always.vsFioSeqSync: ${version}, sequential 1 KiB writes with fdatasync=1 (psync) on a ` +
      'laid-out 64 MiB file, interleaved round by round with the log under always (one producer); ' +
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
