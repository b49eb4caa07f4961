/**
 * No write of a log ever lands outside its directory (issue 43), whatever stands under the name
 * of one of its files: a symbolic link to a file outside, to a directory outside or to nothing, a
 * hard link to a file outside, a directory, a FIFO, a unix socket, a device node. On a real
 * directory, for the log (open, recovery, an index rebuild, a torn tail cut, rolls, retention,
 * flush, close, reopen), the batched log, both queues and read-only opens: the open refuses with
 * UNSAFE_ENTRY naming the entry, or goes on without following it, and every file outside reads
 * the same afterwards, bytes and mtime, and nothing appears there.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import * as net from 'node:net';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { BatchedLog } from '../kafka/batched-log.js';
import { isStorageError, type StorageError } from '../errors.js';
import { NodeFileIO } from './node-file-io.js';
import { Log } from '../log/log.js';
import { LogQueue } from '../queue/log-queue.js';
import { writeRecoveryPoint } from '../segments/recovery-point.js';
import { segmentFileName } from '../segments/segment-files.js';
import { SlotFileQueue } from '../queue/slot-file.js';

const newDir = tempDirs('entries');

const KINDS = [
  'symlink to a file',
  'symlink to a directory',
  'dangling symlink',
  'hard link',
  'directory',
  'FIFO',
  'unix socket',
  'device node',
] as const;
type Kind = (typeof KINDS)[number];

/** Device nodes need CAP_MKNOD: where mknod is refused, that kind is skipped. */
const CAN_MKNOD = ((): boolean => {
  const probe = join(newDir(), 'null');
  try {
    execFileSync('mknod', [probe, 'c', '1', '3'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const kinds = KINDS.filter((kind) => kind !== 'device node' || CAN_MKNOD);

interface Setup {
  readonly dir: string;
  /** Holds target.bin, the file links point at; nothing in it may change. */
  readonly outside: string;
}

/** Every entry under `root`, itself included, not followed: kind, size, mtime, bytes. */
function snapshot(root: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const visit = (at: string, name: string): void => {
    const stat = lstatSync(at, { bigint: true });
    const bytes = stat.isFile() ? createHash('sha256').update(readFileSync(at)).digest('hex') : '';
    entries[name] = `${stat.mode} size ${stat.size} mtime ${stat.mtimeNs} ${bytes}`;
    if (stat.isDirectory()) for (const child of readdirSync(at)) visit(join(at, child), child);
  };
  visit(root, '.');
  return entries;
}

/**
 * Puts an entry of `kind` at `at`. A file already there becomes the outside file a link
 * reaches (moved out, or copied for a hard link); other kinds take its place. Returns a cleanup.
 */
async function place(kind: Kind, at: string, outside: string): Promise<() => void> {
  const target = join(outside, 'target.bin');
  const existing = existsSync(at);
  if (existing && kind === 'symlink to a file') renameSync(at, target);
  else if (existing && kind === 'hard link') copyFileSync(at, target);
  if (existing) rmSync(at, { force: true });
  if (!existsSync(target)) writeFileSync(target, 'outside the log: never to be written\n');
  switch (kind) {
    case 'symlink to a file':
      symlinkSync(target, at);
      break;
    case 'symlink to a directory':
      symlinkSync(outside, at);
      break;
    case 'dangling symlink':
      symlinkSync(join(outside, 'missing'), at);
      break;
    case 'hard link':
      linkSync(target, at);
      break;
    case 'directory':
      mkdirSync(at);
      break;
    case 'FIFO':
      execFileSync('mkfifo', [at]);
      break;
    case 'device node':
      execFileSync('mknod', [at, 'c', '1', '3']);
      break;
    case 'unix socket': {
      const server = net.createServer();
      await new Promise<void>((listening) => server.listen(at, listening));
      return () => server.close();
    }
  }
  return () => {};
}

/** Runs `open` and, when it opens, `use`; returns the refusal, or null when all went through. */
async function outcomeOf<T>(open: () => T, use: (opened: T) => Promise<void>): Promise<unknown> {
  let opened: T;
  try {
    opened = open();
  } catch (error) {
    return error;
  }
  await use(opened);
  return null;
}

/** An UNSAFE_ENTRY that names `file` (absolute), with what to do. */
function expectRefusalNaming(refusal: unknown, file: string): void {
  expect(isStorageError(refusal, 'UNSAFE_ENTRY'), String(refusal)).toBe(true);
  const error = refusal as StorageError;
  expect(error.context.file).toBe(resolve(file));
  expect(error.message).toMatch(/Move .* out of the directory/);
}

/**
 * Places `kind` at `name`, runs, and checks the outcome: refused, naming the entry, but where the
 * rules let a hard link be (`linkAllowed`: a file the open does not write in place, see
 * directory-entries.ts); and nothing outside changed either way.
 */
async function check(
  kind: Kind,
  setup: Setup,
  name: string,
  linkAllowed: boolean,
  run: () => Promise<unknown>,
): Promise<void> {
  const entry = join(setup.dir, name);
  const cleanup = await place(kind, entry, setup.outside);
  const before = snapshot(setup.outside);
  try {
    const refusal = await run();
    if (kind === 'hard link' && linkAllowed) expect(refusal).toBeNull();
    else expectRefusalNaming(refusal, entry);
  } finally {
    cleanup();
  }
  expect(snapshot(setup.outside)).toEqual(before);
}

const LOG_OPTIONS = { durability: 'none', segmentBytes: 1024, indexIntervalBytes: 200 } as const;
const body = (i: number): Buffer => Buffer.alloc(150, i % 251);

function writtenLog(): Setup & { bases: number[]; end: number } {
  const [dir, outside] = [newDir(), newDir()];
  const log = Log.open(dir, LOG_OPTIONS);
  for (let i = 0; i < 20; i++) log.appendNoWait(body(i));
  const bases = log.segments().map((segment) => segment.baseOffset);
  const end = log.endOffset;
  void log.close();
  return { dir, outside, bases, end };
}

/**
 * What a writable log does to its files: recovery of a torn tail, an index rebuilt, rolls,
 * retention, a flush, a close and a reopen.
 */
async function useLog(setup: Setup & { bases: number[] }): Promise<unknown> {
  // A torn tail to cut, where the tail is the log's own file (not the entry under test).
  const tail = join(setup.dir, segmentFileName(setup.bases.at(-1)!, '.log'));
  const tailStat = lstatSync(tail);
  if (tailStat.isFile() && tailStat.nlink === 1) appendFileSync(tail, Buffer.from([0, 0, 0, 40]));
  rmSync(join(setup.dir, segmentFileName(setup.bases[1]!, '.index')), { force: true });
  return outcomeOf(
    () => Log.open(setup.dir, LOG_OPTIONS),
    async (log) => {
      log.read(setup.bases[1]!);
      for (let i = 0; i < 20; i++) log.appendNoWait(body(i));
      log.deleteSegmentsBelow(log.segments()[2]!.baseOffset);
      await log.flush();
      await log.close();
      await Log.open(setup.dir, LOG_OPTIONS).close();
    },
  );
}

/** Each name of the log's files: what it is, the name, whether a hard link there is let be. */
const LOG_NAMES: readonly [string, (bases: number[], end: number) => string, boolean][] = [
  ['a sealed segment', (bases) => segmentFileName(bases[0]!, '.log'), true],
  ['a sealed index', (bases) => segmentFileName(bases[0]!, '.index'), true],
  ['a sealed time index', (bases) => segmentFileName(bases[0]!, '.timeindex'), true],
  ['the active segment', (bases) => segmentFileName(bases.at(-1)!, '.log'), false],
  ["the active segment's index", (bases) => segmentFileName(bases.at(-1)!, '.index'), false],
  ['a segment to come', (_, end) => segmentFileName(end + 7, '.timeindex'), false],
  ['the lock', () => '.lock', false],
  ['the recovery point', () => 'recovery-point', true],
  ["the recovery point's temporary file", () => 'recovery-point.tmp', false],
  ['the record limit', () => 'record-limit', true],
  ["the record limit's temporary file", () => 'record-limit.tmp', false],
  ['the spare segment', () => 'spare-segment', true],
  ['a spare being laid out', () => 'spare-segment.layout', true],
];

describe.each(kinds)('a %s under the name of a file of the log', (kind) => {
  it.each(LOG_NAMES)(
    'as %s: refused, or the log goes on, and nothing outside changes',
    async (_, nameOf, linkAllowed) => {
      const setup = writtenLog();
      const name = nameOf(setup.bases, setup.end);
      await check(kind, setup, name, linkAllowed, () => useLog(setup));
    },
  );
});

describe.each(kinds)('a %s under the name of a file of a read-only log', (kind) => {
  it.each(LOG_NAMES.slice(0, 4))(
    'as %s: refused, or read, and nothing outside changes',
    async (_, nameOf) => {
      const setup = writtenLog();
      const name = nameOf(setup.bases, setup.end);
      const read = () =>
        outcomeOf(
          () => Log.open(setup.dir, { ...LOG_OPTIONS, readOnly: true }),
          async (log) => {
            for (let offset = 0; offset < setup.end; offset++) log.read(offset);
            await log.close();
          },
        );
      const entry = join(setup.dir, name);
      const cleanup = await place(kind, entry, setup.outside);
      const before = snapshot(setup.outside);
      try {
        const refusal = await read();
        // Read-only, a hard link is harmless: nothing is written.
        if (kind === 'hard link') expect(refusal).toBeNull();
        else expectRefusalNaming(refusal, entry);
      } finally {
        cleanup();
      }
      expect(snapshot(setup.outside)).toEqual(before);
    },
  );
});

describe.each(kinds)('a %s under the name of a file of the batched log', (kind) => {
  const names: readonly [string, (bases: number[]) => string, boolean][] = [
    ['a sealed segment', (bases) => segmentFileName(bases[0]!, '.log'), true],
    ['a sealed index', (bases) => segmentFileName(bases[0]!, '.index'), true],
    ['the active segment', (bases) => segmentFileName(bases.at(-1)!, '.log'), false],
    ['the lock', () => '.lock', false],
    ['the recovery point', () => 'recovery-point', true],
    ["the recovery point's temporary file", () => 'recovery-point.tmp', false],
  ];
  it.each(names)(
    'as %s: refused, or the log goes on, and nothing outside changes',
    async (_, nameOf, linkAllowed) => {
      const [dir, outside] = [newDir(), newDir()];
      const options = { durability: 'none', segmentBytes: 1024, indexIntervalBytes: 200 } as const;
      const batch = [{ value: Buffer.alloc(150) }, { value: Buffer.alloc(150) }];
      const written = BatchedLog.open(dir, options);
      for (let i = 0; i < 8; i++) await written.appendBatch(batch);
      const bases = written.segments().map((segment) => segment.baseOffset);
      await written.close();
      const name = nameOf(bases);
      await check(kind, { dir, outside }, name, linkAllowed, () =>
        outcomeOf(
          () => BatchedLog.open(dir, options),
          async (log) => {
            for (let i = 0; i < 8; i++) await log.appendBatch(batch);
            await log.close();
            await BatchedLog.open(dir, options).close();
          },
        ),
      );
    },
  );
});

describe.each(kinds)("a %s under the name of the queues' own files", (kind) => {
  it.each(['head', 'head.tmp'])("as design B's %s: refused, or the queue goes on", async (name) => {
    const [dir, outside] = [newDir(), newDir()];
    const options = { durability: 'none', checkpointEveryDeletes: 1 } as const;
    const cycle = async (queue: LogQueue): Promise<void> => {
      for (let i = 0; i < 5; i++) await queue.send(Buffer.from(`message ${i}`));
      for (let message = queue.receive(); message !== null; message = queue.receive())
        await queue.delete(message.id);
      await queue.close();
    };
    await cycle(LogQueue.open(dir, options));
    await check(kind, { dir, outside }, name, name === 'head', () =>
      outcomeOf(() => LogQueue.open(dir, options), cycle),
    );
  });

  it.each(['slots', 'slots.tmp', 'slots.lock'])(
    "as design A's %s: refused, and nothing outside changes",
    async (name) => {
      const [dir, outside] = [newDir(), newDir()];
      const queue = SlotFileQueue.open(dir, { durability: 'none' });
      await queue.send(Buffer.from('one'));
      await queue.close();
      await check(kind, { dir, outside }, name, false, () =>
        outcomeOf(
          () => SlotFileQueue.open(dir, { durability: 'none' }),
          async (opened) => {
            await opened.send(Buffer.from('two'));
            await opened.close();
          },
        ),
      );
    },
  );
});

describe('entries left while the log runs', () => {
  it('a roll that meets a symbolic link where its new files go fences the log, writing nothing outside', async () => {
    const setup = writtenLog();
    const log = Log.open(setup.dir, LOG_OPTIONS);
    const target = join(setup.outside, 'target.bin');
    writeFileSync(target, 'outside\n');
    for (let base = log.endOffset; base < log.endOffset + 10; base++)
      symlinkSync(target, join(setup.dir, segmentFileName(base, '.index')));
    const before = snapshot(setup.outside);
    let failure: unknown = null;
    try {
      for (let i = 0; i < 20; i++) log.appendNoWait(body(i));
    } catch (error) {
      failure = error;
    }
    const refusal = isStorageError(failure, 'UNSAFE_ENTRY') ? failure : (failure as Error).cause;
    expect(isStorageError(refusal, 'UNSAFE_ENTRY'), String(failure)).toBe(true);
    await log.close().catch(() => {});
    expect(snapshot(setup.outside)).toEqual(before);
  });

  it('a flush that meets a hard link at the temporary name of its recovery point is refused', async () => {
    const setup = writtenLog();
    const log = Log.open(setup.dir, LOG_OPTIONS);
    const target = join(setup.outside, 'target.bin');
    writeFileSync(target, 'outside\n');
    linkSync(target, join(setup.dir, 'recovery-point.tmp'));
    const before = snapshot(setup.outside);
    log.appendNoWait(body(1));
    const refusal = await log.flush().then(
      () => null,
      (error: unknown) => error,
    );
    expectRefusalNaming(refusal, join(setup.dir, 'recovery-point.tmp'));
    await log.close().catch(() => {});
    expect(snapshot(setup.outside)).toEqual(before);
  });
});

describe('sealed segments with another link: read, and checked before the log writes them', () => {
  it('retention does not keep one as the spare to write over: it unlinks the name', async () => {
    const [dir, outside] = [newDir(), newDir()];
    const options = { durability: 'always', syncMode: 'inline', segmentBytes: 1024 } as const;
    const log = Log.open(dir, options);
    for (let i = 0; i < 20; i++) await log.append(body(i));
    const [first, second] = log.segments();
    const target = join(outside, 'target.bin');
    copyFileSync(first!.logPath, target);
    rmSync(first!.logPath);
    linkSync(target, first!.logPath);
    const before = snapshot(outside);
    log.deleteSegmentsBelow(second!.baseOffset);
    for (let i = 0; i < 20; i++) await log.append(body(i));
    expect(log.segmentsReused).toBe(0);
    await log.close();
    expect(snapshot(outside)).toEqual(before);
  });

  it('recovery refuses to cut one a sealing recovery point names, before writing anything', () => {
    const setup = writtenLog();
    const sealed = join(setup.dir, segmentFileName(setup.bases[1]!, '.log'));
    copyFileSync(sealed, join(setup.outside, 'target.bin'));
    rmSync(sealed);
    linkSync(join(setup.outside, 'target.bin'), sealed);
    // A roll under `none` saves its point before the sealed segment's sync has finished.
    const base = setup.bases[1]!;
    const point = { segmentBaseOffset: base, positionBytes: 0, nextOffset: base, sealing: true };
    writeRecoveryPoint(new NodeFileIO(), setup.dir, point);
    const [before, beforeDir] = [snapshot(setup.outside), snapshot(setup.dir)];
    let refusal: unknown = null;
    try {
      Log.open(setup.dir, LOG_OPTIONS);
    } catch (error) {
      refusal = error;
    }
    expectRefusalNaming(refusal, sealed);
    expect(snapshot(setup.outside)).toEqual(before);
    const after = snapshot(setup.dir);
    const changed = Object.keys(after).filter((name) => after[name] !== beforeDir[name]);
    // The writer lock's holder text and the directory's own times aside.
    expect(changed.filter((name) => name !== '.lock' && name !== '.')).toEqual([]);
  });
});

describe('entries the rules allow', () => {
  it('a log whose directory is itself a symbolic link opens, writes and reopens', async () => {
    const real = newDir();
    const link = join(newDir(), 'log');
    symlinkSync(real, link);
    const log = Log.open(link, LOG_OPTIONS);
    for (let i = 0; i < 20; i++) log.appendNoWait(body(i));
    await log.close();
    const reopened = Log.open(link, LOG_OPTIONS);
    expect(reopened.endOffset).toBe(20);
    await reopened.close();
    expect(readdirSync(real)).toContain(segmentFileName(0, '.log'));
  });

  it('the spare and a segment sharing one file, as a power cut in the roll can leave them, open', async () => {
    const setup = writtenLog();
    const active = join(setup.dir, segmentFileName(setup.bases.at(-1)!, '.log'));
    appendFileSync(active, Buffer.from([0, 0, 0, 40, 1])); // a torn tail recovery cuts
    rmSync(join(setup.dir, 'recovery-point'));
    linkSync(active, join(setup.dir, 'spare-segment'));
    const log = Log.open(setup.dir, LOG_OPTIONS);
    expect(log.recovery.truncation).not.toBeNull();
    expect(log.recovery.spareRemoved).toBe(true);
    expect(statSync(active).nlink).toBe(1);
    expect(log.endOffset).toBe(setup.end);
    await log.close();
  });

  it("files that are not the log's are left alone, whatever they are", async () => {
    const setup = writtenLog();
    const target = join(setup.outside, 'target.bin');
    writeFileSync(target, 'outside\n');
    symlinkSync(target, join(setup.dir, 'notes.txt'));
    execFileSync('mkfifo', [join(setup.dir, 'pipe')]);
    const before = snapshot(setup.outside);
    expect(await useLog(setup)).toBeNull();
    expect(lstatSync(join(setup.dir, 'pipe')).isFIFO()).toBe(true);
    expect(snapshot(setup.outside)).toEqual(before);
  });
});

describe('every open of a file (NodeFileIO), for entries left after the log opened', () => {
  const io = new NodeFileIO();
  const refusalOf = (call: () => unknown): unknown => {
    try {
      call();
    } catch (error) {
      return error;
    }
    return null;
  };

  it('follows no symbolic link, and creates nothing where a dangling one points', () => {
    const [dir, outside] = [newDir(), newDir()];
    const target = join(outside, 'target.bin');
    writeFileSync(target, 'outside\n');
    symlinkSync(target, join(dir, 'to-file'));
    symlinkSync(join(outside, 'missing'), join(dir, 'dangling'));
    const before = snapshot(outside);
    for (const name of ['to-file', 'dangling']) {
      const file = join(dir, name);
      expectRefusalNaming(
        refusalOf(() => io.open(file, { create: true })),
        file,
      );
      expectRefusalNaming(
        refusalOf(() => io.readWholeFile(file)),
        file,
      );
    }
    expect(io.inspect(join(dir, 'to-file'))).toMatchObject({ kind: 'symlink', linkTarget: target });
    expect(snapshot(outside)).toEqual(before);
  });

  it('creates or empties no file another name links; opens one it only reads or extends', () => {
    const [dir, outside] = [newDir(), newDir()];
    const target = join(outside, 'target.bin');
    writeFileSync(target, 'outside\n');
    const file = join(dir, 'linked');
    linkSync(target, file);
    expectRefusalNaming(
      refusalOf(() => io.open(file, { create: true })),
      file,
    );
    io.close(io.open(file, { create: false }));
    expect(io.readWholeFile(file)?.toString()).toBe('outside\n');
    expect(io.inspect(file)).toMatchObject({ kind: 'file', links: 2 });
  });

  it('refuses a FIFO, a socket and a directory at once, without waiting on the FIFO', async () => {
    const dir = newDir();
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    mkdirSync(join(dir, 'directory'));
    const server = net.createServer();
    await new Promise<void>((listening) => server.listen(join(dir, 'socket'), listening));
    try {
      for (const name of ['fifo', 'socket', 'directory']) {
        const file = join(dir, name);
        expectRefusalNaming(
          refusalOf(() => io.readWholeFile(file)),
          file,
        );
        expectRefusalNaming(
          refusalOf(() => io.open(file, { create: false })),
          file,
        );
      }
      expect(
        ['fifo', 'socket', 'directory'].map((name) => io.inspect(join(dir, name))?.kind),
      ).toEqual(['fifo', 'socket', 'directory']);
    } finally {
      server.close();
    }
  });

  it('fsyncs a directory reached through a symbolic link, and reads a missing file as null', () => {
    const real = newDir();
    const link = join(newDir(), 'dir');
    symlinkSync(real, link);
    io.fsyncDir(link);
    expect(io.readWholeFile(join(link, 'missing'))).toBeNull();
    expect(io.inspect(join(link, 'missing'))).toBeNull();
  });
});
