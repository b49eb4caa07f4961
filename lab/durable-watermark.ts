/**
 * A FileIO that knows how many written records are durable: it counts the records in each write,
 * as its `recordsIn` says (a write to a `.log` segment carries one record, or under group commit
 * several, and zero-filling a preallocated segment none) and, per file, how many of them a
 * *completed* fdatasync covers. The difference, read when a send is acknowledged,
 * is the loss window the durability policy leaves: acknowledged messages a power failure could
 * still take. It is zero for `always` and `group` by their definition; this measures it instead
 * of assuming it.
 *
 * An fdatasync covers the writes issued before it started, so the count is taken at the start
 * and credited when the sync returns. Everything else is delegated unchanged, counters included.
 */
import type { FileHandle, FileIO } from '../storage/file-io.js';
import { HandleTaggingFileIO } from '../storage/handle-tagging-file-io.js';

interface WatchedFile {
  issued: number;
  durable: number;
}

/** How many records the write of `length` bytes from `buffer` at `bufferStart` to `filePath` holds. */
export type RecordsIn = (
  filePath: string,
  buffer: Uint8Array,
  bufferStart: number,
  length: number,
) => number;

export class DurableWatermarkFileIO extends HandleTaggingFileIO<string> {
  readonly #recordsIn: RecordsIn;
  readonly #files = new Map<FileHandle, WatchedFile>();
  #closedIssued = 0;
  #closedDurable = 0;

  constructor(inner: FileIO, recordsIn: RecordsIn) {
    super(inner);
    this.#recordsIn = recordsIn;
  }

  /** Records written. */
  get recordsIssued(): number {
    let issued = this.#closedIssued;
    for (const file of this.#files.values()) issued += file.issued;
    return issued;
  }

  /** Records written that a completed fdatasync covers. */
  get recordsDurable(): number {
    let durable = this.#closedDurable;
    for (const file of this.#files.values()) durable += file.durable;
    return durable;
  }

  protected override tag(filePath: string): string {
    return filePath;
  }

  override close(handle: FileHandle): void {
    super.close(handle);
    const file = this.#files.get(handle);
    if (file === undefined) return;
    this.#closedIssued += file.issued;
    this.#closedDurable += file.durable;
    this.#files.delete(handle);
  }

  override write(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): void {
    this.inner.write(handle, buffer, bufferStart, length, positionBytes);
    const filePath = this.tagOf(handle);
    if (filePath === undefined) return;
    const records = this.#recordsIn(filePath, buffer, bufferStart, length);
    if (records === 0) return;
    const file = this.#files.get(handle);
    if (file === undefined) this.#files.set(handle, { issued: records, durable: 0 });
    else file.issued += records;
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
