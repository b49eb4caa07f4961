/**
 * Old and new storage code side by side, in one process, rounds interleaved (old, new, new
 * inline, old, …), so drift hits every side alike: the before/after figures an API change must
 * show (issue 17: no figure more than 5% worse).
 *
 *   git worktree add /tmp/old <rev> && ln -s "$PWD/node_modules" /tmp/old/node_modules
 *   npx tsx scripts/bench-versions.ts /tmp/old [rounds] [roundSeconds]
 *
 * The old side is driven through the API it had: `append` returned the offset (synchronous, an
 * inline fdatasync under `always`), `appendAcknowledged` waited. Each figure is the median over
 * rounds of the round's rate; the ratio is new over old, round by round, then the median.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Log as NewLog, type LogOptions } from '../storage/index.js';

interface OldLog {
  append(body: Uint8Array): number;
  appendAcknowledged(body: Uint8Array): Promise<number>;
  read(offset: number): { body: Buffer };
  deleteSegmentsBelow(offset: number): unknown;
  readonly endOffset: number;
  close(): void;
}
interface OldLogClass {
  open(dir: string, options: object): OldLog;
}

/** One side of a figure: opens its log, runs one round, reports operations per second. */
interface Side {
  readonly name: string;
  round(seconds: number): Promise<number>;
  close(): Promise<void>;
}

const BODY = Buffer.alloc(1024, 7);
const PRODUCERS = 16;

function freshDir(root: string, name: string): string {
  const dir = path.join(root, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

async function closedLoop(
  seconds: number,
  producers: number,
  op: () => Promise<unknown>,
): Promise<number> {
  const endNs = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  let ops = 0;
  const startNs = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: producers }, async () => {
      while (process.hrtime.bigint() < endNs) {
        await op();
        ops++;
      }
    }),
  );
  return ops / (Number(process.hrtime.bigint() - startNs) / 1e9);
}

function syncLoop(seconds: number, op: () => unknown): number {
  const startNs = process.hrtime.bigint();
  const endNs = startNs + BigInt(Math.round(seconds * 1e9));
  let ops = 0;
  let sink = 0;
  while (process.hrtime.bigint() < endNs) {
    for (let i = 0; i < 64; i++) sink ^= Number(op());
    ops += 64;
  }
  if (sink === 0.5) console.log(sink); // consumed, never true for integer offsets
  return ops / (Number(process.hrtime.bigint() - startNs) / 1e9);
}

function oldSide(
  Old: OldLogClass,
  root: string,
  name: string,
  options: object,
  run: (log: OldLog, seconds: number) => Promise<number>,
): Side {
  const log = Old.open(freshDir(root, `old-${name}`), options);
  return {
    name: `old ${name}`,
    round: async (seconds) => {
      const rate = await run(log, seconds);
      log.deleteSegmentsBelow(log.endOffset);
      return rate;
    },
    close: async () => log.close(),
  };
}

function newSide(
  root: string,
  name: string,
  options: LogOptions,
  run: (log: NewLog, seconds: number) => Promise<number>,
): Side {
  const log = NewLog.open(freshDir(root, `new-${name}`), options);
  return {
    name: `new ${name}`,
    round: async (seconds) => {
      const rate = await run(log, seconds);
      log.deleteSegmentsBelow(log.endOffset);
      return rate;
    },
    close: () => log.close(),
  };
}

function figures(Old: OldLogClass, root: string): Array<{ name: string; sides: Side[] }> {
  const segmentBytes = 64 * 1024 * 1024;
  return [
    {
      name: 'append none, 1 KiB, one at a time (ops/s)',
      sides: [
        oldSide(Old, root, 'none', { durability: 'none', segmentBytes }, async (log, s) =>
          syncLoop(s, () => log.append(BODY)),
        ),
        newSide(root, 'none', { durability: 'none', segmentBytes }, async (log, s) =>
          syncLoop(s, () => log.appendNoWait(BODY)),
        ),
      ],
    },
    {
      name: 'append always, 1 producer awaiting each (msgs/s)',
      sides: [
        oldSide(Old, root, 'always', { durability: 'always', segmentBytes }, (log, s) =>
          closedLoop(s, 1, () => log.appendAcknowledged(BODY)),
        ),
        newSide(root, 'always', { durability: 'always', segmentBytes }, (log, s) =>
          closedLoop(s, 1, () => log.append(BODY)),
        ),
        newSide(
          root,
          'always-inline',
          { durability: 'always', syncMode: 'inline', segmentBytes },
          (log, s) => closedLoop(s, 1, () => log.append(BODY)),
        ),
      ],
    },
    {
      name: `append group, ${PRODUCERS} producers (msgs/s)`,
      sides: [
        oldSide(Old, root, 'group', { durability: 'group', segmentBytes }, (log, s) =>
          closedLoop(s, PRODUCERS, () => log.appendAcknowledged(BODY)),
        ),
        newSide(root, 'group', { durability: 'group', segmentBytes }, (log, s) =>
          closedLoop(s, PRODUCERS, () => log.append(BODY)),
        ),
        newSide(
          root,
          'group-inline',
          { durability: 'group', syncMode: 'inline', segmentBytes },
          (log, s) => closedLoop(s, PRODUCERS, () => log.append(BODY)),
        ),
      ],
    },
    {
      name: `append always, ${PRODUCERS} producers (msgs/s)`,
      sides: [
        oldSide(Old, root, 'always16', { durability: 'always', segmentBytes }, (log, s) =>
          closedLoop(s, PRODUCERS, () => log.appendAcknowledged(BODY)),
        ),
        newSide(root, 'always16', { durability: 'always', segmentBytes }, (log, s) =>
          closedLoop(s, PRODUCERS, () => log.append(BODY)),
        ),
      ],
    },
  ];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function main(): Promise<void> {
  const [oldRoot, roundsArg, secondsArg] = process.argv.slice(2);
  if (oldRoot === undefined)
    throw new Error('usage: bench-versions.ts <old checkout> [rounds] [roundSeconds]');
  const rounds = Number(roundsArg ?? 5);
  const seconds = Number(secondsArg ?? 1);
  // Through the public face, whose path every version keeps (the files behind it moved).
  const oldEntry = pathToFileURL(path.join(oldRoot, 'storage/index.ts')).href;
  const Old = ((await import(oldEntry)) as { Log: OldLogClass }).Log;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loglab-versions-'));
  console.log(
    `old: ${oldRoot}; ${rounds} rounds of ${seconds} s, interleaved; load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  try {
    for (const figure of figures(Old, root)) {
      const rates = new Map(figure.sides.map((side) => [side.name, [] as number[]]));
      for (const side of figure.sides) await side.round(seconds / 5); // warm-up
      for (let r = 0; r < rounds; r++) {
        const order = r % 2 === 0 ? figure.sides : [...figure.sides].reverse();
        for (const side of order) rates.get(side.name)!.push(await side.round(seconds));
      }
      const old = rates.get(figure.sides[0]!.name)!;
      console.log(figure.name);
      for (const side of figure.sides) {
        const mine = rates.get(side.name)!;
        const ratio = median(mine.map((rate, i) => rate / old[i]!));
        console.log(
          `  ${side.name.padEnd(20)} ${Math.round(median(mine)).toLocaleString('en-US').padStart(10)}` +
            (side === figure.sides[0] ? '' : `   ×${ratio.toFixed(3)} of old, round by round`),
        );
      }
      for (const side of figure.sides) await side.close();
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();
