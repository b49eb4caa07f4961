/**
 * SimDisk: an in-memory FileIO that loses what was not synced, deterministic from one seed. It
 * stands in for NodeFileIO in crash tests; its errors and counters look exactly like NodeFileIO's.
 *
 * What it simulates (after SQLite's crash VFS, LazyFS and the ALICE study of file systems):
 * - Page cache and device, separately. Reads see the cache. A write changes the cache only; it
 *   reaches the device at fdatasync of that file, which also makes the file's size durable.
 *   close() syncs nothing (a close that syncs hides missing fsyncs).
 * - Directories hold names → inodes. Creating a file, mkdir, rename and unlink change the cache's
 *   entries at once and are pending until fsyncDir of the directory they change. A rename across
 *   directories is one operation pending in both; fsyncDir of either commits it, together with
 *   what the other directory did before it. fdatasync of a new file does not make its name
 *   durable (ext4 often does; POSIX does not promise it).
 * - crash() (a power cut) returns a NEW SimDisk holding what survived, seeded from this one;
 *   this disk is dead afterwards and its handles mean nothing to the new one. Armed faults do
 *   not carry over and the new disk's counters start at zero. What survives:
 *   - each pending directory operation, or not: one coin each, replayed in issue order, so a
 *     rename happened entirely or not at all. Files no surviving name reaches are gone;
 *   - per file, per dirty 512-byte sector: the device's old content, or the sector as it was
 *     after one of the writes since the last fdatasync (the kernel writes pages back whole, at
 *     any moment, in any order). So a write may land whole, not at all, or torn at sector
 *     granularity, and writes land in any order across sectors;
 *   - the file's size: its durable size or any size it had since the last fdatasync. Bytes past
 *     the durable size that no landed sector covers are zeros or garbage (one seeded choice per
 *     file per crash): "the size grew before the data landed".
 *   Each crash draws a landing probability (0, 1/4, … 1) per file and one for directory
 *   operations, so some crashes keep nothing pending and some keep everything.
 * - A failed fdatasync behaves like Linux since 4.13 (the PostgreSQL "fsyncgate" lesson): the
 *   writeback is decided at once exactly as a power cut would decide it, the pages are then
 *   clean, reads still show the new data, and a later successful fdatasync does not write those
 *   pages again. Data written before a failed fdatasync is never made durable by a later one
 *   unless it is written again.
 * - Faults (injectFault, flipBit): the Nth write/read/fdatasync/open fails with EIO or ENOSPC
 *   (EMFILE for open), once or sticky for that file; a short write lands part of the buffer,
 *   then fails with ENOSPC (IO_ERROR) or makes no progress (SHORT_IO), as NodeFileIO reports
 *   them; a misdirected write lands at another position (visible at once, as if the page had
 *   been evicted and re-read); a bit flip on the device (visible through a clean cached page);
 *   a power cut after N calls. Every misbehaving call is counted in `faultsInjected`.
 * - Locks (lockExclusive) belong to the process, not the disk: a table of locked files, each
 *   held until release(). The lock file is created like any other file (a pending directory
 *   entry until fsyncDir). crash() returns a disk with no lock held, since the holder died.
 *
 * What it does not simulate: time, concurrency and background writeback (an unsynced write
 * stays pending until a sync or the crash), cache eviction (the cache never forgets), metadata
 * other than names and sizes (no permissions, timestamps or link counts), hard links, rmdir,
 * ordering between a file's data and other files' or directories' metadata beyond the rules
 * above, and devices that lie about fdatasync: a successful fdatasync is durable.
 *
 * Paths are POSIX; a relative path is taken from '/'. Handles are plain numbers, never reused,
 * unique across a disk and the disks its crashes return.
 *
 * Why this file is over 450 lines: a tenth of it is the contract above; the rest is one method
 * per FileIO call, each passing through the armed faults to a file's cache and device
 * (sim-file.ts) or to the namespace (sim-namespace.ts), which hold the state and have files of
 * their own, as do the faults (sim-faults.ts) and the errors (sim-errors.ts).
 */
import {
  type EntryStat,
  type FileHandle,
  type FileIO,
  type FileIOCounters,
  type FileLock,
  newCounters,
} from '../io/file-io.js';
import { HandleLock } from '../io/handle-lock.js';
import { assert } from '../errors.js';
import { isDirectAligned } from '../io/direct-write.js';
import { SeededRandom } from './prng.js';
import { SimDirectory } from './sim-directory.js';
import {
  errnoException,
  ioError,
  isErrnoException,
  shortWriteError,
  SimPowerCutError,
  type SimErrno,
} from './sim-errors.js';
import { FaultPlan, type FaultEffect, type InjectedFault, type SimFault } from './sim-faults.js';
import type { SimFile } from './sim-file.js';
import { normalizePath, SimNamespace, type PendingDirOp } from './sim-namespace.js';

export type { InjectedFault, SimFault } from './sim-faults.js';
export type { PendingDirOp } from './sim-namespace.js';
export { SimPowerCutError } from './sim-errors.js';
export { SECTOR_BYTES } from './sim-file.js';

export interface SimDiskOptions {
  readonly seed: number;
}

interface OpenFile {
  readonly file: SimFile;
  readonly path: string;
  readonly writable: boolean;
  /** Opened by openDirect: a write that is not block-aligned fails with EINVAL, as O_DIRECT's. */
  readonly direct: boolean;
}

// Descriptors 0-2 are stdio on a real system; starting above them keeps handles looking real.
const FIRST_HANDLE = 3;

/** Wraps a simulated errno like NodeFileIO does; anything else is a bug and propagates as is. */
function asIoError(operation: string, file: string, cause: unknown): unknown {
  return isErrnoException(cause) ? ioError(operation, file, cause) : cause;
}

function failure(operation: string, file: string, errno: SimErrno, syscall: string): Error {
  return ioError(operation, file, errnoException(errno, syscall));
}

/** `start`: the index in `buffer` of the first byte read or written (bufferStart). */
function assertRange(buffer: Uint8Array, start: number, length: number, position: number): void {
  assert(Number.isInteger(start) && start >= 0, `buffer start must be an integer >= 0: ${start}`);
  assert(Number.isInteger(length) && length >= 0, `length must be an integer >= 0: ${length}`);
  assert(
    start + length <= buffer.length,
    `buffer start + length past the buffer: ${start + length}`,
  );
  assert(Number.isSafeInteger(position) && position >= 0, `bad position: ${position}`);
}

export class SimDisk implements FileIO {
  readonly counters: FileIOCounters = newCounters();
  /** Reproduces this disk's every choice; the disk crash() returns gets a seed drawn from it. */
  readonly seed: number;
  readonly #rng: SeededRandom;
  readonly #faults = new FaultPlan();
  readonly #handles = new Map<number, OpenFile>();
  /** Inode ids of the files locked now: a lock is on the file, whatever name reaches it. */
  readonly #lockedFiles = new Set<number>();
  #namespace = new SimNamespace();
  #nextHandle = FIRST_HANDLE;
  #crashed = false;

  constructor(options: SimDiskOptions) {
    this.seed = options.seed;
    this.#rng = new SeededRandom(options.seed);
  }

  open(filePath: string, options: { create: boolean }): FileHandle {
    return this.#open(filePath, options.create, true);
  }

  openReadOnly(filePath: string): FileHandle {
    return this.#open(filePath, false, false);
  }

  /** A disk that takes direct writes like any other: its unsynced bytes are lost or torn alike. */
  openDirect(filePath: string): FileHandle {
    return this.#open(filePath, false, true, true);
  }

  close(handle: FileHandle): void {
    this.#enter('close');
    this.#handleFor(handle, 'close', 'close');
    this.#handles.delete(handle);
  }

  /** Closes at once; the caller sees the outcome a microtask later. */
  closeAsync(handle: FileHandle): Promise<void> {
    return settledNow(() => this.close(handle));
  }

  write(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): void {
    this.#enter('write');
    assertRange(buffer, bufferStart, length, positionBytes);
    const open = this.#handleFor(handle, 'write', 'write');
    if (!open.writable) throw failure('write', open.path, 'EBADF', 'write');
    if (open.direct && !isDirectAligned(positionBytes, length))
      throw failure('write', open.path, 'EINVAL', 'write');
    // Like NodeFileIO's loop around fs.writeSync: an empty write makes no system call at all.
    if (length === 0) {
      this.#countWrite(0);
      return;
    }
    const effect = this.#faults.effectFor('write', open.path, open.file.id);
    if (effect?.kind === 'error') throw failure('write', open.path, effect.errno, 'write');
    if (effect?.kind === 'short-write') {
      this.#shortWrite(
        open,
        buffer.subarray(bufferStart, bufferStart + length),
        positionBytes,
        effect,
      );
    }
    const shiftBytes = effect?.kind === 'misdirected-write' ? effect.shiftBytes : 0;
    open.file.write(buffer, bufferStart, length, Math.max(0, positionBytes + shiftBytes));
    this.#countWrite(length);
  }

  read(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): number {
    this.#enter('read');
    assertRange(buffer, bufferStart, length, positionBytes);
    const open = this.#handleFor(handle, 'read', 'read');
    const effect =
      length === 0 ? undefined : this.#faults.effectFor('read', open.path, open.file.id);
    if (effect !== undefined) throw this.#errorFrom(effect, 'read', open.path, 'read');
    const done = open.file.read(buffer, bufferStart, length, positionBytes);
    this.counters.readCalls++;
    this.counters.readBytes += done;
    return done;
  }

  sizeBytes(handle: FileHandle): number {
    this.#enter('fstat');
    return this.#handleFor(handle, 'fstat', 'fstat').file.sizeBytes;
  }

  fdatasync(handle: FileHandle): void {
    this.#enter('fdatasync');
    const open = this.#handleFor(handle, 'fdatasync', 'fdatasync');
    const effect = this.#faults.effectFor('fdatasync', open.path, open.file.id);
    if (effect !== undefined) {
      open.file.failWriteBack(this.#rng);
      throw this.#errorFrom(effect, 'fdatasync', open.path, 'fdatasync');
    }
    open.file.writeBack();
    this.counters.fdatasyncCalls++;
  }

  /** Writes at once, as `write` does; the caller sees the outcome a microtask later. */
  writeAsync(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): Promise<void> {
    return settledNow(() => this.write(handle, buffer, bufferStart, length, positionBytes));
  }

  /** Syncs at once: writes issued after this call are not covered, as with a real fdatasync. */
  fdatasyncAsync(handle: FileHandle): Promise<void> {
    return settledNow(() => this.fdatasync(handle));
  }

  truncate(handle: FileHandle, sizeBytes: number): void {
    this.#enter('truncate');
    assert(Number.isSafeInteger(sizeBytes) && sizeBytes >= 0, `bad size: ${sizeBytes}`);
    const open = this.#handleFor(handle, 'truncate', 'ftruncate');
    if (!open.writable) throw failure('truncate', open.path, 'EINVAL', 'ftruncate');
    const effect = this.#faults.effectFor('truncate', open.path, open.file.id);
    if (effect !== undefined) throw this.#errorFrom(effect, 'truncate', open.path, 'ftruncate');
    open.file.truncate(sizeBytes);
  }

  rename(fromPath: string, toPath: string): void {
    this.#enter('rename');
    this.#namespaceCall('rename', fromPath, () => {
      this.#failIfArmed('rename', fromPath);
      this.#namespace.rename(fromPath, toPath);
    });
  }

  unlink(filePath: string): void {
    this.#enter('unlink');
    this.#namespaceCall('unlink', filePath, () => {
      this.#failIfArmed('unlink', filePath);
      this.#namespace.unlink(filePath);
    });
  }

  /** A failed directory fsync commits nothing: the entries it was to make durable stay pending. */
  fsyncDir(dirPath: string): void {
    this.#enter('fsyncDir');
    this.#namespaceCall('fsync of directory', dirPath, () => {
      this.#failIfArmed('fsyncDir', dirPath);
      this.#namespace.commit(dirPath);
    });
    this.counters.dirFsyncCalls++;
  }

  /** Throws the errno of a fault armed for this namespace call; the call then changes nothing. */
  #failIfArmed(call: 'rename' | 'unlink' | 'fsyncDir', filePath: string): void {
    const path = normalizePath(filePath);
    const effect = this.#faults.effectFor(call, path, path);
    if (effect !== undefined) throw errnoException(this.#errnoOf(effect), call, filePath);
  }

  mkdirp(dirPath: string): void {
    this.#enter('mkdirp');
    this.#namespaceCall('mkdir', dirPath, () => this.#namespace.mkdirp(dirPath));
  }

  list(dirPath: string): string[] {
    this.#enter('list');
    return this.#namespaceCall('readdir', dirPath, () => this.#namespace.list(dirPath));
  }

  exists(filePath: string): boolean {
    this.#enter('exists');
    try {
      return this.#namespace.find(filePath, 'stat') !== undefined;
    } catch (cause) {
      if (isErrnoException(cause)) return false;
      throw cause;
    }
  }

  /** Regular files and directories are all a simulated disk holds. */
  inspect(filePath: string): EntryStat | null {
    this.#enter('inspect');
    let inode: SimFile | SimDirectory | undefined;
    try {
      inode = this.#namespace.find(filePath, 'lstat');
    } catch (cause) {
      if (isErrnoException(cause) && cause.code === 'ENOENT') return null;
      throw asIoError('lstat', filePath, cause);
    }
    if (inode === undefined) return null;
    const fileId = String(inode.id);
    if (inode instanceof SimDirectory) return { kind: 'directory', links: 1, fileId };
    return { kind: 'file', links: this.#namespace.linksTo(inode.id), fileId };
  }

  readWholeFile(filePath: string): Buffer | null {
    this.#enter('readWholeFile');
    try {
      const inode = this.#namespace.find(filePath, 'open');
      if (inode === undefined) return null;
      if (inode instanceof SimDirectory) throw errnoException('EISDIR', 'read');
      const effect = this.#faults.effectFor('read', normalizePath(filePath), inode.id);
      if (effect !== undefined) throw errnoException(this.#errnoOf(effect), 'read', filePath);
      // A Buffer, as fs.readFileSync returns in NodeFileIO: callers may rely on its methods.
      const content = Buffer.alloc(inode.sizeBytes);
      inode.read(content, 0, content.length, 0);
      return content;
    } catch (cause) {
      if (isErrnoException(cause) && cause.code === 'ENOENT') return null;
      throw asIoError('read', filePath, cause);
    }
  }

  /** Opens the file like open() (faults included) and locks it; null when it is locked already. */
  lockExclusive(filePath: string): FileLock | null {
    const handle = this.#open(filePath, true, true);
    const fileId = this.#handleFor(handle, 'lock', 'fcntl').file.id;
    if (this.#lockedFiles.has(fileId)) {
      this.close(handle);
      return null;
    }
    this.#lockedFiles.add(fileId);
    return new HandleLock(this, handle, () => this.#lockedFiles.delete(fileId));
  }

  /**
   * A power cut: returns a new disk holding what survived (see the top of this file). This disk
   * is dead afterwards; every call on it is a programming error.
   */
  crash(): SimDisk {
    this.#assertAlive();
    this.#crashed = true;
    const next = new SimDisk({ seed: this.#rng.nextU32() });
    next.#namespace = this.#namespace.afterCrash(this.#rng);
    next.#nextHandle = this.#nextHandle;
    return next;
  }

  /** sync(2): every file's pending writes and every pending directory operation become durable. */
  syncAll(): void {
    this.#assertAlive();
    for (const file of this.#namespace.files()) file.writeBack();
    this.#namespace.commitAll();
  }

  /** Arms a fault; it fires on the Nth matching call from now. */
  injectFault(fault: SimFault): void {
    this.#assertAlive();
    this.#faults.arm(fault);
  }

  /** Flips one bit of the durable data of the file now at `filePath` (bit rot on the medium). */
  flipBit(filePath: string, positionBytes: number, bitIndex = 0): void {
    this.#file(filePath).flipDeviceBit(positionBytes, bitIndex);
    this.#faults.recordBitFlip(normalizePath(filePath));
  }

  /** Handles open now: a test's check that nothing leaked. A held lock keeps one open. */
  get openHandles(): number {
    return this.#handles.size;
  }

  /** Files locked now (lockExclusive): a test's check that no lock leaked. */
  get heldLocks(): number {
    return this.#lockedFiles.size;
  }

  get faultsInjected(): number {
    return this.#faults.injected.length;
  }

  get injectedFaults(): readonly InjectedFault[] {
    return this.#faults.injected;
  }

  /** Bytes written to the file now at `filePath` since its last fdatasync (failed or not). */
  pendingWriteBytes(filePath: string): number {
    return this.#file(filePath).pendingWriteBytes;
  }

  /** The file's durable bytes, reached through durable names only; null if none leads there. */
  durableContents(filePath: string): Uint8Array | null {
    this.#assertAlive();
    const inode = this.#namespace.findDurable(filePath);
    if (inode === undefined || inode instanceof SimDirectory) return null;
    return inode.durableContent();
  }

  /** Directory operations not yet made durable by fsyncDir, in issue order. */
  pendingDirOps(): PendingDirOp[] {
    this.#assertAlive();
    return this.#namespace.pendingOps();
  }

  #open(filePath: string, create: boolean, writable: boolean, direct = false): FileHandle {
    this.#enter('open');
    const path = normalizePath(filePath);
    try {
      const effect = this.#faults.effectFor('open', path, path);
      if (effect !== undefined) throw errnoException(this.#errnoOf(effect), 'open', filePath);
      const file = this.#namespace.openFile(filePath, create);
      const handle = this.#nextHandle++;
      this.#handles.set(handle, { file, path, writable, direct });
      return handle as FileHandle;
    } catch (cause) {
      throw asIoError('open', filePath, cause);
    }
  }

  #countWrite(lengthBytes: number): void {
    this.counters.writeCalls++;
    this.counters.writeBytes += lengthBytes;
  }

  #shortWrite(
    open: OpenFile,
    data: Uint8Array,
    positionBytes: number,
    effect: Extract<FaultEffect, { kind: 'short-write' }>,
  ): never {
    const landedBytes = Math.min(effect.landedBytes, data.length - 1);
    if (landedBytes > 0) open.file.write(data, 0, landedBytes, positionBytes);
    if (effect.then === 'ENOSPC') throw failure('write', open.path, 'ENOSPC', 'write');
    throw shortWriteError(open.path, positionBytes, landedBytes, data.length);
  }

  #errorFrom(effect: FaultEffect, operation: string, file: string, syscall: string): Error {
    return failure(operation, file, this.#errnoOf(effect), syscall);
  }

  #errnoOf(effect: FaultEffect): SimErrno {
    assert(effect.kind === 'error', `${effect.kind} faults apply to writes only`);
    return effect.errno;
  }

  #namespaceCall<T>(operation: string, file: string, call: () => T): T {
    try {
      return call();
    } catch (cause) {
      throw asIoError(operation, file, cause);
    }
  }

  #handleFor(handle: FileHandle, operation: string, syscall: string): OpenFile {
    const open = this.#handles.get(handle);
    if (open === undefined) throw failure(operation, `fd ${handle}`, 'EBADF', syscall);
    return open;
  }

  #file(filePath: string): SimFile {
    this.#assertAlive();
    const inode = this.#namespace.find(filePath, 'stat');
    assert(inode !== undefined && !(inode instanceof SimDirectory), `no file at ${filePath}`);
    return inode;
  }

  #enter(operation: string): void {
    this.#assertAlive();
    if (this.#faults.powerIsOffAt(operation)) throw new SimPowerCutError(operation);
  }

  #assertAlive(): void {
    assert(!this.#crashed, 'this SimDisk has crashed; use the SimDisk that crash() returned');
  }
}

/** Runs a call at once and hands its outcome back as a promise, as a thread-pool call would. */
function settledNow(action: () => void): Promise<void> {
  try {
    action();
    return Promise.resolve();
  } catch (error) {
    return Promise.reject(error);
  }
}
