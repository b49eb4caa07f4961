/**
 * I/O accounting for one measured phase: what the process asked for (/proc/self/io), what reached
 * the disk (/sys/block/<disk>/stat), and what the storage core did (its FileIO counters, so fsyncs
 * per message are counted, not guessed).
 *
 * Read the figures with their limits in mind:
 * - /proc/self/io covers the whole process, libuv's thread pool included. `write_bytes` is charged
 *   when a page is dirtied, in whole pages, and `cancelled_write_bytes` when a dirty page is
 *   truncated away before it is written; `read_bytes` counts only reads the block layer served.
 *   `rchar` much larger than `read_bytes` proves reads were served from the page cache.
 * - The disk's counters cover every process using that disk, and writes the page cache holds back
 *   reach it later; `sync` before closing a phase when the bytes must all be counted.
 */
import * as fs from 'node:fs';
import type { FileIOCounters } from '../storage/io/file-io.js';
import { assert } from '../storage/errors.js';
import { readDirtyMemory } from './probes/meminfo.js';
import {
  type BlockDevice,
  type BlockStat,
  STAT_SECTOR_BYTES,
  diffBlockStat,
  readBlockStat,
} from './probes/block-device.js';

/** /proc/[pid]/io (proc(5)), renamed with units. */
export interface ProcIo {
  /** Bytes passed to read-like syscalls, cache hits included. */
  readonly rcharBytes: number;
  /** Bytes passed to write-like syscalls. */
  readonly wcharBytes: number;
  readonly readSyscalls: number;
  readonly writeSyscalls: number;
  /** Bytes fetched from the block layer. */
  readonly readBytes: number;
  /** Bytes of page cache this process dirtied (charged in whole pages). */
  readonly writeBytes: number;
  readonly cancelledWriteBytes: number;
}

const PROC_IO_FIELDS: Readonly<Record<string, keyof ProcIo>> = {
  rchar: 'rcharBytes',
  wchar: 'wcharBytes',
  syscr: 'readSyscalls',
  syscw: 'writeSyscalls',
  read_bytes: 'readBytes',
  write_bytes: 'writeBytes',
  cancelled_write_bytes: 'cancelledWriteBytes',
};

/** The process's I/O counters, or null where /proc/self/io does not exist or is not readable. */
export function readProcIo(file = '/proc/self/io'): ProcIo | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const io: Record<keyof ProcIo, number> = {
    rcharBytes: 0,
    wcharBytes: 0,
    readSyscalls: 0,
    writeSyscalls: 0,
    readBytes: 0,
    writeBytes: 0,
    cancelledWriteBytes: 0,
  };
  let seen = 0;
  for (const line of text.split('\n')) {
    const [key, value] = line.split(':');
    const field = key === undefined ? undefined : PROC_IO_FIELDS[key.trim()];
    if (field === undefined || value === undefined) continue;
    io[field] = Number(value.trim());
    seen++;
  }
  return seen === Object.keys(PROC_IO_FIELDS).length ? io : null;
}

function diffProcIo(before: ProcIo, after: ProcIo): ProcIo {
  return {
    rcharBytes: after.rcharBytes - before.rcharBytes,
    wcharBytes: after.wcharBytes - before.wcharBytes,
    readSyscalls: after.readSyscalls - before.readSyscalls,
    writeSyscalls: after.writeSyscalls - before.writeSyscalls,
    readBytes: after.readBytes - before.readBytes,
    writeBytes: after.writeBytes - before.writeBytes,
    cancelledWriteBytes: after.cancelledWriteBytes - before.cancelledWriteBytes,
  };
}

/** What the disks under the directory did during the phase, summed over them. */
export interface DeviceIo {
  readonly disks: readonly string[];
  readonly readIos: number;
  readonly readBytes: number;
  readonly writeIos: number;
  readonly writeBytes: number;
  readonly flushIos: number;
  readonly discardBytes: number;
  /** Time the disks had I/O in flight, ms (io_ticks). */
  readonly busyMs: number;
  /** Sum over requests of their time in the queue, ms (time_in_queue). */
  readonly timeInQueueMs: number;
}

export interface PhaseIo {
  readonly elapsedNs: number;
  /** Null where /proc/self/io is not available. */
  readonly proc: ProcIo | null;
  /** Null when the directory has no block device, or its counters cannot be read. */
  readonly device: DeviceIo | null;
  /** Null when no FileIO was handed in. */
  readonly fileIo: FileIOCounters | null;
  /**
   * Dirty and under-writeback page-cache bytes, machine-wide, when the phase began: what the
   * kernel may write during the phase whoever dirtied it (our earlier phases among them).
   */
  readonly pendingAtStartBytes?: number | null;
}

function sumDeviceIo(disks: readonly string[], deltas: readonly BlockStat[]): DeviceIo {
  const sum = (pick: (stat: BlockStat) => number) =>
    deltas.reduce((total, stat) => total + pick(stat), 0);
  return {
    disks,
    readIos: sum((stat) => stat.readIos),
    readBytes: sum((stat) => stat.readSectors) * STAT_SECTOR_BYTES,
    writeIos: sum((stat) => stat.writeIos),
    writeBytes: sum((stat) => stat.writeSectors) * STAT_SECTOR_BYTES,
    flushIos: sum((stat) => stat.flushIos),
    discardBytes: sum((stat) => stat.discardSectors) * STAT_SECTOR_BYTES,
    busyMs: sum((stat) => stat.ioTicksMs),
    timeInQueueMs: sum((stat) => stat.timeInQueueMs),
  };
}

function readDisks(disks: readonly string[], sysRoot: string): BlockStat[] | null {
  const stats: BlockStat[] = [];
  for (const disk of disks) {
    const stat = readBlockStat(disk, sysRoot);
    if (stat === null) return null;
    stats.push(stat);
  }
  return stats;
}

function diffCounters(before: FileIOCounters, after: FileIOCounters): FileIOCounters {
  return {
    writeCalls: after.writeCalls - before.writeCalls,
    writeBytes: after.writeBytes - before.writeBytes,
    readCalls: after.readCalls - before.readCalls,
    readBytes: after.readBytes - before.readBytes,
    fdatasyncCalls: after.fdatasyncCalls - before.fdatasyncCalls,
    dirFsyncCalls: after.dirFsyncCalls - before.dirFsyncCalls,
  };
}

export interface IoPhaseOptions {
  /** The device under `--dir` (resolveBlockDevice); null counts no device I/O. */
  readonly device: BlockDevice | null;
  /** The storage core's FileIO, whose counters give exact syscall and fsync counts. */
  readonly fileIo?: { readonly counters: FileIOCounters };
  readonly sysRoot?: string;
  readonly procIoFile?: string;
  readonly meminfoFile?: string;
  /** Told every phase's deltas as it ends (the context checks whether the disk was shared). */
  readonly onEnd?: (phase: PhaseIo) => void;
}

/** Counters at the start of a phase; `end()` returns the deltas. */
export class IoPhase {
  readonly #options: IoPhaseOptions;
  readonly #startNs: bigint;
  readonly #proc: ProcIo | null;
  readonly #disks: BlockStat[] | null;
  readonly #fileIo: FileIOCounters | null;
  readonly #pendingAtStartBytes: number | null;
  #ended = false;

  private constructor(options: IoPhaseOptions) {
    this.#options = options;
    const dirty = readDirtyMemory(options.meminfoFile);
    this.#pendingAtStartBytes = dirty === null ? null : dirty.dirtyBytes + dirty.writebackBytes;
    this.#fileIo = options.fileIo === undefined ? null : { ...options.fileIo.counters };
    this.#proc = readProcIo(options.procIoFile);
    const sysRoot = options.sysRoot ?? '/sys';
    this.#disks = options.device === null ? null : readDisks(options.device.disks, sysRoot);
    this.#startNs = process.hrtime.bigint();
  }

  static start(options: IoPhaseOptions): IoPhase {
    return new IoPhase(options);
  }

  end(): PhaseIo {
    assert(!this.#ended, 'an I/O phase can be ended once');
    this.#ended = true;
    const elapsedNs = Number(process.hrtime.bigint() - this.#startNs);
    const device = this.#options.device;
    const procAfter = readProcIo(this.#options.procIoFile);
    const sysRoot = this.#options.sysRoot ?? '/sys';
    const disksAfter = device === null ? null : readDisks(device.disks, sysRoot);
    const disksBefore = this.#disks;
    const fileIo = this.#options.fileIo;
    const phase: PhaseIo = {
      elapsedNs,
      proc: this.#proc === null || procAfter === null ? null : diffProcIo(this.#proc, procAfter),
      device:
        device === null || disksBefore === null || disksAfter === null
          ? null
          : sumDeviceIo(
              device.disks,
              disksAfter.map((after, i) => diffBlockStat(disksBefore[i] ?? after, after)),
            ),
      fileIo:
        fileIo === undefined || this.#fileIo === null
          ? null
          : diffCounters(this.#fileIo, fileIo.counters),
      pendingAtStartBytes: this.#pendingAtStartBytes,
    };
    this.#options.onEnd?.(phase);
    return phase;
  }
}

/** Flat counters for a results document, each name prefixed (`A.always.device.writeBytes`). */
export function phaseCounters(phase: PhaseIo, prefix: string): Record<string, number> {
  const counters: Record<string, number> = {};
  const put = (group: string, values: object | null) => {
    if (values === null) return;
    for (const [key, value] of Object.entries(values)) {
      if (typeof value === 'number') counters[`${prefix}.${group}.${key}`] = value;
    }
  };
  put('proc', phase.proc);
  put('device', phase.device);
  put('fileIo', phase.fileIo);
  return counters;
}

/** Per-message figures of a phase that handled `messages` messages; absent sources are left out. */
export function perMessage(phase: PhaseIo, messages: number): Record<string, number> {
  assert(Number.isSafeInteger(messages), `messages must be an integer: ${messages}`);
  assert(messages > 0, `messages must be positive: ${messages}`);
  const figures: Record<string, number> = {};
  if (phase.device !== null) {
    figures.deviceWriteBytesPerMsg = phase.device.writeBytes / messages;
    figures.deviceWriteIosPerMsg = phase.device.writeIos / messages;
    figures.deviceFlushIosPerMsg = phase.device.flushIos / messages;
    figures.deviceReadBytesPerMsg = phase.device.readBytes / messages;
  }
  if (phase.proc !== null) {
    figures.wcharBytesPerMsg = phase.proc.wcharBytes / messages;
    figures.dirtiedBytesPerMsg = phase.proc.writeBytes / messages;
    figures.writeSyscallsPerMsg = phase.proc.writeSyscalls / messages;
  }
  if (phase.fileIo !== null) {
    figures.writeCallsPerMsg = phase.fileIo.writeCalls / messages;
    figures.fdatasyncCallsPerMsg = phase.fileIo.fdatasyncCalls / messages;
    figures.dirFsyncCallsPerMsg = phase.fileIo.dirFsyncCalls / messages;
  }
  return figures;
}

export interface PageCacheProof {
  /** Bytes the process read through syscalls. */
  readonly logicalReadBytes: number;
  /** Bytes of those the block layer had to fetch. */
  readonly deviceReadBytes: number;
  /** 1 - deviceReadBytes / logicalReadBytes, clamped to [0, 1] (readahead can fetch more). */
  readonly servedFromMemoryFraction: number;
}

/** rchar against read_bytes: how much of what the phase read came from memory. */
export function pageCacheProof(phase: PhaseIo): PageCacheProof | null {
  if (phase.proc === null || phase.proc.rcharBytes === 0) return null;
  const fraction = 1 - phase.proc.readBytes / phase.proc.rcharBytes;
  return {
    logicalReadBytes: phase.proc.rcharBytes,
    deviceReadBytes: phase.proc.readBytes,
    servedFromMemoryFraction: Math.min(1, Math.max(0, fraction)),
  };
}
