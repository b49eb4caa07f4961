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
import { DelegatingFileIO, type FileHandle, type FileIO } from '../storage/file-io.js';

interface WatchedFile {
  issued: number;
  durable: number;
}

/** Whether a write of `lengthBytes` to `filePath` is one record. */
export type RecordWrite = (filePath: string, lengthBytes: number) => boolean;

export class DurableWatermarkFileIO extends DelegatingFileIO {
  readonly #isRecord: RecordWrite;
  readonly #paths = new Map<FileHandle, string>();
  readonly #files = new Map<FileHandle, WatchedFile>();
  #closedIssued = 0;
  #closedDurable = 0;

  constructor(inner: FileIO, isRecord: RecordWrite) {
    super(inner);
    this.#isRecord = isRecord;
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

  override open(filePath: string, options: { create: boolean }): FileHandle {
    const handle = this.inner.open(filePath, options);
    this.#paths.set(handle, filePath);
    return handle;
  }

  override close(handle: FileHandle): void {
    this.inner.close(handle);
    this.#paths.delete(handle);
    const file = this.#files.get(handle);
    if (file === undefined) return;
    this.#closedIssued += file.issued;
    this.#closedDurable += file.durable;
    this.#files.delete(handle);
  }

  override write(
    handle: FileHandle,
    buffer: Uint8Array,
    offset: number,
    length: number,
    positionBytes: number,
  ): void {
    this.inner.write(handle, buffer, offset, length, positionBytes);
    const filePath = this.#paths.get(handle);
    if (filePath === undefined || !this.#isRecord(filePath, length)) return;
    const file = this.#files.get(handle);
    if (file === undefined) this.#files.set(handle, { issued: 1, durable: 0 });
    else file.issued++;
  }

  override fdatasync(handle: FileHandle): void {
    const covered = this.#files.get(handle)?.issued;
    this.inner.fdatasync(handle);
    this.#credit(handle, covered);
  }

  override async fdatasyncAsync(handle: FileHandle): Promise<void> {
    const covered = this.#files.get(handle)?.issued;
    await this.inner.fdatasyncAsync(handle);
    this.#credit(handle, covered);
  }

  #credit(handle: FileHandle, covered: number | undefined): void {
    const file = this.#files.get(handle);
    if (file === undefined || covered === undefined) return;
    file.durable = Math.max(file.durable, covered);
  }
}
