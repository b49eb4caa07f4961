/**
 * A FileIO that knows how many record writes are durable: it counts the writes to the files it
 * is told to watch (a log's `.log` segments, one write per appended record) and, per file, how
 * many of them a *completed* fdatasync covers. The difference, read when a send is acknowledged,
 * is the loss window the durability policy leaves: acknowledged messages a power failure could
 * still take. It is zero for `always` and `group` by their definition; this measures it instead
 * of assuming it.
 *
 * An fdatasync covers the writes issued before it started, so the count is taken at the start
 * and credited when the sync returns. Everything else is delegated unchanged, counters included.
 */
import type { FileHandle, FileIO, FileIOCounters } from '../storage/file-io.js';

interface WatchedFile {
  issued: number;
  durable: number;
}

export class DurableWatermarkFileIO implements FileIO {
  readonly #inner: FileIO;
  readonly #watch: (filePath: string) => boolean;
  readonly #files = new Map<FileHandle, WatchedFile>();
  #closedIssued = 0;
  #closedDurable = 0;

  constructor(inner: FileIO, watch: (filePath: string) => boolean) {
    this.#inner = inner;
    this.#watch = watch;
  }

  get counters(): FileIOCounters {
    return this.#inner.counters;
  }

  /** Writes issued to watched files. */
  get writesIssued(): number {
    let issued = this.#closedIssued;
    for (const file of this.#files.values()) issued += file.issued;
    return issued;
  }

  /** Writes to watched files that a completed fdatasync covers. */
  get writesDurable(): number {
    let durable = this.#closedDurable;
    for (const file of this.#files.values()) durable += file.durable;
    return durable;
  }

  open(filePath: string, options: { create: boolean }): FileHandle {
    return this.#track(this.#inner.open(filePath, options), filePath);
  }

  openReadOnly(filePath: string): FileHandle {
    return this.#inner.openReadOnly(filePath);
  }

  close(handle: FileHandle): void {
    this.#inner.close(handle);
    const file = this.#files.get(handle);
    if (file === undefined) return;
    this.#closedIssued += file.issued;
    this.#closedDurable += file.durable;
    this.#files.delete(handle);
  }

  write(
    handle: FileHandle,
    buffer: Uint8Array,
    offset: number,
    length: number,
    positionBytes: number,
  ): void {
    this.#inner.write(handle, buffer, offset, length, positionBytes);
    const file = this.#files.get(handle);
    if (file !== undefined) file.issued++;
  }

  read(
    handle: FileHandle,
    buffer: Uint8Array,
    offset: number,
    length: number,
    positionBytes: number,
  ): number {
    return this.#inner.read(handle, buffer, offset, length, positionBytes);
  }

  sizeBytes(handle: FileHandle): number {
    return this.#inner.sizeBytes(handle);
  }

  fdatasync(handle: FileHandle): void {
    const covered = this.#files.get(handle)?.issued;
    this.#inner.fdatasync(handle);
    this.#credit(handle, covered);
  }

  async fdatasyncAsync(handle: FileHandle): Promise<void> {
    const covered = this.#files.get(handle)?.issued;
    await this.#inner.fdatasyncAsync(handle);
    this.#credit(handle, covered);
  }

  truncate(handle: FileHandle, sizeBytes: number): void {
    this.#inner.truncate(handle, sizeBytes);
  }

  rename(fromPath: string, toPath: string): void {
    this.#inner.rename(fromPath, toPath);
  }

  unlink(filePath: string): void {
    this.#inner.unlink(filePath);
  }

  fsyncDir(dirPath: string): void {
    this.#inner.fsyncDir(dirPath);
  }

  mkdirp(dirPath: string): void {
    this.#inner.mkdirp(dirPath);
  }

  list(dirPath: string): string[] {
    return this.#inner.list(dirPath);
  }

  exists(filePath: string): boolean {
    return this.#inner.exists(filePath);
  }

  readWholeFile(filePath: string): Uint8Array | null {
    return this.#inner.readWholeFile(filePath);
  }

  #track(handle: FileHandle, filePath: string): FileHandle {
    if (this.#watch(filePath)) this.#files.set(handle, { issued: 0, durable: 0 });
    return handle;
  }

  #credit(handle: FileHandle, covered: number | undefined): void {
    const file = this.#files.get(handle);
    if (file === undefined || covered === undefined) return;
    file.durable = Math.max(file.durable, covered);
  }
}
