/**
 * What handing a synced append's fdatasync to another thread costs, four ways, in one process
 * (issue 43; docs/storage.md "A sync thread of the log's own"): each side writes one 1,049-byte
 * record with `fs.writeSync` into its own laid-out 64 MiB file, then waits for an fdatasync of it
 *
 * - inline: `fs.fdatasyncSync` on this thread (the floor: no hand-off);
 * - pool: `fs.fdatasync` on libuv's thread pool (what the log's default `syncMode` does);
 * - worker: a `worker_thread` of our own, woken through a SharedArrayBuffer (`Atomics.notify`),
 *   this thread waiting with `Atomics.waitAsync` (no pool, no callback);
 * - workerSpin: the same worker spinning 200 µs for the next request before it sleeps;
 * - mainSpin: the same worker, this thread spinning up to 400 µs on its answer before it waits.
 *
 * The sides take turns of 0.1 s, eight passes a round, the order reversed every other round; the
 * figure is each side's rate over the inline side's of the same round, median of the rounds.
 *
 *   npx tsx scripts/sync-handoff.ts [DIR] [--rounds N]   # DIR: on the disk to measure
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { median } from '../lab/stats.js';

const RECORD = Buffer.alloc(1049, 0x6c);
const FILE_BYTES = 64 << 20;
const TURN_SECONDS = 0.1;
const PASSES = 8;

// ctl[0]: the request's number, ctl[1]: the number done, ctl[2]: the fd, ctl[3]: 0 or -errno.
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const ctl = new Int32Array(workerData.shared);
const spinNs = BigInt(workerData.spinNs);
let seen = 0;
for (;;) {
  if (spinNs > 0n) {
    const until = process.hrtime.bigint() + spinNs;
    while (Atomics.load(ctl, 0) === seen && process.hrtime.bigint() < until);
  }
  Atomics.wait(ctl, 0, seen);
  seen = Atomics.load(ctl, 0);
  try { fs.fdatasyncSync(ctl[2]); ctl[3] = 0; } catch (e) { ctl[3] = -(e.errno ?? 1); }
  Atomics.store(ctl, 1, seen);
  Atomics.notify(ctl, 1);
}`;

type Sync = (fd: number) => Promise<void> | null;

function syncThread(workerSpinNs: number, mainSpinNs: number): { sync: Sync; stop: () => void } {
  const ctl = new Int32Array(new SharedArrayBuffer(16));
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { shared: ctl.buffer, spinNs: workerSpinNs },
  });
  let requested = 0;
  const failed = () => {
    if (ctl[3] !== 0) throw new Error(`fdatasync on the sync thread failed: errno ${-ctl[3]!}`);
  };
  const sync = (fd: number): Promise<void> | null => {
    ctl[2] = fd;
    requested++;
    Atomics.store(ctl, 0, requested);
    Atomics.notify(ctl, 0);
    if (mainSpinNs > 0) {
      const until = process.hrtime.bigint() + BigInt(mainSpinNs);
      while (Atomics.load(ctl, 1) !== requested && process.hrtime.bigint() < until);
    }
    const waited = Atomics.waitAsync(ctl, 1, requested - 1);
    if (waited.async) return waited.value.then(failed);
    failed();
    return null;
  };
  return { sync, stop: () => void worker.terminate() };
}

function layOut(file: string): number {
  const fd = fs.openSync(file, 'w+');
  const chunk = Buffer.alloc(1 << 20);
  for (let at = 0; at < FILE_BYTES; at += chunk.length)
    fs.writeSync(fd, chunk, 0, chunk.length, at);
  fs.fsyncSync(fd);
  return fd;
}

interface Side {
  readonly name: string;
  readonly sync: Sync;
  readonly fd: number;
  positionBytes: number;
}

/** One turn: appends for `seconds`; returns appends and nanoseconds. */
async function turn(side: Side, seconds: number): Promise<[number, number]> {
  const start = process.hrtime.bigint();
  const end = start + BigInt(Math.round(seconds * 1e9));
  let appends = 0;
  while (process.hrtime.bigint() < end) {
    fs.writeSync(side.fd, RECORD, 0, RECORD.length, side.positionBytes);
    side.positionBytes += RECORD.length;
    if (side.positionBytes + RECORD.length > FILE_BYTES) side.positionBytes = 0;
    const waiting = side.sync(side.fd);
    if (waiting !== null) await waiting;
    appends++;
  }
  return [appends, Number(process.hrtime.bigint() - start)];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const roundsAt = args.indexOf('--rounds');
  const rounds = roundsAt >= 0 ? Number(args[roundsAt + 1]) : 8;
  const parent = args.find((arg, i) => !arg.startsWith('--') && args[i - 1] !== '--rounds');
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds: a whole number >= 1');
  const dir = fs.mkdtempSync(path.join(parent ?? os.tmpdir(), 'sync-handoff-'));
  const threads = [syncThread(0, 0), syncThread(200_000, 0), syncThread(0, 400_000)];
  const ways: Array<[string, Sync]> = [
    [
      'inline',
      (fd) => {
        fs.fdatasyncSync(fd);
        return null;
      },
    ],
    ['pool', (fd) => new Promise((done, fail) => fs.fdatasync(fd, (e) => (e ? fail(e) : done())))],
    ['worker', threads[0]!.sync],
    ['workerSpin', threads[1]!.sync],
    ['mainSpin', threads[2]!.sync],
  ];
  try {
    const sides: Side[] = ways.map(([name, sync]) => ({
      name,
      sync,
      fd: layOut(path.join(dir, name)),
      positionBytes: 0,
    }));
    const overInline = new Map(sides.map((side) => [side.name, [] as number[]]));
    const rates = new Map(sides.map((side) => [side.name, [] as number[]]));
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 ? [...sides].reverse() : sides;
      const totals = new Map(sides.map((side) => [side.name, [0, 0]]));
      for (let pass = 0; pass < PASSES; pass++) {
        for (const side of order) {
          const [appends, ns] = await turn(side, TURN_SECONDS);
          const total = totals.get(side.name)!;
          total[0]! += appends;
          total[1]! += ns;
        }
      }
      const rateOf = (name: string) => totals.get(name)![0]! / (totals.get(name)![1]! / 1e9);
      for (const side of sides) {
        rates.get(side.name)!.push(rateOf(side.name));
        overInline.get(side.name)!.push(rateOf(side.name) / rateOf('inline'));
      }
    }
    console.log(`${rounds} rounds of ${PASSES} turns of ${TURN_SECONDS} s a side, in ${dir}`);
    for (const side of sides) {
      const rate = Math.round(median(rates.get(side.name)!)).toLocaleString('en-US');
      const ratio = median(overInline.get(side.name)!).toFixed(3);
      console.log(`${side.name.padEnd(11)} ${rate.padStart(7)} appends/s  ${ratio} of inline`);
    }
    for (const side of sides) fs.closeSync(side.fd);
  } finally {
    for (const thread of threads) thread.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
