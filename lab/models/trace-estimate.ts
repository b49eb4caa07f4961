/**
 * Trace-driven estimate: what the write trace of a real run (trace-io.ts) would cost on a modelled
 * disk, so the puzzle can be reproduced on a machine without a hard disk.
 *
 * The page cache is modelled as holding every write until a sync of its file (or the end of the
 * trace, where everything left is written back), in whole pages: rewrites of a page before it is
 * flushed cost nothing more. A flush writes the file's dirty pages in order, merged into extents;
 * each extent costs positioning plus transfer. Positioning depends on where the previous extent
 * ended and on whether other extents of the same flush are already queued at the drive:
 *
 *   continues it, same flush             → 0 (the disk streams)
 *   first of its flush, same file, at or just behind where the head stopped
 *                                        → HDD a full turn (the sector has just passed)
 *   first of its flush, same file, within a track
 *                                        → HDD half a turn
 *   first of its flush, anywhere else    → HDD seek + half a turn; SSD one QD1 write
 *   later in its flush                   → the queued figure (HDD 1 / QD16 IOPS, SSD 1 / QD32
 *                                          IOPS): the drive reorders what is outstanding
 *
 * A directory fsync costs one random page write (the journal commit). What the model leaves out
 * and where it is known to be wrong is in docs/models.md.
 */
import { assert } from '../../storage/errors.js';
import type { Labels } from '../metric.js';
import {
  type DiskModel,
  halfTurnMs,
  hddQueuedRandomWriteMs,
  hddRandomWriteMs,
  rotationMs,
  ssdRandomWriteMs,
  transferMs,
} from './models.js';
import type { Prediction } from '../results.js';
import { TRACE_DIR_SYNC, TRACE_SYNC, TRACE_WRITE, type WriteTrace } from './trace-io.js';

export interface TraceEstimate {
  /** `hdd:exos-x20`, `ssd:990-pro`: the `model` of a results prediction. */
  readonly model: string;
  readonly totalMs: number;
  readonly positioningMs: number;
  readonly transferMs: number;
  readonly writes: number;
  /** Writes that began where the previous write to the same file ended. */
  readonly sequentialWrites: number;
  readonly randomWrites: number;
  readonly syncs: number;
  readonly dirSyncs: number;
  /** Contiguous runs of pages written to the disk. */
  readonly flushedExtents: number;
  /** Bytes the program wrote. */
  readonly dataBytes: number;
  /** Bytes that reach the disk: dirty pages, each counted once per flush. */
  readonly deviceBytes: number;
}

interface Head {
  file: number;
  startBytes: number;
  endBytes: number;
  /** Which flush wrote the extent the head stopped after. */
  flush: number;
}

class DiskClock {
  positioningMs = 0;
  transferMs = 0;
  flushedExtents = 0;
  deviceBytes = 0;
  #flush = 0;
  #positionedInFlush = 0;
  #head: Head | null = null;
  readonly #model: DiskModel;
  readonly #trackBytes: number;

  constructor(model: DiskModel) {
    this.#model = model;
    // What passes under the head in one turn: a hop shorter than this needs no seek.
    this.#trackBytes =
      model.kind === 'hdd' ? model.sustainedBytesPerSec * (rotationMs(model) / 1000) : 0;
  }

  beginFlush(): void {
    this.#flush++;
    this.#positionedInFlush = 0;
  }

  /** Writes one extent of whole pages. */
  writeExtent(file: number, startBytes: number, endBytes: number): void {
    this.positioningMs += this.#positioningMs(file, startBytes);
    const bytes = endBytes - startBytes;
    // An SSD's per-write time already covers its first page.
    const streamedBytes =
      this.#model.kind === 'ssd' && !this.#continues(file, startBytes)
        ? Math.max(0, bytes - this.#model.pageBytes)
        : bytes;
    this.transferMs += transferMs(this.#model, streamedBytes);
    this.flushedExtents++;
    this.deviceBytes += bytes;
    this.#head = { file, startBytes, endBytes, flush: this.#flush };
  }

  /** A journal commit: one page at a random place, in a flush of its own. */
  writeJournalPage(): void {
    this.beginFlush();
    this.positioningMs += this.#positioningMs(-1, 0);
    const model = this.#model;
    this.transferMs += model.kind === 'hdd' ? transferMs(model, model.pageBytes) : 0;
    this.flushedExtents++;
    this.deviceBytes += model.pageBytes;
    this.#head = null;
  }

  #continues(file: number, startBytes: number): boolean {
    const head = this.#head;
    if (head === null || head.file !== file) return false;
    return head.flush === this.#flush && head.endBytes === startBytes;
  }

  #positioningMs(file: number, startBytes: number): number {
    if (this.#continues(file, startBytes)) return 0;
    const head = this.#head;
    const model = this.#model;
    const first = this.#positionedInFlush === 0;
    this.#positionedInFlush++;
    if (model.kind === 'ssd') return ssdRandomWriteMs(model, first ? 1 : 32);
    if (!first) return hddQueuedRandomWriteMs(model);
    if (head === null || head.file !== file) return hddRandomWriteMs(model, 0);
    const revisit = startBytes <= head.endBytes && startBytes >= head.startBytes - this.#trackBytes;
    if (revisit) return rotationMs(model);
    if (Math.abs(startBytes - head.endBytes) <= this.#trackBytes) return halfTurnMs(model);
    return hddRandomWriteMs(model, 0);
  }
}

/** Dirty pages per file as [start, end) byte pairs, merged when flushed. */
class DirtyPages {
  readonly #pending = new Map<number, number[]>();
  readonly #pageBytes: number;

  constructor(pageBytes: number) {
    this.#pageBytes = pageBytes;
  }

  add(file: number, positionBytes: number, lengthBytes: number): void {
    const start = Math.floor(positionBytes / this.#pageBytes) * this.#pageBytes;
    const end = Math.ceil((positionBytes + lengthBytes) / this.#pageBytes) * this.#pageBytes;
    const extents = this.#pending.get(file);
    if (extents === undefined) this.#pending.set(file, [start, end]);
    else extents.push(start, end);
  }

  /** Removes and returns the file's dirty extents, sorted and merged. */
  take(file: number): Array<[number, number]> {
    const flat = this.#pending.get(file) ?? [];
    this.#pending.delete(file);
    const pairs: Array<[number, number]> = [];
    for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i] ?? 0, flat[i + 1] ?? 0]);
    pairs.sort((a, b) => a[0] - b[0]);
    const merged: Array<[number, number]> = [];
    for (const [start, end] of pairs) {
      const last = merged[merged.length - 1];
      if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
      else merged.push([start, end]);
    }
    return merged;
  }

  files(): number[] {
    return [...this.#pending.keys()].sort((a, b) => a - b);
  }
}

function flushFile(clock: DiskClock, dirty: DirtyPages, file: number): void {
  for (const [start, end] of dirty.take(file)) clock.writeExtent(file, start, end);
}

/** Estimates the time `trace` would take on `model`. */
export function estimateTrace(trace: WriteTrace, model: DiskModel): TraceEstimate {
  const clock = new DiskClock(model);
  const dirty = new DirtyPages(model.pageBytes);
  const lastEndBytes = new Map<number, number>();
  let writes = 0;
  let sequentialWrites = 0;
  let syncs = 0;
  let dirSyncs = 0;
  let dataBytes = 0;
  for (let i = 0; i < trace.length; i++) {
    const kind = trace.kindAt(i);
    const file = trace.fileAt(i);
    if (kind === TRACE_WRITE) {
      const positionBytes = trace.positionBytesAt(i);
      const lengthBytes = trace.lengthBytesAt(i);
      writes++;
      dataBytes += lengthBytes;
      if (lastEndBytes.get(file) === positionBytes) sequentialWrites++;
      lastEndBytes.set(file, positionBytes + lengthBytes);
      dirty.add(file, positionBytes, lengthBytes);
    } else if (kind === TRACE_SYNC) {
      syncs++;
      clock.beginFlush();
      flushFile(clock, dirty, file);
    } else {
      assert(kind === TRACE_DIR_SYNC, `unknown trace event kind ${kind}`);
      dirSyncs++;
      clock.writeJournalPage();
    }
  }
  // What no sync covered is written back at the end, all files in one pass.
  clock.beginFlush();
  for (const file of dirty.files()) flushFile(clock, dirty, file);
  return {
    model: `${model.kind}:${model.id}`,
    totalMs: clock.positioningMs + clock.transferMs,
    positioningMs: clock.positioningMs,
    transferMs: clock.transferMs,
    writes,
    sequentialWrites,
    randomWrites: writes - sequentialWrites,
    syncs,
    dirSyncs,
    flushedExtents: clock.flushedExtents,
    dataBytes,
    deviceBytes: clock.deviceBytes,
  };
}

/** Operations per second the estimate implies for a run that did `operations` of them. */
export function estimatedRatePerSec(estimate: TraceEstimate, operations: number): number {
  assert(operations > 0, `operations must be positive: ${operations}`);
  assert(estimate.totalMs > 0, 'the estimate took no time: the trace wrote nothing');
  return operations / (estimate.totalMs / 1000);
}

/** The estimate as a results prediction of `name`, in operations per second. */
export function estimatePrediction(
  name: string,
  estimate: TraceEstimate,
  operations: number,
  labels?: Labels,
): Prediction {
  const prediction: Prediction = {
    name,
    model: estimate.model,
    unit: 'ops/s',
    value: estimatedRatePerSec(estimate, operations),
    basis:
      `write trace of this run: ${estimate.writes} writes ` +
      `(${estimate.randomWrites} random), ` +
      `${estimate.syncs} syncs, ${estimate.deviceBytes} B to the disk; see docs/models.md`,
  };
  if (labels !== undefined) prediction.labels = { ...labels };
  return prediction;
}
