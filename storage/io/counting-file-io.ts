/**
 * The file calls of one user of a FileIO, counted apart from everyone else's: a queue wraps the
 * `io` it is given in one, so its `counters` are its own even when that `io` is shared (the lab's
 * tracing FileIO, a simulated disk, one NodeFileIO for several queues).
 */
import { type FileHandle, type FileIO, type FileIOCounters, newCounters } from './file-io.js';
import { DelegatingFileIO } from './delegating-file-io.js';

export class CountingFileIO extends DelegatingFileIO {
  readonly #counters: FileIOCounters = newCounters();

  constructor(inner: FileIO) {
    super(inner);
  }

  /** Counts of the calls made through this FileIO that succeeded (an async sync once started). */
  override get counters(): FileIOCounters {
    return this.#counters;
  }

  override write(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): void {
    this.inner.write(handle, buffer, bufferStart, length, positionBytes);
    this.#counted(length);
  }

  override async writeAsync(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): Promise<void> {
    await this.inner.writeAsync(handle, buffer, bufferStart, length, positionBytes);
    this.#counted(length);
  }

  #counted(length: number): void {
    this.#counters.writeCalls++;
    this.#counters.writeBytes += length;
  }

  override read(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): number {
    const got = this.inner.read(handle, buffer, bufferStart, length, positionBytes);
    this.#counters.readCalls++;
    this.#counters.readBytes += got;
    return got;
  }

  override fdatasync(handle: FileHandle): void {
    this.inner.fdatasync(handle);
    this.#counters.fdatasyncCalls++;
  }

  /** Counted when started: a `.then` to count on success would add a hop to every group sync. */
  override fdatasyncAsync(handle: FileHandle): Promise<void> {
    this.#counters.fdatasyncCalls++;
    return this.inner.fdatasyncAsync(handle);
  }

  override fsyncDir(dirPath: string): void {
    this.inner.fsyncDir(dirPath);
    this.#counters.dirFsyncCalls++;
  }
}
