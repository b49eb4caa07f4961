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
 * and credited when the sync returns. Files are followed by path, not by handle: a log writing
 * directly (O_DIRECT) writes through one handle and syncs through another, and the sync covers
 * both. A direct write also starts at the block holding its first record, so it rewrites the
 * end of frames counted already: each file remembers where its counted frames end, and only the
 * bytes after that are offered to `recordsIn`. Everything else is delegated unchanged, counters
 * included.
 */
import type { FileHandle, FileIO } from '../storage/io/file-io.js';
import { HandleTaggingFileIO } from '../storage/io/handle-tagging-file-io.js';

interface WatchedFile {
  readonly path: string;
  issued: number;
  durable: number;
  /** Where the last frames counted in this file end: a write before it rewrites them. */
  framesEndBytes: number;
  /** Handles open to it: its counts move to the closed totals when the last one closes. */
  handles: number;
}

/** Records found at the start of a write's bytes, and how many bytes their whole frames take. */
export interface RecordsFound {
  readonly records: number;
  readonly bytes: number;
}

/** The records at the start of `length` bytes from `buffer` at `bufferStart`, written to `filePath`. */
export type RecordsIn = (
  filePath: string,
  buffer: Uint8Array,
  bufferStart: number,
  length: number,
) => RecordsFound;

export class DurableWatermarkFileIO extends HandleTaggingFileIO<string> {
  readonly #recordsIn: RecordsIn;
  readonly #files = new Map<string, WatchedFile>();
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
    const file = this.#files.get(filePath);
    if (file === undefined)
      this.#files.set(filePath, {
        path: filePath,
        issued: 0,
        durable: 0,
        framesEndBytes: 0,
        handles: 1,
      });
    else file.handles++;
    return filePath;
  }

  override close(handle: FileHandle): void {
    const file = this.#fileOf(handle);
    try {
      super.close(handle);
    } finally {
      this.#release(file);
    }
  }

  override closeAsync(handle: FileHandle): Promise<void> {
    const file = this.#fileOf(handle);
    const closing = super.closeAsync(handle);
    this.#release(file);
    return closing;
  }

  override write(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): void {
    this.inner.write(handle, buffer, bufferStart, length, positionBytes);
    const file = this.#fileOf(handle);
    if (file === undefined) return;
    const skip = Math.min(Math.max(file.framesEndBytes - positionBytes, 0), length);
    const found = this.#recordsIn(file.path, buffer, bufferStart + skip, length - skip);
    if (found.records === 0) return;
    file.issued += found.records;
    file.framesEndBytes = positionBytes + skip + found.bytes;
  }

  override truncate(handle: FileHandle, sizeBytes: number): void {
    this.inner.truncate(handle, sizeBytes);
    const file = this.#fileOf(handle);
    if (file !== undefined) file.framesEndBytes = Math.min(file.framesEndBytes, sizeBytes);
  }

  override fdatasync(handle: FileHandle): void {
    const file = this.#fileOf(handle);
    const covered = file?.issued;
    this.inner.fdatasync(handle);
    this.#credit(file, covered);
  }

  override async fdatasyncAsync(handle: FileHandle): Promise<void> {
    const file = this.#fileOf(handle);
    const covered = file?.issued;
    await this.inner.fdatasyncAsync(handle);
    this.#credit(file, covered);
  }

  #fileOf(handle: FileHandle): WatchedFile | undefined {
    const filePath = this.tagOf(handle);
    return filePath === undefined ? undefined : this.#files.get(filePath);
  }

  #credit(file: WatchedFile | undefined, covered: number | undefined): void {
    if (file === undefined || covered === undefined || covered <= file.durable) return;
    // A file whose last handle closed while the sync ran is in the closed totals already.
    if (file.handles === 0) this.#closedDurable += covered - file.durable;
    file.durable = covered;
  }

  #release(file: WatchedFile | undefined): void {
    if (file === undefined || --file.handles > 0) return;
    this.#closedIssued += file.issued;
    this.#closedDurable += file.durable;
    this.#files.delete(file.path);
  }
}
