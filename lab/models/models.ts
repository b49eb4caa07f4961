/**
 * Disk models from datasheet figures: what a write costs on a spinning disk (seek, rotation,
 * transfer) and on a flash drive (per-I/O time at a queue depth, whole pages). They price the
 * course's arithmetic (course-arithmetic.ts) and the write trace of a real run (trace-estimate.ts),
 * so the puzzle can be reproduced on a machine without a hard disk. Assumptions and where the
 * models are known to be wrong: docs/models.md.
 *
 * Rates are in decimal bytes per second, as datasheets quote them (285 MB/s = 285,000,000 B/s).
 */
import { assert } from '../../storage/errors.js';

/** The unit the page cache writes and the drives' random-write figures use. */
export const PAGE_BYTES = 4096;
const MS_PER_SECOND = 1000;
const SECONDS_PER_MINUTE = 60;

export interface HddModel {
  readonly kind: 'hdd';
  readonly id: string;
  readonly name: string;
  readonly rpm: number;
  /** Average time to move the arm to a random track. */
  readonly averageSeekMs: number;
  /** Sequential transfer rate at the fastest (outer) tracks. */
  readonly sustainedBytesPerSec: number;
  /** Random 4 KiB writes per second with `queueDepth` writes waiting, from the datasheet. */
  readonly queuedRandomWrite: { readonly queueDepth: number; readonly iops: number };
  readonly pageBytes: number;
  /** The datasheet's own average rotational latency, printed beside the computed half turn. */
  readonly datasheetAverageLatencyMs: number | null;
  /** Where each figure comes from. */
  readonly sources: readonly string[];
}

export interface SsdModel {
  readonly kind: 'ssd';
  readonly id: string;
  readonly name: string;
  readonly sequentialWriteBytesPerSec: number;
  /** Random 4 KiB writes per second, one at a time. */
  readonly randomWriteIopsQd1: number;
  /** Random 4 KiB writes per second with 32 waiting. */
  readonly randomWriteIopsQd32: number;
  readonly pageBytes: number;
  readonly sources: readonly string[];
}

export type DiskModel = HddModel | SsdModel;

const EXOS_X20_RPM = 7200;
/**
 * Kafka's design documentation prices a seek plus the rotational wait at 10 ms, and the course
 * uses that figure. The Exos X20 datasheet gives no seek time, so the preset's seek is what is
 * left of those 10 ms after the half turn at 7,200 rpm.
 */
const KAFKA_SEEK_AND_WAIT_MS = 10;

export const EXOS_X20: HddModel = {
  kind: 'hdd',
  id: 'exos-x20',
  name: 'Seagate Exos X20 (7,200 rpm)',
  rpm: EXOS_X20_RPM,
  averageSeekMs: KAFKA_SEEK_AND_WAIT_MS - (SECONDS_PER_MINUTE * MS_PER_SECOND) / EXOS_X20_RPM / 2,
  sustainedBytesPerSec: 285_000_000,
  queuedRandomWrite: { queueDepth: 16, iops: 550 },
  pageBytes: PAGE_BYTES,
  datasheetAverageLatencyMs: 4.16,
  sources: [
    'Exos X20 datasheet: 7,200 rpm, average latency 4.16 ms, max sustained transfer 285 MB/s, ' +
      'random 4K QD16 write 550 IOPS',
    'seek: 10 ms seek + wait (Kafka design documentation, used by the course) minus the half turn',
  ],
};

export const SAMSUNG_990_PRO: SsdModel = {
  kind: 'ssd',
  id: '990-pro',
  name: 'Samsung 990 PRO',
  sequentialWriteBytesPerSec: 6_900_000_000,
  randomWriteIopsQd1: 80_000,
  randomWriteIopsQd32: 1_550_000,
  pageBytes: PAGE_BYTES,
  sources: [
    '990 PRO datasheet: sequential write 6,900 MB/s, random 4 KB write 80,000 IOPS at QD1 ' +
      'and 1,550,000 at QD32',
  ],
};

export const DISK_PRESETS: Readonly<Record<string, DiskModel>> = {
  [EXOS_X20.id]: EXOS_X20,
  [SAMSUNG_990_PRO.id]: SAMSUNG_990_PRO,
};

export function diskPreset(id: string): DiskModel | undefined {
  return DISK_PRESETS[id];
}

/** One full turn of the platter. */
export function rotationMs(model: HddModel): number {
  assert(model.rpm > 0, `rpm must be positive: ${model.rpm}`);
  return (SECONDS_PER_MINUTE * MS_PER_SECOND) / model.rpm;
}

/** The average wait for the wanted sector: half a turn. */
export function halfTurnMs(model: HddModel): number {
  return rotationMs(model) / 2;
}

/** Time to stream `bytes` at the drive's sequential rate. */
export function transferMs(model: DiskModel, bytes: number): number {
  assert(bytes >= 0, `bytes must be >= 0: ${bytes}`);
  const rate = model.kind === 'hdd' ? model.sustainedBytesPerSec : model.sequentialWriteBytesPerSec;
  return (bytes / rate) * MS_PER_SECOND;
}

/** One write of `bytes` at a random place, nothing else waiting: seek, half a turn, transfer. */
export function hddRandomWriteMs(model: HddModel, bytes: number): number {
  return model.averageSeekMs + halfTurnMs(model) + transferMs(model, bytes);
}

/** One random write with the queue full: the drive reorders, so each costs 1 / queued IOPS. */
export function hddQueuedRandomWriteMs(model: HddModel): number {
  return MS_PER_SECOND / model.queuedRandomWrite.iops;
}

/** One random page write on flash at queue depth 1 or 32. */
export function ssdRandomWriteMs(model: SsdModel, queueDepth: 1 | 32): number {
  return MS_PER_SECOND / (queueDepth === 1 ? model.randomWriteIopsQd1 : model.randomWriteIopsQd32);
}
