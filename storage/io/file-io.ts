/**
 * The one narrow door through which the storage core touches files. Everything the core does to a
 * disk — open, positional write, read, fdatasync, truncate, rename, unlink, directory fsync, list —
 * goes through a FileIO, so a simulated, fault-injecting disk can stand in for node:fs in tests.
 *
 * The calls are synchronous on purpose: the real path is exactly `fs.writeSync` and
 * `fs.fdatasyncSync` with no promise or closure per record, and a simulated disk stays
 * deterministic. `fdatasyncAsync` exists for group commit with `syncMode: 'thread-pool'`, so
 * producers can keep writing while one fdatasync is on the thread pool.
 *
 * Every implementation counts the syncs it performed (`counters`) so the lab can report fsyncs per
 * message without guessing. The real disk is node-file-io.ts's NodeFileIO, the simulated one
 * sim/sim-disk.ts's SimDisk.
 */

export type FileHandle = number & { readonly __fileHandle: true };

export type EntryKind = 'file' | 'directory' | 'symlink' | 'fifo' | 'socket' | 'device';

/** A directory entry as `lstat` sees it: a symbolic link is not followed. */
export interface EntryStat {
  readonly kind: EntryKind;
  /** Names the file has (its hard links); 1 for anything but a regular file. */
  readonly links: number;
  /** Equal for two names of one file (device and inode). */
  readonly fileId: string;
  /** Where a symbolic link points, as written in it. */
  readonly linkTarget?: string;
}

export interface FileIOCounters {
  writeCalls: number;
  writeBytes: number;
  readCalls: number;
  readBytes: number;
  fdatasyncCalls: number;
  dirFsyncCalls: number;
}

/**
 * An exclusive lock on a whole file, held from FileIO.lockExclusive until release(). It keeps the
 * file open: the lock belongs to that open file, so the kernel drops it when the holder dies.
 */
export interface FileLock {
  /**
   * Replaces the lock file's content with `description` (who holds it, for a refused opener to
   * read). Not synced: the lock is the kernel's, the text only informs.
   */
  writeHolder(description: string): void;
  /** Unlocks and closes the file; a second call does nothing. */
  release(): void;
}

export interface FileIO {
  readonly counters: FileIOCounters;
  /**
   * Opens for read and write, creating the file when `create` is set. Refuses (UNSAFE_ENTRY,
   * directory-entries.ts) a symbolic link, which it does not follow, and anything but a regular
   * file; with `create` (a name the caller creates or empties) also a file with another link.
   */
  open(filePath: string, options: { create: boolean }): FileHandle;
  /** Opens a regular file for reading; refuses what `open` refuses but a file's other links. */
  openReadOnly(filePath: string): FileHandle;
  /**
   * Opens an existing file for writes that bypass the page cache (O_DIRECT, direct-write.ts):
   * every write through the handle starts and ends on a DIRECT_BLOCK_BYTES boundary, and its
   * bytes reach the device before the call returns (its cache, until an fdatasync). Null where the
   * system refuses such a handle (no O_DIRECT on the platform, EINVAL from the file system).
   */
  openDirect(filePath: string): FileHandle | null;
  close(handle: FileHandle): void;
  /**
   * `close` on the thread pool. The last close of a file whose names are gone is what frees its
   * blocks and drops its pages from the cache (20-35 ms for a 64 MiB segment on this
   * repository's VM): retention unlinks a segment's names first and closes it here, so the event
   * loop never waits for that (log-retention.ts).
   */
  closeAsync(handle: FileHandle): Promise<void>;
  /** Writes all of `length` bytes at `positionBytes`; a short write is retried, then an error. */
  write(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): void;
  /**
   * `write` on the thread pool, for work the event loop must not wait for (a spare segment's
   * zeros, spare-segment.ts); never for records, whose writes stay in append order.
   */
  writeAsync(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): Promise<void>;
  /** Reads up to `length` bytes; returns how many were read (fewer only at end of file). */
  read(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): number;
  sizeBytes(handle: FileHandle): number;
  fdatasync(handle: FileHandle): void;
  fdatasyncAsync(handle: FileHandle): Promise<void>;
  truncate(handle: FileHandle, sizeBytes: number): void;
  rename(fromPath: string, toPath: string): void;
  unlink(filePath: string): void;
  /** Makes creations, renames and unlinks in `dirPath` durable. */
  fsyncDir(dirPath: string): void;
  mkdirp(dirPath: string): void;
  list(dirPath: string): string[];
  exists(filePath: string): boolean;
  /** The entry at `filePath`, a symbolic link not followed; null when there is none. */
  inspect(filePath: string): EntryStat | null;
  /**
   * The whole file as a Buffer (callers use its methods), null when it does not exist; refuses
   * what `openReadOnly` refuses.
   */
  readWholeFile(filePath: string): Buffer | null;
  /**
   * Opens (creating, as `open` does) and locks `filePath` exclusively, without waiting; null when
   * someone else holds it: another process, or another lock on the same file in this one.
   */
  lockExclusive(filePath: string): FileLock | null;
}

export function newCounters(): FileIOCounters {
  return {
    writeCalls: 0,
    writeBytes: 0,
    readCalls: 0,
    readBytes: 0,
    fdatasyncCalls: 0,
    dirFsyncCalls: 0,
  };
}

/**
 * Closes `handle` on the way out of another failure: that failure is the one to report, so a
 * failure to close is dropped. Without it an EMFILE would leak the handles opened before it.
 */
export function closeAfterFailure(io: FileIO, handle: FileHandle): void {
  try {
    io.close(handle);
  } catch {
    // The caller rethrows the failure that brought it here.
  }
}

/**
 * Opens `filePath` for writing, creating it, and empties it when it holds bytes (a file left under
 * the same name). A new file is not truncated: ext4 writes a file truncated to 0 out when it is
 * closed (auto_da_alloc, for programs that rewrite a file without syncing), and a roll's close of
 * the indexes it created one segment earlier then waited 0.6-0.9 ms each for that write-back.
 */
export function openEmptied(io: FileIO, filePath: string): FileHandle {
  const handle = io.open(filePath, { create: true });
  try {
    if (io.sizeBytes(handle) !== 0) io.truncate(handle, 0);
  } catch (error) {
    closeAfterFailure(io, handle);
    throw error;
  }
  return handle;
}
