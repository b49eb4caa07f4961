/**
 * One writer per log: the lock on a simulated disk, on the real one in this process, and between
 * real processes (two racing for it; one killed with SIGKILL while holding it).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import type { LockAttempt } from '../../test/fixtures/writer-lock-child.js';
import { isStorageError } from '../errors.js';
import { NodeFileIO } from './node-file-io.js';
import { loadNativeLocks } from './native-locks.js';
import { SimDisk } from '../sim/sim-disk.js';
import {
  acquireWriterLock,
  describeThisProcess,
  LOG_LOCK_FILE,
  lockPathForLog,
  lockPathForSlotFile,
} from './writer-lock.js';
import { errorOf } from '../../test/fixtures/storage-error.js';

const CHILD = fileURLToPath(new URL('../../test/fixtures/writer-lock-child.ts', import.meta.url));
const newDir = tempDirs('writer-lock');
const LOCK = '/data/q/.lock';
/** What describeThisProcess writes, whatever second it is now. */
const THIS_PROCESS = new RegExp(
  `^pid ${process.pid} on host ${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} since ` +
    '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$',
);

function diskWithDataDir(seed = 1): SimDisk {
  const disk = new SimDisk({ seed });
  disk.mkdirp('/data/q');
  disk.syncAll();
  return disk;
}

describe('lockExclusive on SimDisk', () => {
  it('refuses a second lock on the same file until the first is released', () => {
    const disk = diskWithDataDir();
    const first = disk.lockExclusive(LOCK);
    expect(first).not.toBeNull();
    expect(disk.lockExclusive(LOCK)).toBeNull();
    expect(disk.openHandles).toBe(1);
    first!.release();
    first!.release();
    expect(disk.heldLocks).toBe(0);
    expect(disk.openHandles).toBe(0);
    const again = disk.lockExclusive(LOCK);
    expect(again).not.toBeNull();
    again!.release();
  });

  it('holds no lock on the disk a power cut returns: the holder died', () => {
    const disk = diskWithDataDir();
    expect(disk.lockExclusive(LOCK)).not.toBeNull();
    disk.fsyncDir('/data/q');
    const after = disk.crash();
    expect(after.heldLocks).toBe(0);
    const lock = after.lockExclusive(LOCK);
    expect(lock).not.toBeNull();
    lock!.release();
  });

  it('creates the lock file like any file: pending until its directory is fsynced', () => {
    const disk = diskWithDataDir();
    disk.lockExclusive(LOCK)!.release();
    expect(disk.exists(LOCK)).toBe(true);
    expect(disk.pendingDirOps()).toEqual([{ kind: 'create', path: LOCK }]);
  });

  it('fails like open when the open fails, leaving nothing locked or open', () => {
    const disk = diskWithDataDir();
    disk.injectFault({ kind: 'error', call: 'open', nth: 1, errno: 'EMFILE' });
    expect(errorOf(() => disk.lockExclusive(LOCK))).toMatchObject({
      code: 'IO_ERROR',
      context: { reason: 'EMFILE' },
    });
    expect(disk.heldLocks).toBe(0);
    expect(disk.openHandles).toBe(0);
  });
});

describe('acquireWriterLock', () => {
  it('names the locked thing, its holder and what to do when refused', () => {
    const disk = diskWithDataDir();
    const lock = acquireWriterLock(disk, LOCK, 'the log in /data/q');
    const error = errorOf(() => acquireWriterLock(disk, LOCK, 'the log in /data/q'));
    expect(error.code).toBe('LOG_LOCKED');
    expect(error.context.file).toBe(LOCK);
    expect(error.context.holder).toMatch(THIS_PROCESS);
    expect(error.message).toContain('cannot open the log in /data/q for writing');
    expect(error.message).toContain(`pid ${process.pid} on host ${hostname()}`);
    expect(error.message).toContain('close the other writer first');
    expect(error.message).toContain('`loglab read`, `loglab dump`) need no lock');
    expect(disk.openHandles).toBe(1);
    lock.release();
    lock.release();
    expect(disk.heldLocks).toBe(0);
  });

  it('records who holds it, as pid, host and start time', () => {
    const disk = diskWithDataDir();
    const lock = acquireWriterLock(disk, LOCK, 'the log in /data/q');
    expect(disk.readWholeFile(LOCK)!.toString('utf8')).toMatch(THIS_PROCESS);
    expect(describeThisProcess()).toMatch(THIS_PROCESS);
    lock.release();
  });

  it('is not blocked by the text a dead holder left, which it replaces', () => {
    const disk = diskWithDataDir();
    const handle = disk.open(LOCK, { create: true });
    const stale = Buffer.from('pid 999999 on host gone since 2001-01-01T00:00:00Z and more');
    disk.write(handle, stale, 0, stale.length, 0);
    disk.close(handle);
    const lock = acquireWriterLock(disk, LOCK, 'the log in /data/q');
    expect(disk.readWholeFile(LOCK)!.toString('utf8')).toMatch(THIS_PROCESS);
    lock.release();
  });

  it('says the holder is unknown when the lock file names nobody; cleans what it quotes', () => {
    const disk = diskWithDataDir();
    const silent = disk.lockExclusive(LOCK)!;
    const unknown = errorOf(() => acquireWriterLock(disk, LOCK, 'the log in /data/q'));
    expect(unknown.code).toBe('LOG_LOCKED');
    expect(unknown.context.holder).toBeUndefined();
    expect(unknown.message).toContain('the holder did not say who it is');
    silent.writeHolder(`  someone\n\u0007else ${'x'.repeat(500)}`);
    const named = errorOf(() => acquireWriterLock(disk, LOCK, 'the log in /data/q'));
    expect(named.context.holder).toBe(`someone else ${'x'.repeat(200 - 'someone else '.length)}`);
    silent.release();
  });

  it('releases the lock when recording the holder fails', () => {
    const disk = diskWithDataDir();
    disk.injectFault({ kind: 'error', call: 'write', nth: 1, errno: 'ENOSPC', file: LOCK });
    expect(errorOf(() => acquireWriterLock(disk, LOCK, 'the log in /data/q')).code).toBe(
      'IO_ERROR',
    );
    expect(disk.heldLocks).toBe(0);
    expect(disk.openHandles).toBe(0);
  });

  it("puts a log's lock in the directory as .lock and a slot file's beside it", () => {
    expect(LOG_LOCK_FILE).toBe('.lock');
    expect(lockPathForLog('/data/q')).toBe('/data/q/.lock');
    expect(lockPathForSlotFile('/data/slots')).toBe('/data/slots.lock');
  });
});

describe('lockExclusive on NodeFileIO', () => {
  it('refuses a second lock in the same process and lets a released one be taken again', () => {
    const lockPath = join(newDir(), LOG_LOCK_FILE);
    const io = new NodeFileIO();
    const first = io.lockExclusive(lockPath);
    expect(first).not.toBeNull();
    expect(io.lockExclusive(lockPath)).toBeNull();
    expect(new NodeFileIO().lockExclusive(lockPath)).toBeNull();
    first!.release();
    first!.release();
    const again = new NodeFileIO().lockExclusive(lockPath);
    expect(again).not.toBeNull();
    again!.release();
  });

  it('writes the holder into the lock file and names it to a refused opener', () => {
    const dir = newDir();
    const io = new NodeFileIO();
    const lock = acquireWriterLock(io, lockPathForLog(dir), `the log in ${dir}`);
    expect(readFileSync(lockPathForLog(dir), 'utf8')).toMatch(THIS_PROCESS);
    const error = errorOf(() => acquireWriterLock(io, lockPathForLog(dir), `the log in ${dir}`));
    expect(error).toMatchObject({ code: 'LOG_LOCKED', context: { file: lockPathForLog(dir) } });
    expect(error.context.holder).toContain(`pid ${process.pid} on host ${hostname()}`);
    lock.release();
  });

  it('fails with LOCK_UNAVAILABLE, saying why, when the native addon cannot load', () => {
    const error = errorOf(() =>
      loadNativeLocks(() => {
        throw new Error('No native build was found for platform=plan9');
      }),
    );
    expect(error.code).toBe('LOCK_UNAVAILABLE');
    expect(error.message).toContain('No native build was found for platform=plan9');
    expect(error.message).toContain('reinstall the dependencies');
  });
});

/** A child process (test/fixtures/writer-lock-child.ts) that takes the lock when told to. */
class LockChild {
  readonly #child: ChildProcessByStdio<Writable, Readable, null>;
  readonly #lines: AsyncIterator<string>;
  readonly #exited: Promise<number | null>;

  constructor(dir: string) {
    this.#child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.#lines = createInterface({ input: this.#child.stdout })[Symbol.asyncIterator]();
    this.#exited = new Promise((resolve) => this.#child.on('exit', (code) => resolve(code)));
  }

  get pid(): number {
    return this.#child.pid!;
  }

  async ready(): Promise<void> {
    expect(await this.#nextLine()).toBe('ready');
  }

  /** Tells the child to try now; `outcome` reads what it got. */
  go(): void {
    this.#child.stdin.write('go\n');
  }

  async outcome(): Promise<LockAttempt> {
    return JSON.parse(await this.#nextLine()) as LockAttempt;
  }

  /** Ends its input: it releases what it holds and exits; resolves to its exit code. */
  finish(): Promise<number | null> {
    this.#child.stdin.end();
    return this.#exited;
  }

  kill(): Promise<number | null> {
    this.#child.kill('SIGKILL');
    return this.#exited;
  }

  async #nextLine(): Promise<string> {
    const next = await this.#lines.next();
    if (next.done === true) throw new Error(`child ${this.pid} ended its output early`);
    return next.value;
  }
}

describe('the writer lock between processes', () => {
  const children: LockChild[] = [];
  const startChild = (dir: string): LockChild => {
    const child = new LockChild(dir);
    children.push(child);
    return child;
  };
  afterEach(async () => {
    await Promise.all(children.splice(0).map((child) => child.kill()));
  });

  it('lets exactly one of two racing processes take it; the other learns its pid', async () => {
    const dir = newDir();
    const racers = [startChild(dir), startChild(dir)];
    await Promise.all(racers.map((child) => child.ready()));
    for (const child of racers) child.go();
    const outcomes = await Promise.all(racers.map((child) => child.outcome()));
    const winners = outcomes.filter((outcome) => outcome.locked);
    const losers = outcomes.filter((outcome) => !outcome.locked);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(1);
    expect(losers[0]!.code).toBe('LOG_LOCKED');
    expect(losers[0]!.holder).toMatch(new RegExp(`^pid ${winners[0]!.pid} on host `));
    // The parent is refused too while the winner holds it.
    const refused = errorOf(() => acquireWriterLock(new NodeFileIO(), lockPathForLog(dir), 'x'));
    expect(refused.context.holder).toContain(`pid ${winners[0]!.pid} `);
    expect(await Promise.all(racers.map((child) => child.finish()))).toEqual([0, 0]);
    acquireWriterLock(new NodeFileIO(), lockPathForLog(dir), `the log in ${dir}`).release();
  });

  it('is not kept by a holder killed with SIGKILL', async () => {
    const dir = newDir();
    const holder = startChild(dir);
    await holder.ready();
    holder.go();
    expect(await holder.outcome()).toEqual({ locked: true, pid: holder.pid });
    const io = new NodeFileIO();
    const refused = errorOf(() => acquireWriterLock(io, lockPathForLog(dir), `the log in ${dir}`));
    expect(isStorageError(refused, 'LOG_LOCKED')).toBe(true);
    expect(refused.context.holder).toContain(`pid ${holder.pid} `);
    await holder.kill();
    // Its text is still there, stale; the lock went with the process.
    expect(readFileSync(lockPathForLog(dir), 'utf8')).toContain(`pid ${holder.pid} `);
    const lock = acquireWriterLock(io, lockPathForLog(dir), `the log in ${dir}`);
    expect(readFileSync(lockPathForLog(dir), 'utf8')).toMatch(THIS_PROCESS);
    lock.release();
    expect(existsSync(lockPathForLog(dir))).toBe(true);
  });
});
