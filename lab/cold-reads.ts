/**
 * Cold reads, with or without the right to drop the page cache. A cold figure means something
 * only if the page cache could not answer the reads, so a cold phase starts here:
 *
 * - `drop-caches`: root writes dirty pages back and empties the cache (page-cache.ts);
 * - `o-direct`: everyone else — or anyone who would rather not empty a shared machine's cache —
 *   reads around it. While a phase runs, a ColdReadFileIO turns the storage core's reads into
 *   O_DIRECT reads of whole 4 KiB pages, which the kernel serves from the device (after writing
 *   back any dirty pages of the range). The pages it fetched are kept for the rest of the phase,
 *   so the first touch of a page is cold and later touches are warm, as after a drop;
 * - neither: the phase is skipped and the results say plainly why.
 *
 * Where O_DIRECT differs from a dropped cache (the results notes repeat it): there is no
 * readahead, so a cold scan fetches exactly the pages it reads; and the file system's own
 * metadata (inodes, extent trees) stays cached, so a cold read pays the data read and nothing else.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assert, ioError } from '../storage/errors.js';
import type { FileHandle, FileIO } from '../storage/io/file-io.js';
import { NodeFileIO } from '../storage/io/node-file-io.js';
import { HandleTaggingFileIO } from '../storage/io/handle-tagging-file-io.js';
import { ALIGNMENT_SEARCH_BYTES, errorCode, findAlignedStart } from './probes/direct-io.js';
import { type DropOptions, dropPageCache, flushDirtyPages } from './probes/page-cache.js';

export const COLD_READ_MODES = ['auto', 'drop-caches', 'o-direct', 'off'] as const;
/** What `--cold-reads` accepts; `auto` drops the cache when allowed, else reads with O_DIRECT. */
export type ColdReadMode = (typeof COLD_READ_MODES)[number];
export type ColdReadMethod = 'drop-caches' | 'o-direct';

const UNAVAILABLE = 'cold-cache figures are unavailable';
/** The unit a buffered cold read fetches at least, and what direct reads are widened to. */
const PAGE_BYTES = 4096;
/** Largest single direct read: a scan's 256 KiB window and more. */
const SCRATCH_BYTES = 1 << 20;
const PROBE_FILE = '.loglab-direct-probe';

interface Scratch {
  readonly buffer: Buffer;
  /** The first offset into `buffer` the kernel accepts for O_DIRECT. */
  readonly start: number;
}

/** Pages fetched with O_DIRECT during the phase, by page number; a short last page is EOF. */
type PageMap = Map<number, Buffer>;

/** A scratch buffer with a start O_DIRECT accepts, or why there is none on `dir`'s file system. */
function alignedScratch(dir: string): Scratch | string {
  const { O_DIRECT, O_RDONLY } = fs.constants;
  if (O_DIRECT === undefined) return 'this platform has no O_DIRECT';
  const buffer = Buffer.alloc(SCRATCH_BYTES + ALIGNMENT_SEARCH_BYTES);
  const probe = path.join(dir, PROBE_FILE);
  try {
    fs.writeFileSync(probe, buffer.subarray(0, PAGE_BYTES));
    const fd = fs.openSync(probe, O_RDONLY | O_DIRECT);
    try {
      const start = findAlignedStart(buffer, (bufferStart) =>
        fs.readSync(fd, buffer, bufferStart, PAGE_BYTES, 0),
      );
      if (start === null)
        return `no buffer start within ${ALIGNMENT_SEARCH_BYTES} bytes was accepted`;
      return { buffer, start };
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    return `O_DIRECT reads failed in ${dir} (${errorCode(error)})`;
  } finally {
    fs.rmSync(probe, { force: true });
  }
}

/**
 * A FileIO whose reads can be switched to O_DIRECT for a cold phase. Outside one it adds nothing
 * but a map from handle to path. The logical bytes read are counted as usual; the pages the
 * device supplied are counted apart (`deviceReadBytes`). Writes go through the page cache as
 * always, and the fetched pages they touch are dropped, so a read after them sees them.
 */
export class ColdReadFileIO extends HandleTaggingFileIO<string> {
  readonly #directFds = new Map<FileHandle, number>();
  readonly #pages = new Map<FileHandle, PageMap>();
  #scratch: Scratch | null = null;
  #deviceReadBytes = 0;

  constructor(inner: FileIO = new NodeFileIO()) {
    super(inner);
  }

  get direct(): boolean {
    return this.#scratch !== null;
  }

  /** Bytes fetched with O_DIRECT since this FileIO was made: whole pages, short only at EOF. */
  get deviceReadBytes(): number {
    return this.#deviceReadBytes;
  }

  protected override tag(filePath: string): string {
    return filePath;
  }

  override close(handle: FileHandle): void {
    this.#forget(handle);
    super.close(handle);
  }

  /**
   * Starts a cold phase: reads go to the device from now on. The scratch buffer's aligned start
   * is found with a probe file in `probeDir`, on the data's file system. Null, or why not.
   */
  startDirect(probeDir: string): string | null {
    if (this.#scratch !== null) return null;
    const scratch = alignedScratch(probeDir);
    if (typeof scratch === 'string') return scratch;
    this.#scratch = scratch;
    return null;
  }

  /** Ends the cold phase: reads go through the page cache again; fetched pages are dropped. */
  stopDirect(): void {
    for (const handle of [...this.#directFds.keys()]) this.#forget(handle);
    this.#pages.clear();
    this.#scratch = null;
  }

  /** Writes through the page cache as usual; during a cold phase the pages it touches are refetched. */
  override write(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): void {
    super.write(handle, buffer, bufferStart, length, positionBytes);
    const pages = this.#pages.get(handle);
    if (pages === undefined || length === 0) return;
    const last = Math.floor((positionBytes + length - 1) / PAGE_BYTES);
    for (let page = Math.floor(positionBytes / PAGE_BYTES); page <= last; page++)
      pages.delete(page);
    // A short last page (the old end of the file) no longer is one.
    for (const [page, bytes] of pages) if (bytes.length < PAGE_BYTES) pages.delete(page);
  }

  /** The whole file with O_DIRECT during a cold phase (how index files are loaded). */
  override readWholeFile(filePath: string): Buffer | null {
    const scratch = this.#scratch;
    if (scratch === null) return super.readWholeFile(filePath);
    let fd: number;
    try {
      fd = fs.openSync(filePath, fs.constants.O_RDONLY | (fs.constants.O_DIRECT ?? 0));
    } catch (cause) {
      if (errorCode(cause) === 'ENOENT') return null;
      throw ioError('open (O_DIRECT)', filePath, cause);
    }
    try {
      const chunks: Buffer[] = [];
      for (let at = 0; ; at += SCRATCH_BYTES) {
        const got = fs.readSync(fd, scratch.buffer, scratch.start, SCRATCH_BYTES, at);
        this.#deviceReadBytes += got;
        chunks.push(Buffer.from(scratch.buffer.subarray(scratch.start, scratch.start + got)));
        if (got < SCRATCH_BYTES) return Buffer.concat(chunks);
      }
    } catch (cause) {
      throw ioError('read (O_DIRECT)', filePath, cause);
    } finally {
      fs.closeSync(fd);
    }
  }

  override read(
    handle: FileHandle,
    buffer: Uint8Array,
    bufferStart: number,
    length: number,
    positionBytes: number,
  ): number {
    if (this.#scratch === null)
      return super.read(handle, buffer, bufferStart, length, positionBytes);
    const pages = this.#pagesOf(handle);
    const lastPage = Math.floor((positionBytes + length - 1) / PAGE_BYTES);
    let done = 0;
    while (done < length) {
      const at = positionBytes + done;
      const pageNumber = Math.floor(at / PAGE_BYTES);
      const page = pages.get(pageNumber) ?? this.#fetch(handle, pages, pageNumber, lastPage);
      const inPage = at - pageNumber * PAGE_BYTES;
      if (page.length <= inPage) break;
      const copied = Math.min(page.length - inPage, length - done);
      page.copy(buffer, bufferStart + done, inPage, inPage + copied);
      done += copied;
      if (page.length < PAGE_BYTES) break;
    }
    this.counters.readCalls++;
    this.counters.readBytes += done;
    return done;
  }

  #forget(handle: FileHandle): void {
    const fd = this.#directFds.get(handle);
    this.#directFds.delete(handle);
    this.#pages.delete(handle);
    if (fd !== undefined) fs.closeSync(fd);
  }

  #pagesOf(handle: FileHandle): PageMap {
    let pages = this.#pages.get(handle);
    if (pages === undefined) this.#pages.set(handle, (pages = new Map()));
    return pages;
  }

  #directFd(handle: FileHandle): number {
    const filePath = this.tagOf(handle);
    assert(filePath !== undefined, `handle ${handle} was opened through this FileIO`);
    let fd = this.#directFds.get(handle);
    if (fd === undefined) {
      try {
        fd = fs.openSync(filePath, fs.constants.O_RDONLY | (fs.constants.O_DIRECT ?? 0));
      } catch (cause) {
        throw ioError('open (O_DIRECT)', filePath, cause);
      }
      this.#directFds.set(handle, fd);
    }
    return fd;
  }

  /** One direct read of the run of missing pages from `first` (at most to `last`); returns `first`. */
  #fetch(handle: FileHandle, pages: PageMap, first: number, last: number): Buffer {
    const scratch = this.#scratch as Scratch;
    let end = first + 1;
    while (end <= last && !pages.has(end) && (end - first) * PAGE_BYTES < SCRATCH_BYTES) end++;
    const fd = this.#directFd(handle);
    let got: number;
    try {
      got = fs.readSync(
        fd,
        scratch.buffer,
        scratch.start,
        (end - first) * PAGE_BYTES,
        first * PAGE_BYTES,
      );
    } catch (cause) {
      throw ioError('read (O_DIRECT)', this.tagOf(handle) ?? String(handle), cause);
    }
    this.#deviceReadBytes += got;
    // One copy out of the scratch buffer per fetch; the pages are views of it.
    const fetched = Buffer.from(scratch.buffer.subarray(scratch.start, scratch.start + got));
    for (let page = first; page < end; page++) {
      const from = (page - first) * PAGE_BYTES;
      const to = Math.min(from + PAGE_BYTES, got);
      pages.set(page, fetched.subarray(from, Math.max(from, to)));
      if (to - from < PAGE_BYTES) break;
    }
    return pages.get(first) as Buffer;
  }
}

export type ColdReads =
  | { readonly method: ColdReadMethod; readonly note: string; end(): void }
  | { readonly method: null; readonly reason: string };

export interface ColdReadOptions extends DropOptions {
  readonly mode?: ColdReadMode;
}

const DROPPED_NOTE =
  'cold reads followed a page-cache drop (sync, then 3 into /proc/sys/vm/drop_caches)';
const DIRECT_NOTE =
  'cold reads used O_DIRECT: each fetched whole 4 KiB pages from the device, ' +
  "without readahead, while the file system's metadata stayed cached; a page fetched once was " +
  'served from memory for the rest of its phase, as after a drop';

function directReads(ios: readonly ColdReadFileIO[], probeDir: string, note: string): ColdReads {
  // A direct read of a range with dirty pages writes them back first, inside the timed read:
  // write everything back now, as a drop does. Should `sync` fail, the reads stay correct.
  flushDirtyPages();
  for (const io of ios) {
    const refused = io.startDirect(probeDir);
    if (refused !== null) {
      for (const started of ios) started.stopDirect();
      return { method: null, reason: refused };
    }
  }
  return { method: 'o-direct', note, end: () => ios.forEach((io) => io.stopDirect()) };
}

/**
 * Makes the following reads through `ios` cold, by the first method `mode` allows that works
 * here; `note` says how, for the results. `end()` closes the phase (it turns O_DIRECT reads off
 * again). When nothing works, the reason says what was tried and that the cold figures are
 * unavailable; the run goes on.
 */
export function startColdReads(
  ios: readonly ColdReadFileIO[],
  probeDir: string,
  options: ColdReadOptions = {},
): ColdReads {
  const mode = options.mode ?? 'auto';
  if (mode === 'off') {
    return {
      method: null,
      reason: `cold reads were turned off (--cold-reads off); ${UNAVAILABLE}`,
    };
  }
  if (mode === 'o-direct') return withSuffix(directReads(ios, probeDir, DIRECT_NOTE), null);
  const dropped = dropPageCache(options);
  if (dropped.dropped) return { method: 'drop-caches', note: DROPPED_NOTE, end: () => undefined };
  if (mode === 'drop-caches') return { method: null, reason: `${dropped.reason}; ${UNAVAILABLE}` };
  const note = `the page cache could not be dropped (${dropped.reason}), so ${DIRECT_NOTE}`;
  return withSuffix(directReads(ios, probeDir, note), dropped.reason);
}

function withSuffix(reads: ColdReads, dropRefused: string | null): ColdReads {
  if (reads.method !== null) return reads;
  const tried = dropRefused === null ? reads.reason : `${dropRefused}, and ${reads.reason}`;
  return { method: null, reason: `${tried}; ${UNAVAILABLE}` };
}
