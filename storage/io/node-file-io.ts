/**
 * The real disk: NodeFileIO, the FileIO (file-io.ts) over node:fs, synchronous with no allocation
 * per call, and the kernel's file locks through the native addon (native-locks.ts). Every open
 * refuses what directory-entries.ts says a log must not write through: a symbolic link, anything
 * but a regular file, and for a file it creates or empties, one with another link.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { unsafeEntry } from './directory-entries.js';
import { StorageError, ioError } from '../errors.js';
import {
  type EntryKind,
  type EntryStat,
  type FileHandle,
  type FileIO,
  type FileIOCounters,
  type FileLock,
  closeAfterFailure,
  newCounters,
} from './file-io.js';
import { HandleLock } from './handle-lock.js';
import { nativeLocks } from './native-locks.js';

const MAX_SHORT_IO_RETRIES = 8;

/** The real disk: node:fs, synchronous, no allocation per call. */
export class NodeFileIO implements FileIO {
  readonly counters: FileIOCounters = newCounters();
  readonly #paths = new Map<number, string>();

  open(filePath: string, options: { create: boolean }): FileHandle {
    const flags = fs.constants.O_RDWR | (options.create ? fs.constants.O_CREAT : 0);
    return this.#openChecked(filePath, flags, options.create);
  }

  openReadOnly(filePath: string): FileHandle {
    return this.#openChecked(filePath, fs.constants.O_RDONLY, false);
  }

  openDirect(filePath: string): FileHandle | null {
    // Undefined where the platform has no O_DIRECT (macOS), whatever the typings say.
    const direct = fs.constants.O_DIRECT as number | undefined;
    if (direct === undefined) return null;
    try {
      return this.#openChecked(filePath, fs.constants.O_RDWR | direct, false);
    } catch (error) {
      const cause = error instanceof StorageError ? error.context.cause : undefined;
      if ((cause as NodeJS.ErrnoException | undefined)?.code === 'EINVAL') return null;
      throw error;
    }
  }

  /**
   * Opens without following a symbolic link (O_NOFOLLOW) or waiting for a FIFO's other end
   * (O_NONBLOCK, which a regular file ignores), then checks what was opened: a regular file, of
   * one link when `soleLink` (FileIO.open says why). An entry it refuses is UNSAFE_ENTRY.
   */
  #openChecked(filePath: string, flags: number, soleLink: boolean): FileHandle {
    const safeFlags = flags | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
    let fd: number;
    try {
      fd = fs.openSync(filePath, safeFlags, 0o644);
    } catch (cause) {
      // ELOOP for a symbolic link, EISDIR, ENXIO for a socket: say what stands there.
      const stat = ignoreErrors(() => this.inspect(filePath));
      if (stat != null && stat.kind !== 'file') throw unsafeEntry(path.resolve(filePath), stat);
      throw ioError('open', filePath, cause);
    }
    let stat: fs.Stats;
    try {
      stat = fs.fstatSync(fd);
    } catch (cause) {
      ignoreErrors(() => fs.closeSync(fd));
      throw ioError('fstat', filePath, cause);
    }
    if (!stat.isFile() || (soleLink && stat.nlink > 1)) {
      ignoreErrors(() => fs.closeSync(fd));
      throw unsafeEntry(path.resolve(filePath), entryStatOf(stat, undefined));
    }
    return this.#track(fd, filePath);
  }

  close(handle: FileHandle): void {
    const file = this.#path(handle);
    this.#paths.delete(handle);
    try {
      fs.closeSync(handle);
    } catch (cause) {
      throw ioError('close', file, cause);
    }
  }

  closeAsync(handle: FileHandle): Promise<void> {
    const file = this.#path(handle);
    // Forgotten now: the kernel may hand the number to the next open before the callback runs.
    this.#paths.delete(handle);
    return new Promise((resolve, reject) => {
      fs.close(handle, (cause) => (cause ? reject(ioError('close', file, cause)) : resolve()));
    });
  }

  write(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): void {
    let done = 0;
    // A short write is retried from where it stopped; only writes that make no progress count.
    for (let stalled = 0; done < length; ) {
      let written: number;
      try {
        written = fs.writeSync(
          handle,
          buffer,
          bufferStart + done,
          length - done,
          positionBytes + done,
        );
      } catch (cause) {
        throw ioError('write', this.#path(handle), cause);
      }
      done += written;
      if (written > 0) stalled = 0;
      else if (++stalled > MAX_SHORT_IO_RETRIES)
        throw this.#shortWrite(handle, done, length, positionBytes);
    }
    this.#wrote(length);
  }

  async writeAsync(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): Promise<void> {
    let done = 0;
    for (let stalled = 0; done < length; ) {
      const written = await new Promise<number>((resolve, reject) => {
        fs.write(
          handle,
          buffer,
          bufferStart + done,
          length - done,
          positionBytes + done,
          (cause, n) => (cause ? reject(ioError('write', this.#path(handle), cause)) : resolve(n)),
        );
      });
      done += written;
      if (written > 0) stalled = 0;
      else if (++stalled > MAX_SHORT_IO_RETRIES)
        throw this.#shortWrite(handle, done, length, positionBytes);
    }
    this.#wrote(length);
  }

  #wrote(length: number): void {
    this.counters.writeCalls++;
    this.counters.writeBytes += length;
  }

  #shortWrite(
    handle: FileHandle,
    done: number,
    length: number,
    positionBytes: number,
  ): StorageError {
    return new StorageError(
      'SHORT_IO',
      `write to ${this.#path(handle)} stopped after ${done} of ${length} bytes; the disk may be full`,
      { file: this.#path(handle), positionBytes, sizeBytes: length },
    );
  }

  read(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): number {
    let done = 0;
    while (done < length) {
      let got: number;
      try {
        got = fs.readSync(handle, buffer, bufferStart + done, length - done, positionBytes + done);
      } catch (cause) {
        throw ioError('read', this.#path(handle), cause);
      }
      if (got === 0) break;
      done += got;
    }
    this.counters.readCalls++;
    this.counters.readBytes += done;
    return done;
  }

  sizeBytes(handle: FileHandle): number {
    try {
      return fs.fstatSync(handle).size;
    } catch (cause) {
      throw ioError('fstat', this.#path(handle), cause);
    }
  }

  fdatasync(handle: FileHandle): void {
    try {
      fs.fdatasyncSync(handle);
    } catch (cause) {
      throw ioError('fdatasync', this.#path(handle), cause);
    }
    this.counters.fdatasyncCalls++;
  }

  fdatasyncAsync(handle: FileHandle): Promise<void> {
    return new Promise((resolve, reject) => {
      fs.fdatasync(handle, (cause) => {
        if (cause) return reject(ioError('fdatasync', this.#path(handle), cause));
        this.counters.fdatasyncCalls++;
        resolve();
      });
    });
  }

  truncate(handle: FileHandle, sizeBytes: number): void {
    try {
      fs.ftruncateSync(handle, sizeBytes);
    } catch (cause) {
      throw ioError('truncate', this.#path(handle), cause);
    }
  }

  rename(fromPath: string, toPath: string): void {
    try {
      fs.renameSync(fromPath, toPath);
    } catch (cause) {
      throw ioError('rename', fromPath, cause);
    }
  }

  unlink(filePath: string): void {
    try {
      fs.unlinkSync(filePath);
    } catch (cause) {
      throw ioError('unlink', filePath, cause);
    }
  }

  fsyncDir(dirPath: string): void {
    // The directory itself may be a symbolic link: this open follows it.
    let handle: FileHandle;
    try {
      handle = this.#track(fs.openSync(dirPath, 'r'), dirPath);
    } catch (cause) {
      throw ioError('open', dirPath, cause);
    }
    try {
      fs.fsyncSync(handle);
    } catch (cause) {
      // The fsync's error is the one to report; the descriptor is closed all the same.
      closeAfterFailure(this, handle);
      throw ioError('fsync of directory', dirPath, cause);
    }
    this.close(handle);
    this.counters.dirFsyncCalls++;
  }

  mkdirp(dirPath: string): void {
    try {
      fs.mkdirSync(dirPath, { recursive: true });
    } catch (cause) {
      throw ioError('mkdir', dirPath, cause);
    }
  }

  list(dirPath: string): string[] {
    try {
      return fs.readdirSync(dirPath).sort();
    } catch (cause) {
      throw ioError('readdir', dirPath, cause);
    }
  }

  exists(filePath: string): boolean {
    return fs.existsSync(filePath);
  }

  inspect(filePath: string): EntryStat | null {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(filePath);
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw ioError('lstat', filePath, cause);
    }
    return entryStatOf(stat, stat.isSymbolicLink() ? readLinkOrNull(filePath) : undefined);
  }

  readWholeFile(filePath: string): Buffer | null {
    let handle: FileHandle;
    try {
      handle = this.openReadOnly(filePath);
    } catch (error) {
      const cause = error instanceof StorageError ? error.context.cause : undefined;
      if ((cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') return null;
      throw error;
    }
    try {
      return fs.readFileSync(handle);
    } catch (cause) {
      throw ioError('read', filePath, cause);
    } finally {
      this.close(handle);
    }
  }

  /**
   * An OFD lock on Linux (see fs-native-extensions.d.ts) on a descriptor opened O_RDWR | O_CREAT
   * with mode 0o644, kept open while the lock is held.
   */
  lockExclusive(filePath: string): FileLock | null {
    const locks = nativeLocks();
    const handle = this.open(filePath, { create: true });
    let locked: boolean;
    try {
      locked = locks.tryLock(handle);
    } catch (cause) {
      closeAfterFailure(this, handle);
      throw ioError('lock', filePath, cause);
    }
    if (!locked) {
      this.close(handle);
      return null;
    }
    return new HandleLock(this, handle, () => {
      try {
        locks.unlock(handle);
      } catch {
        // Closing the descriptor, which release does next, drops the lock all the same.
      }
    });
  }

  #track(fd: number, filePath: string): FileHandle {
    this.#paths.set(fd, path.resolve(filePath));
    return fd as FileHandle;
  }

  #path(handle: FileHandle): string {
    return this.#paths.get(handle) ?? `fd ${handle}`;
  }
}

function entryStatOf(stat: fs.Stats, linkTarget: string | null | undefined): EntryStat {
  const fileId = `${stat.dev}:${stat.ino}`;
  if (stat.isFile()) return { kind: 'file', links: stat.nlink, fileId };
  const kind = kindOf(stat);
  return linkTarget == null ? { kind, links: 1, fileId } : { kind, links: 1, fileId, linkTarget };
}

function kindOf(stat: fs.Stats): EntryKind {
  if (stat.isSymbolicLink()) return 'symlink';
  if (stat.isDirectory()) return 'directory';
  if (stat.isFIFO()) return 'fifo';
  if (stat.isSocket()) return 'socket';
  return stat.isFile() ? 'file' : 'device';
}

function readLinkOrNull(filePath: string): string | null {
  try {
    return fs.readlinkSync(filePath);
  } catch {
    return null;
  }
}

function ignoreErrors<T>(call: () => T): T | null {
  try {
    return call();
  } catch {
    return null;
  }
}
