/**
 * A FileIO that records the write trace of a real run — which file, at which byte, how many
 * bytes, and where the syncs fell — so the disk models can estimate what the same run would cost
 * on a disk this machine does not have (models.ts, `estimateTrace`).
 *
 * Everything else is delegated unchanged, counters included. Events go into typed-array columns
 * that grow a chunk at a time, so recording costs no allocation per write and never copies what
 * is already recorded.
 */
import * as path from 'node:path';
import { assert } from '../../storage/errors.js';
import type { FileHandle } from '../../storage/io/file-io.js';
import { HandleTaggingFileIO } from '../../storage/io/handle-tagging-file-io.js';

export const TRACE_WRITE = 0;
/** fdatasync of one file: the writes to it before this point are durable after it. */
export const TRACE_SYNC = 1;
/** fsync of a directory: makes creations and renames in it durable. */
export const TRACE_DIR_SYNC = 2;
/**
 * A write through a direct handle (storage/io/direct-write.ts): its bytes went to the device as
 * written, not through the page cache.
 */
export const TRACE_DIRECT_WRITE = 3;
export type TraceKind =
  | typeof TRACE_WRITE
  | typeof TRACE_SYNC
  | typeof TRACE_DIR_SYNC
  | typeof TRACE_DIRECT_WRITE;

/** Events per chunk: 64 Ki events is 1.1 MiB of columns, allocated when the last one fills. */
const CHUNK_EVENTS = 65_536;

class TraceChunk {
  readonly kinds = new Uint8Array(CHUNK_EVENTS);
  readonly files = new Uint32Array(CHUNK_EVENTS);
  readonly positionsBytes = new Float64Array(CHUNK_EVENTS);
  readonly lengthsBytes = new Float64Array(CHUNK_EVENTS);
}

/** The recorded events, in the order they were issued. */
export class WriteTrace {
  /** File paths by id; an event's file is an index into this list. */
  readonly files: string[] = [];
  readonly #fileIds = new Map<string, number>();
  readonly #chunks: TraceChunk[] = [];
  #length = 0;

  get length(): number {
    return this.#length;
  }

  /** The id of `filePath`, registering it on first sight. */
  fileId(filePath: string): number {
    const known = this.#fileIds.get(filePath);
    if (known !== undefined) return known;
    const id = this.files.length;
    this.files.push(filePath);
    this.#fileIds.set(filePath, id);
    return id;
  }

  push(kind: TraceKind, fileId: number, positionBytes: number, lengthBytes: number): void {
    const slot = this.#length % CHUNK_EVENTS;
    if (slot === 0) this.#chunks.push(new TraceChunk());
    const chunk = this.#chunks[this.#chunks.length - 1] as TraceChunk;
    chunk.kinds[slot] = kind;
    chunk.files[slot] = fileId;
    chunk.positionsBytes[slot] = positionBytes;
    chunk.lengthsBytes[slot] = lengthBytes;
    this.#length++;
  }

  kindAt(index: number): TraceKind {
    return this.#chunk(index).kinds[index % CHUNK_EVENTS] as TraceKind;
  }

  fileAt(index: number): number {
    return this.#chunk(index).files[index % CHUNK_EVENTS] ?? 0;
  }

  positionBytesAt(index: number): number {
    return this.#chunk(index).positionsBytes[index % CHUNK_EVENTS] ?? 0;
  }

  lengthBytesAt(index: number): number {
    return this.#chunk(index).lengthsBytes[index % CHUNK_EVENTS] ?? 0;
  }

  #chunk(index: number): TraceChunk {
    assert(Number.isInteger(index), `trace index must be an integer: ${index}`);
    assert(index >= 0 && index < this.#length, `trace index out of range: ${index}`);
    return this.#chunks[Math.floor(index / CHUNK_EVENTS)] as TraceChunk;
  }
}

/** A handle's file in the trace, and whether it was opened for direct writes. */
interface TracedHandle {
  readonly file: number;
  readonly direct: boolean;
}

/** Delegates to `inner` and records every write, fdatasync and directory fsync in `trace`. */
export class TracingFileIO extends HandleTaggingFileIO<TracedHandle> {
  readonly trace = new WriteTrace();

  /** A handle is known by its file's id in the trace, and whether its writes are direct. */
  protected override tag(filePath: string, direct: boolean): TracedHandle {
    return { file: this.trace.fileId(path.resolve(filePath)), direct };
  }

  override write(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): void {
    const { file, direct } = this.#handle(handle);
    this.inner.write(handle, buffer, bufferStart, length, positionBytes);
    this.trace.push(direct ? TRACE_DIRECT_WRITE : TRACE_WRITE, file, positionBytes, length);
  }

  /** Recorded once written, as `write` is: a sync issued meanwhile does not cover it. */
  override async writeAsync(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): Promise<void> {
    const file = this.#fileOf(handle);
    await this.inner.writeAsync(handle, buffer, bufferStart, length, positionBytes);
    this.trace.push(TRACE_WRITE, file, positionBytes, length);
  }

  override fdatasync(handle: FileHandle): void {
    const file = this.#fileOf(handle);
    this.inner.fdatasync(handle);
    this.trace.push(TRACE_SYNC, file, 0, 0);
  }

  /** Recorded when issued: it covers the writes issued before it, not those made while it runs. */
  override fdatasyncAsync(handle: FileHandle): Promise<void> {
    this.trace.push(TRACE_SYNC, this.#fileOf(handle), 0, 0);
    return this.inner.fdatasyncAsync(handle);
  }

  override fsyncDir(dirPath: string): void {
    this.inner.fsyncDir(dirPath);
    this.trace.push(TRACE_DIR_SYNC, this.trace.fileId(path.resolve(dirPath)), 0, 0);
  }

  #fileOf(handle: FileHandle): number {
    return this.#handle(handle).file;
  }

  #handle(handle: FileHandle): TracedHandle {
    const traced = this.tagOf(handle);
    assert(traced !== undefined, `handle ${handle} was not opened through this TracingFileIO`);
    return traced;
  }
}
