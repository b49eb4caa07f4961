/**
 * The byte ledger of a synced append: the bytes a disk wrote during a stretch of a log's work,
 * split into named causes, every byte of the device's total in exactly one row.
 *
 *   record page          the first 4 KiB block each sync of a segment's .log writes for its records
 *   record next page     the log's further blocks in that sync: a record crossing a block boundary
 *   preallocation        zeros laid ahead of the appends in the .log, or into the spare laid out
 *                        for the next segment (spare-segment.layout), and synced
 *   offset index         the segment's .index
 *   time index           the segment's .timeindex
 *   recovery point       recovery-point (written as recovery-point.tmp, then renamed)
 *   queue head           a log queue's head checkpoint (head, written the same way)
 *   other files          writes to any other file the trace saw
 *   metadata             the device's total less everything above: inode and extent updates,
 *                        directory entries, the journal, write-back the trace cannot see, and
 *                        other programs' writes to the same disk
 *
 * Every row but the last is counted from the write trace the way trace-blocks.ts counts the
 * data share: a block a write touches is dirty until a sync of its file writes it, once however
 * often it was rewritten meanwhile, and what is still dirty when the stretch ends is written
 * then. A block two causes dirtied before one sync is charged to the first. The stretch must
 * start with the traced files clean (the caller synced them), and end with them synced.
 *
 * Zeros are told from records by the log's one rule, not by content (the trace keeps none):
 * records are never overwritten. In a run of writes to a .log, each starting where the one
 * before it ended, every write that ends after the start of the next write to that file outside
 * the run was written again, so it was zeros laid ahead (segment.ts `preallocate`: the append
 * that needed the extent always writes into its first chunk). A reused segment file, whose
 * records overwrite an older segment's without zeros, reads as records.
 */
import * as path from 'node:path';
import { assert } from '../../storage/errors.js';
import {
  HEAD_CHECKPOINT_FILE,
  RECOVERY_POINT_FILE,
  INDEX_SUFFIX,
  LOG_SUFFIX,
  SPARE_LAYOUT_FILE,
  TIME_INDEX_SUFFIX,
} from '../../storage/segments/segment-files.js';
import { formatNumber } from '../format.js';
import {
  TRACE_DIRECT_WRITE,
  TRACE_DIR_SYNC,
  TRACE_SYNC,
  TRACE_WRITE,
  type WriteTrace,
} from './trace-io.js';

/** The causes the trace explains, in the order a ledger lists them. */
export const TRACED_CAUSES = [
  'recordPage',
  'recordNextPage',
  'recordBlocks',
  'preallocation',
  'offsetIndex',
  'timeIndex',
  'recoveryPoint',
  'queueHead',
  'otherFiles',
] as const;
export type TracedCause = (typeof TRACED_CAUSES)[number];
/** The device's total less every traced cause. */
export const METADATA_CAUSE = 'metadata';
export type LedgerCause = TracedCause | typeof METADATA_CAUSE;

/** Causes listed only when the trace saw them: a plain log writes neither. */
const LISTED_WHEN_SEEN: readonly TracedCause[] = ['recordBlocks', 'queueHead', 'otherFiles'];

export const CAUSE_TITLES: Readonly<Record<LedgerCause, string>> = {
  recordPage: 'record page (the 4 KiB block each sync of the .log writes for its records)',
  recordNextPage:
    "record next page (the .log's further blocks in the same sync: a record " +
    'crossing a block boundary)',
  recordBlocks:
    'record blocks written directly (the 512-byte blocks each direct write of the .log ' +
    'carries: its records, the data before them in their first block, zeros to the end)',
  preallocation:
    "preallocation zero-fill (the segment's zeros laid ahead of the appends or into the " +
    'spare laid out for it, amortised per message)',
  offsetIndex: 'offset index (.index)',
  timeIndex: 'time index (.timeindex)',
  recoveryPoint: 'recovery point file (recovery-point.tmp, renamed)',
  queueHead: 'queue head checkpoint (head.tmp, renamed)',
  otherFiles: 'other files the program wrote',
  metadata: 'file-system metadata and journal (device total minus traced)',
};

/** The same causes in a few words, for headlines. */
export const CAUSE_NAMES: Readonly<Record<LedgerCause, string>> = {
  recordPage: 'record page',
  recordNextPage: 'next record page',
  recordBlocks: 'direct record blocks',
  preallocation: 'preallocation',
  offsetIndex: 'offset index',
  timeIndex: 'time index',
  recoveryPoint: 'recovery point',
  queueHead: 'queue head',
  otherFiles: 'other files',
  metadata: 'metadata and journal',
};

type FileKind =
  | 'log'
  | 'spareLayout'
  | 'offsetIndex'
  | 'timeIndex'
  | 'recoveryPoint'
  | 'queueHead'
  | 'otherFiles';

/** What a file is, by its name (storage/segments/segment-files.ts, the checkpoint files' names). */
export function fileKindOf(filePath: string): FileKind {
  const name = path.basename(filePath);
  const named = (file: string) => name === file || name === `${file}.tmp`;
  if (name.endsWith(LOG_SUFFIX)) return 'log';
  if (name === SPARE_LAYOUT_FILE) return 'spareLayout';
  if (name.endsWith(INDEX_SUFFIX)) return 'offsetIndex';
  if (name.endsWith(TIME_INDEX_SUFFIX)) return 'timeIndex';
  if (named(RECOVERY_POINT_FILE)) return 'recoveryPoint';
  if (named(HEAD_CHECKPOINT_FILE)) return 'queueHead';
  return 'otherFiles';
}

/** What a stretch of a trace explains: bytes by cause, and the syncs it issued. */
export interface TracedBytes {
  readonly bytes: Readonly<Record<TracedCause, number>>;
  readonly fdatasyncs: number;
  readonly dirFsyncs: number;
}

function zeroBytes(): Record<TracedCause, number> {
  return Object.fromEntries(TRACED_CAUSES.map((cause) => [cause, 0])) as Record<
    TracedCause,
    number
  >;
}

export function addTraced(a: TracedBytes, b: TracedBytes): TracedBytes {
  const bytes = zeroBytes();
  for (const cause of TRACED_CAUSES) bytes[cause] = a.bytes[cause] + b.bytes[cause];
  return { bytes, fdatasyncs: a.fdatasyncs + b.fdatasyncs, dirFsyncs: a.dirFsyncs + b.dirFsyncs };
}

export const NOTHING_TRACED: TracedBytes = { bytes: zeroBytes(), fdatasyncs: 0, dirFsyncs: 0 };

function checkStretch(trace: WriteTrace, fromEvent: number, toEvent: number): void {
  assert(Number.isSafeInteger(fromEvent), `fromEvent must be an integer: ${fromEvent}`);
  assert(fromEvent >= 0, `fromEvent must be >= 0: ${fromEvent}`);
  assert(toEvent >= fromEvent, `the stretch ends before it starts: ${fromEvent} to ${toEvent}`);
  assert(toEvent <= trace.length, `the trace has ${trace.length} events, not ${toEvent}`);
}

/** A run of contiguous writes to one .log: their event numbers, and where the run ends. */
interface Run {
  readonly events: number[];
  endBytes: number;
}

/**
 * Which writes of the stretch laid zeros ahead in a .log (the rule at the top of this file):
 * true at `event - fromEvent` for each of them.
 */
export function zeroFillWrites(trace: WriteTrace, fromEvent: number, toEvent: number): Uint8Array {
  checkStretch(trace, fromEvent, toEvent);
  const zeros = new Uint8Array(toEvent - fromEvent);
  const runs = new Map<number, Run>();
  const isLog = new Map<number, boolean>();
  for (let i = fromEvent; i < toEvent; i++) {
    const kind = trace.kindAt(i);
    if (kind !== TRACE_WRITE && kind !== TRACE_DIRECT_WRITE) continue;
    const file = trace.fileAt(i);
    let log = isLog.get(file);
    if (log === undefined) isLog.set(file, (log = fileKindOf(trace.files[file] ?? '') === 'log'));
    if (!log) continue;
    const startBytes = trace.positionBytesAt(i);
    const endBytes = startBytes + trace.lengthBytesAt(i);
    const run = runs.get(file);
    if (run !== undefined && startBytes === run.endBytes) {
      run.events.push(i);
      run.endBytes = endBytes;
      continue;
    }
    if (run !== undefined && startBytes < run.endBytes) {
      // A direct write rewrites the block before it: counted whole already, never zeros.
      const mark = (event: number) => {
        if (trace.kindAt(event) === TRACE_WRITE) zeros[event - fromEvent] = 1;
      };
      markOverwritten(trace, run, startBytes, mark);
    }
    runs.set(file, { events: [i], endBytes });
  }
  return zeros;
}

/**
 * The run's writes that start at or after `startBytes`, from the last back: written again, so
 * zeros. One that starts before it and ends after is a record write whose page fill
 * (storage/record/page-fill.ts) the next append writes over: records, not zeros.
 */
function markOverwritten(
  trace: WriteTrace,
  run: Run,
  startBytes: number,
  mark: (event: number) => void,
): void {
  for (let k = run.events.length - 1; k >= 0; k--) {
    const event = run.events[k] as number;
    const eventStart = trace.positionBytesAt(event);
    if (eventStart + trace.lengthBytesAt(event) <= startBytes) return;
    if (eventStart >= startBytes) mark(event);
  }
}

type BlockCause = Exclude<TracedCause, 'recordPage' | 'recordNextPage' | 'recordBlocks'> | 'record';

/** Dirty blocks by file, each with the cause that dirtied it first since the file's last sync. */
class DirtyBlocks {
  readonly #files = new Map<number, Map<number, BlockCause>>();
  readonly #blockBytes: number;
  readonly bytes = zeroBytes();

  constructor(blockBytes: number) {
    this.#blockBytes = blockBytes;
  }

  dirty(file: number, startBytes: number, lengthBytes: number, cause: BlockCause): void {
    if (lengthBytes === 0) return;
    let blocks = this.#files.get(file);
    if (blocks === undefined) this.#files.set(file, (blocks = new Map()));
    const first = Math.floor(startBytes / this.#blockBytes);
    const last = Math.ceil((startBytes + lengthBytes) / this.#blockBytes) - 1;
    for (let block = first; block <= last; block++) {
      if (!blocks.has(block)) blocks.set(block, cause);
    }
  }

  /** The file's dirty blocks reach the disk: one record page, the rest of its records' next. */
  write(file: number): void {
    const blocks = this.#files.get(file);
    if (blocks === undefined) return;
    this.#count(blocks.values());
    this.#files.delete(file);
  }

  /**
   * A direct write of `lengthBytes` at `startBytes`: the kernel first writes the dirty blocks it
   * covers (a preallocation's zeros not yet synced), then the write's own bytes go as they are.
   */
  writeDirect(file: number, startBytes: number, lengthBytes: number): void {
    const blocks = this.#files.get(file);
    if (blocks !== undefined) {
      const first = Math.floor(startBytes / this.#blockBytes);
      const last = Math.ceil((startBytes + lengthBytes) / this.#blockBytes) - 1;
      const covered: BlockCause[] = [];
      for (let block = first; block <= last; block++) {
        const cause = blocks.get(block);
        if (cause === undefined) continue;
        covered.push(cause);
        blocks.delete(block);
      }
      this.#count(covered);
    }
    this.bytes.recordBlocks += lengthBytes;
  }

  #count(causes: Iterable<BlockCause>): void {
    let recordBlocks = 0;
    for (const cause of causes) {
      if (cause === 'record') recordBlocks++;
      else this.bytes[cause] += this.#blockBytes;
    }
    if (recordBlocks > 0) {
      this.bytes.recordPage += this.#blockBytes;
      this.bytes.recordNextPage += (recordBlocks - 1) * this.#blockBytes;
    }
  }

  writeAll(): void {
    for (const file of [...this.#files.keys()]) this.write(file);
  }
}

/** A laid-out spare holds zeros only; a .log, zeros or records (the rule at the top). */
function blockCause(fileKind: FileKind, zero: boolean): BlockCause {
  if (fileKind === 'spareLayout') return 'preallocation';
  if (fileKind !== 'log') return fileKind;
  return zero ? 'preallocation' : 'record';
}

/** The bytes a stretch of a trace sent to the disk, by cause (the rules at the top). */
export function attributeTrace(
  trace: WriteTrace,
  fromEvent: number,
  toEvent: number,
  blockBytes: number,
): TracedBytes {
  assert(Number.isSafeInteger(blockBytes), `blockBytes must be an integer: ${blockBytes}`);
  assert(blockBytes > 0, `blockBytes must be positive: ${blockBytes}`);
  const zeros = zeroFillWrites(trace, fromEvent, toEvent);
  const kinds = trace.files.map(fileKindOf);
  const dirty = new DirtyBlocks(blockBytes);
  let fdatasyncs = 0;
  let dirFsyncs = 0;
  for (let i = fromEvent; i < toEvent; i++) {
    const kind = trace.kindAt(i);
    const file = trace.fileAt(i);
    if (kind === TRACE_WRITE) {
      const fileKind = kinds[file] ?? 'otherFiles';
      const cause = blockCause(fileKind, zeros[i - fromEvent] === 1);
      dirty.dirty(file, trace.positionBytesAt(i), trace.lengthBytesAt(i), cause);
    } else if (kind === TRACE_DIRECT_WRITE) {
      dirty.writeDirect(file, trace.positionBytesAt(i), trace.lengthBytesAt(i));
    } else if (kind === TRACE_SYNC) {
      fdatasyncs++;
      dirty.write(file);
    } else if (kind === TRACE_DIR_SYNC) {
      dirFsyncs++;
    }
  }
  dirty.writeAll();
  return { bytes: dirty.bytes, fdatasyncs, dirFsyncs };
}

export interface LedgerRow {
  readonly cause: LedgerCause;
  readonly title: string;
  readonly bytes: number;
  readonly bytesPerMsg: number;
}

export interface ByteLedger {
  readonly messages: number;
  /** What the disk wrote: the rows add up to it. */
  readonly deviceBytes: number;
  readonly deviceBytesPerMsg: number;
  readonly tracedBytes: number;
  /** Traced causes in TRACED_CAUSES order (queue head, other files: when seen), then metadata. */
  readonly rows: readonly LedgerRow[];
  readonly fdatasyncsPerMsg: number;
  readonly dirFsyncsPerMsg: number;
}

/**
 * The ledger of `messages` synced appends whose trace explains `traced` of the `deviceBytes` the
 * disk wrote meanwhile. The metadata row is the difference, kept even when negative (the trace
 * then claims more than the disk wrote, and the caller says so).
 */
export function byteLedger(traced: TracedBytes, deviceBytes: number, messages: number): ByteLedger {
  assert(Number.isSafeInteger(messages), `messages must be an integer: ${messages}`);
  assert(messages > 0, `a ledger needs messages: ${messages}`);
  assert(Number.isFinite(deviceBytes), `deviceBytes must be finite: ${deviceBytes}`);
  assert(deviceBytes >= 0, `deviceBytes must be >= 0: ${deviceBytes}`);
  const row = (cause: LedgerCause, bytes: number): LedgerRow => ({
    cause,
    title: CAUSE_TITLES[cause],
    bytes,
    bytesPerMsg: bytes / messages,
  });
  const seen = TRACED_CAUSES.filter(
    (cause) => !LISTED_WHEN_SEEN.includes(cause) || traced.bytes[cause] > 0,
  );
  const tracedBytes = TRACED_CAUSES.reduce((sum, cause) => sum + traced.bytes[cause], 0);
  return {
    messages,
    deviceBytes,
    deviceBytesPerMsg: deviceBytes / messages,
    tracedBytes,
    rows: [
      ...seen.map((cause) => row(cause, traced.bytes[cause])),
      row(METADATA_CAUSE, deviceBytes - tracedBytes),
    ],
    fdatasyncsPerMsg: traced.fdatasyncs / messages,
    dirFsyncsPerMsg: traced.dirFsyncs / messages,
  };
}

/** The row of `cause`, or 0 bytes when the ledger does not list it. */
export function rowBytesPerMsg(ledger: ByteLedger, cause: LedgerCause): number {
  return ledger.rows.find((row) => row.cause === cause)?.bytesPerMsg ?? 0;
}

/** One line for a results note: each row in bytes per message, and the total. */
export function describeLedger(ledger: ByteLedger): string {
  const rows = ledger.rows
    .map((row) => `${row.title} ${formatNumber(row.bytesPerMsg)} B`)
    .join('; ');
  return (
    `${rows}; total ${formatNumber(ledger.deviceBytesPerMsg)} B per message over ` +
    `${formatNumber(ledger.messages)} messages (${formatNumber(ledger.fdatasyncsPerMsg, 3)} ` +
    `fdatasyncs and ${formatNumber(ledger.dirFsyncsPerMsg, 4)} directory fsyncs per message)`
  );
}
