/**
 * Whether a directory is on a disk at all. loglab must never report memory as a disk: a tmpfs
 * answers an fdatasync at memory speed, and its figures read like a very fast SSD's.
 *
 * - `block`: the mount resolves to a block device under /sys/block (block-device.ts).
 * - `memory`: a filesystem that keeps files in RAM (tmpfs, ramfs, …), or a block device that is
 *   RAM itself (zram, brd's `ram0`).
 * - `no-device`: no block device loglab can see (overlay, a network or FUSE filesystem, a /sys
 *   that is not mounted): whatever holds the files, the figures cannot be called a disk's.
 */
import { type BlockDevice, resolveBlockDevice } from './block-device.js';
import { findMount } from './mounts.js';

export type StorageKind = 'block' | 'memory' | 'no-device';

export interface StorageClass {
  readonly kind: StorageKind;
  /** The filesystem type of the mount holding the directory, when mountinfo says. */
  readonly filesystem: string | null;
  /** The block device, when there is one. */
  readonly device: BlockDevice | null;
}

/** Test seams: a fake sysfs root and mount table. */
export interface StorageProbe {
  readonly sysRoot?: string;
  readonly mountInfoFile?: string;
}

const MEMORY_FILESYSTEMS: ReadonlySet<string> = new Set([
  'tmpfs',
  'ramfs',
  'devtmpfs',
  'hugetlbfs',
  'rootfs',
]);
/** Block devices whose sectors live in RAM: compressed (zram) or plain (brd). */
const MEMORY_DISK = /^(zram|ram)\d+$/;

export function classifyStorage(dir: string, probe: StorageProbe = {}): StorageClass {
  const filesystem = findMount(dir, probe.mountInfoFile)?.type ?? null;
  if (filesystem !== null && MEMORY_FILESYSTEMS.has(filesystem)) {
    return { kind: 'memory', filesystem, device: null };
  }
  const device = resolveBlockDevice(dir, probe.sysRoot);
  if (device === null) return { kind: 'no-device', filesystem, device };
  const inMemory = device.disks.length > 0 && device.disks.every((disk) => MEMORY_DISK.test(disk));
  return { kind: inMemory ? 'memory' : 'block', filesystem, device };
}

/** What the storage is, for a note or message: `tmpfs (memory)`, `zram0 (memory)`. */
export function describeStorage(storage: StorageClass): string {
  const what = storage.device?.disks.join('+') ?? storage.filesystem ?? 'a filesystem';
  if (storage.kind === 'memory') return `${what} (memory)`;
  if (storage.kind === 'no-device') return `${what} (no block device)`;
  return what;
}

/** The mark every headline and report carries when the figures are not a disk's; null for one. */
export function notADiskNote(storage: StorageClass): string | null {
  if (storage.kind === 'block') return null;
  return `Measured on ${describeStorage(storage)}, not a disk: these figures are not a disk's.`;
}
