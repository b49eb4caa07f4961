/**
 * The disk's limit for one synced append at a time, measured by fio beside the log: fio's
 * sequential 1 KiB writes with an fdatasync after each (scripts/fio/seq-sync.fio) on a file laid
 * out beforehand, interleaved round by round with the log's appends under `always` (one producer
 * awaiting each acknowledgement), in the same directory and for the same round length.
 * `append.always.vsFioSeqSync` is the log's rate over fio's, round by round (issue 20: at least
 * 1.0). The log runs twice, with the default thread-pool fdatasyncs and with `syncMode: 'inline'`,
 * since fio's psync engine syncs on its own thread as inline does. Where fio is missing the figures
 * are skipped, with a note.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LabContext } from '../../lab/experiment.js';
import { metricFromSamples } from '../../lab/metric.js';
import { packageFile } from '../../lab/package-root.js';
import { fioVersion, runFioJob } from '../../lab/probes/fio.js';
import type { Metric } from '../../lab/results.js';
import { Log, type LogOptions, MiB } from '../../storage/index.js';

const BODY = Buffer.alloc(1024, 0x6c);
const LAID_OUT_BYTES = 64 * MiB;
const SEGMENT_BYTES = 64 * MiB;

interface LogSide {
  readonly name: 'default' | 'inline';
  readonly log: Log;
  readonly rates: number[];
}

/** Appends for `seconds`; returns appends per second. */
async function logRound(side: LogSide, seconds: number): Promise<number> {
  const startNs = process.hrtime.bigint();
  const endNs = startNs + BigInt(Math.round(seconds * 1e9));
  let appends = 0;
  while (process.hrtime.bigint() < endNs) {
    await side.log.append(BODY);
    appends++;
  }
  side.log.deleteSegmentsBelow(side.log.endOffset);
  return appends / (Number(process.hrtime.bigint() - startNs) / 1e9);
}

function layOut(file: string): void {
  const fd = fs.openSync(file, 'w');
  try {
    const chunk = Buffer.alloc(MiB);
    for (let at = 0; at < LAID_OUT_BYTES; at += chunk.length)
      fs.writeSync(fd, chunk, 0, chunk.length, at);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
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
  layOut(file);
  const open = (name: LogSide['name'], options: LogOptions): LogSide => ({
    name,
    rates: [],
    log: Log.open(path.join(dir, `log-${name}`), {
      durability: 'always',
      segmentBytes: SEGMENT_BYTES,
      ...options,
    }),
  });
  const sides = [open('default', {}), open('inline', { syncMode: 'inline' })];
  const fioRates: number[] = [];
  const env = {
    FILE: file,
    SIZE: String(LAID_OUT_BYTES),
    RUNTIME: `${Math.round(seconds * 1000)}ms`,
  };
  try {
    for (const side of sides) await logRound(side, seconds / 10); // first extent, JIT
    for (let round = 0; round < rounds; round++) {
      // Alternate who goes first, so drift within a round pair hits both sides alike.
      if (round % 2 === 1) for (const side of sides) side.rates.push(await logRound(side, seconds));
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
      if (round % 2 === 0) for (const side of sides) side.rates.push(await logRound(side, seconds));
    }
  } finally {
    for (const side of sides) await side.log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  ctx.note(
    `append.always.vsFioSeqSync: ${version}, sequential 1 KiB writes with fdatasync=1 (psync) on a ` +
      'laid-out 64 MiB file, interleaved round by round with the log under always (one producer); ' +
      '`.inline` is the log with syncMode inline.',
  );
  const timing = { class: 'timing', direction: 'higher', random: ctx.random } as const;
  const ratio = (side: LogSide) => side.rates.map((rate, i) => rate / (fioRates[i] ?? Number.NaN));
  const suffix = (side: LogSide) => (side.name === 'inline' ? '.inline' : '');
  return [
    metricFromSamples('append.always.fioSeqSync.ratePerSec', 'ops/s', fioRates, {
      ...timing,
      labels: { policy: 'always', tool: 'fio' },
      description:
        'fio: sequential 1 KiB writes, fdatasync after each, laid-out file, one per round',
    }),
    ...sides.map((side) =>
      metricFromSamples(`append.always${suffix(side)}.vsFioSeqSync`, 'ratio', ratio(side), {
        ...timing,
        ratio: true,
        labels: { policy: 'always', syncMode: side.name === 'inline' ? 'inline' : 'thread-pool' },
        description:
          `the log's synced appends per second (one producer${side.name === 'inline' ? ', inline syncs' : ''}) ` +
          "over fio's sequential 1 KiB writes with fdatasync, round by round",
      }),
    ),
  ];
}
