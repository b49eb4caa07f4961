/**
 * Which block device holds a directory, and that device's I/O counters.
 *
 * The directory's st_dev names a device number; `/sys/dev/block/MAJ:MIN` links to its sysfs
 * node. A partition's counters are a share of its disk's, and a device-mapper volume (LVM,
 * dm-crypt) has its own queue in front of one or more disks (`slaves/`), so both are followed down
 * to the whole disks whose queue settings and counters describe what the hardware did.
 * Filesystems with anonymous device numbers (btrfs subvolumes, overlayfs) are resolved through the
 * mount's source device instead; tmpfs has none and resolves to null.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findMount } from './mounts.js';

export interface BlockDevice {
  /** `MAJ:MIN` of the device the directory lives on. */
  readonly majorMinor: string;
  /** Kernel name of that device: `vda`, `sda1`, `nvme0n1p2`, `dm-0`. */
  readonly node: string;
  /** The whole disks under it, e.g. `['vda']`; several for a volume spread over disks. */
  readonly disks: readonly string[];
}

/** Fields of /sys/block/<disk>/stat (Documentation/block/stat.rst); sectors are 512 bytes. */
export interface BlockStat {
  readonly readIos: number;
  readonly readMerges: number;
  readonly readSectors: number;
  readonly readTicksMs: number;
  readonly writeIos: number;
  readonly writeMerges: number;
  readonly writeSectors: number;
  readonly writeTicksMs: number;
  readonly inFlight: number;
  readonly ioTicksMs: number;
  readonly timeInQueueMs: number;
  readonly discardIos: number;
  readonly discardMerges: number;
  readonly discardSectors: number;
  readonly discardTicksMs: number;
  readonly flushIos: number;
  readonly flushTicksMs: number;
}

const BLOCK_STAT_FIELDS = [
  'readIos',
  'readMerges',
  'readSectors',
  'readTicksMs',
  'writeIos',
  'writeMerges',
  'writeSectors',
  'writeTicksMs',
  'inFlight',
  'ioTicksMs',
  'timeInQueueMs',
  'discardIos',
  'discardMerges',
  'discardSectors',
  'discardTicksMs',
  'flushIos',
  'flushTicksMs',
] as const satisfies readonly (keyof BlockStat)[];

/** The kernel counts block-layer sectors in 512-byte units whatever the device's block size. */
export const STAT_SECTOR_BYTES = 512;

/** Splits a Linux dev_t (glibc's encoding) into major and minor. */
export function splitDeviceNumber(dev: bigint): { major: number; minor: number } {
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  return { major: Number(major), minor: Number(minor) };
}

function readTrimmed(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}

/** The whole disks under a sysfs block node, following partitions and device-mapper slaves. */
function disksUnder(sysRoot: string, nodePath: string, depth = 0): string[] {
  if (depth > 8) return [];
  if (fs.existsSync(path.join(nodePath, 'partition'))) {
    return disksUnder(sysRoot, path.dirname(nodePath), depth + 1);
  }
  let slaves: string[] = [];
  try {
    slaves = fs.readdirSync(path.join(nodePath, 'slaves'));
  } catch {
    slaves = [];
  }
  if (slaves.length === 0) return [path.basename(nodePath)];
  const disks = slaves.flatMap((slave) =>
    disksUnder(sysRoot, fs.realpathSync(path.join(sysRoot, 'class', 'block', slave)), depth + 1),
  );
  return [...new Set(disks)].sort();
}

function deviceFromSysLink(sysRoot: string, link: string): BlockDevice | null {
  let nodePath: string;
  try {
    nodePath = fs.realpathSync(link);
  } catch {
    return null;
  }
  const majorMinor = readTrimmed(path.join(nodePath, 'dev'));
  if (majorMinor === null) return null;
  return { majorMinor, node: path.basename(nodePath), disks: disksUnder(sysRoot, nodePath) };
}

/** The block device holding `dir`, or null when it has none (tmpfs) or sysfs is not there. */
export function resolveBlockDevice(dir: string, sysRoot = '/sys'): BlockDevice | null {
  const { major, minor } = splitDeviceNumber(fs.statSync(dir, { bigint: true }).dev);
  if (major !== 0) {
    return deviceFromSysLink(sysRoot, path.join(sysRoot, 'dev', 'block', `${major}:${minor}`));
  }
  const source = findMount(dir)?.source ?? null;
  if (source === null || !source.startsWith('/dev/')) return null;
  let name: string;
  try {
    name = path.basename(fs.realpathSync(source));
  } catch {
    return null;
  }
  return deviceFromSysLink(sysRoot, path.join(sysRoot, 'class', 'block', name));
}

/** The counters of one disk, or null when it cannot be read. Older kernels have fewer fields. */
export function readBlockStat(disk: string, sysRoot = '/sys'): BlockStat | null {
  const text = readTrimmed(path.join(sysRoot, 'block', disk, 'stat'));
  if (text === null) return null;
  const values = text.split(/\s+/).map(Number);
  if (values.length < 11 || values.some((value) => !Number.isFinite(value))) return null;
  const stat = {} as Record<keyof BlockStat, number>;
  BLOCK_STAT_FIELDS.forEach((field, i) => (stat[field] = values[i] ?? 0));
  return stat;
}

/** `after - before` per field; `inFlight` is a level, not a counter, so it keeps `after`'s. */
export function diffBlockStat(before: BlockStat, after: BlockStat): BlockStat {
  const delta = {} as Record<keyof BlockStat, number>;
  for (const field of BLOCK_STAT_FIELDS) delta[field] = after[field] - before[field];
  delta.inFlight = after.inFlight;
  return delta;
}

/** A disk's queue setting from /sys/block/<disk>/queue/<name>, or null. */
export function readQueueSetting(disk: string, name: string, sysRoot = '/sys'): string | null {
  return readTrimmed(path.join(sysRoot, 'block', disk, 'queue', name));
}

/** A disk's attribute from /sys/block/<disk>/<relative>, or null. */
export function readDiskAttribute(disk: string, relative: string, sysRoot = '/sys'): string | null {
  return readTrimmed(path.join(sysRoot, 'block', disk, relative));
}
