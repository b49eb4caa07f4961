import type { EntryStat, FileHandle, FileIO, FileIOCounters, FileLock } from './file-io.js';

/**
 * A FileIO that hands every call to `inner`: the base of decorators (tracing, durability
 * accounting) that override only the calls they watch.
 */
export class DelegatingFileIO implements FileIO {
  protected readonly inner: FileIO;

  constructor(inner: FileIO) {
    this.inner = inner;
  }

  get counters(): FileIOCounters {
    return this.inner.counters;
  }

  open(filePath: string, options: { create: boolean }): FileHandle {
    return this.inner.open(filePath, options);
  }

  openReadOnly(filePath: string): FileHandle {
    return this.inner.openReadOnly(filePath);
  }

  openDirect(filePath: string): FileHandle | null {
    return this.inner.openDirect(filePath);
  }

  close(handle: FileHandle): void {
    this.inner.close(handle);
  }

  closeAsync(handle: FileHandle): Promise<void> {
    return this.inner.closeAsync(handle);
  }

  write(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): void {
    this.inner.write(handle, buffer, bufferStart, length, positionBytes);
  }

  writeAsync(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): Promise<void> {
    return this.inner.writeAsync(handle, buffer, bufferStart, length, positionBytes);
  }

  read(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): number {
    return this.inner.read(handle, buffer, bufferStart, length, positionBytes);
  }

  sizeBytes(handle: FileHandle): number {
    return this.inner.sizeBytes(handle);
  }

  fdatasync(handle: FileHandle): void {
    this.inner.fdatasync(handle);
  }

  fdatasyncAsync(handle: FileHandle): Promise<void> {
    return this.inner.fdatasyncAsync(handle);
  }

  truncate(handle: FileHandle, sizeBytes: number): void {
    this.inner.truncate(handle, sizeBytes);
  }

  rename(fromPath: string, toPath: string): void {
    this.inner.rename(fromPath, toPath);
  }

  unlink(filePath: string): void {
    this.inner.unlink(filePath);
  }

  fsyncDir(dirPath: string): void {
    this.inner.fsyncDir(dirPath);
  }

  mkdirp(dirPath: string): void {
    this.inner.mkdirp(dirPath);
  }

  list(dirPath: string): string[] {
    return this.inner.list(dirPath);
  }

  exists(filePath: string): boolean {
    return this.inner.exists(filePath);
  }

  inspect(filePath: string): EntryStat | null {
    return this.inner.inspect(filePath);
  }

  readWholeFile(filePath: string): Buffer | null {
    return this.inner.readWholeFile(filePath);
  }

  lockExclusive(filePath: string): FileLock | null {
    return this.inner.lockExclusive(filePath);
  }
}
