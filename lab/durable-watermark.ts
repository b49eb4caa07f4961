/**
 * A FileIO that knows how many record writes are durable: it counts the writes its predicate
 * calls record writes (a log's `.log` segments take one write per appended record, besides the
 * zero-filling of a preallocated segment) and, per file, how many of them a *completed*
 * fdatasync covers. The difference, read when a send is acknowledged,
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

/** Whether a write of `lengthBytes` to `filePath` is one record. */
export type RecordWrite = (filePath: string, lengthBytes: number) => boolean;

export class DurableWatermarkFileIO implements FileIO {
  readonly #inner: FileIO;
  readonly #isRecord: RecordWrite;
  readonly #paths = new Map<FileHandle, string>();
  readonly #files = new Map<FileHandle, WatchedFile>();
  #closedIssued = 0;
  #closedDurable = 0;

  constructor(inner: FileIO, isRecord: RecordWrite) {
    this.#inner = inner;
    this.#isRecord = isRecord;
  }

  get counters(): FileIOCounters {
    return this.#inner.counters;
  }

  /** Record writes issued. */
  get writesIssued(): number {
    let issued = this.#closedIssued;
    for (const file of this.#files.values()) issued += file.issued;
    return issued;
  }

  /** Record writes that a completed fdatasync covers. */
  get writesDurable(): number {
    let durable = this.#closedDurable;
    for (const file of this.#files.values()) durable += file.durable;
    return durable;
  }

  open(filePath: string, options: { create: boolean }): FileHandle {
    const handle = this.#inner.open(filePath, options);
    this.#paths.set(handle, filePath);
    return handle;
  }

  openReadOnly(filePath: string): FileHandle {
    return this.#inner.openReadOnly(filePath);
  }

  close(handle: FileHandle): void {
    this.#inner.close(handle);
    this.#paths.delete(handle);
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
    const filePath = this.#paths.get(handle);
    if (filePath === undefined || !this.#isRecord(filePath, length)) return;
    const file = this.#files.get(handle);
    if (file === undefined) this.#files.set(handle, { issued: 1, durable: 0 });
    else file.issued++;
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

  readWholeFile(filePath: string): Buffer | null {
    return this.#inner.readWholeFile(filePath);
  }

  #credit(handle: FileHandle, covered: number | undefined): void {
    const file = this.#files.get(handle);
    if (file === undefined || covered === undefined) return;
    file.durable = Math.max(file.durable, covered);
  }
}
