/**
 * The environment a results document was measured in: machine, kernel, runtime, and the storage
 * fingerprint of `--dir` (filesystem, mount options, device, its queue settings and write cache)
 * that fio, hyperfine and diskspd users keep asking each other for.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { assert } from '../../storage/errors.js';
import { readDiskAttribute, readQueueSetting, resolveBlockDevice } from './block-device.js';
import { LabError } from '../errors.js';
import { formatBytes } from '../format.js';
import { freePageReportingOn } from './free-page-reporting.js';
import { loglabCheckout } from './git-checkout.js';
import { findMount } from './mounts.js';
import { canDropPageCache } from './page-cache.js';
import { classifyStorage } from './storage-kind.js';
import type { Environment } from '../results.js';

export interface CaptureOptions {
  readonly sysRoot?: string;
  readonly mountInfoFile?: string;
}

function osName(): string {
  try {
    const release = fs.readFileSync('/etc/os-release', 'utf8');
    const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(release)?.[1];
    if (pretty !== undefined && pretty.length > 0) return pretty;
  } catch {
    // Not every system has /etc/os-release; the kernel's name is the fallback.
  }
  return os.type();
}

/** The selected scheduler is the bracketed one: `none [mq-deadline] kyber bfq`. */
export function selectedScheduler(text: string | null): string | null {
  if (text === null) return null;
  return /\[([^\]]+)\]/.exec(text)?.[1] ?? (text.length > 0 ? text : null);
}

function numberOrNull(text: string | null): number | null {
  if (text === null || text.length === 0) return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

function flagOrNull(text: string | null): boolean | null {
  if (text === '1') return true;
  if (text === '0') return false;
  return null;
}

function describeDevice(dir: string, sysRoot: string): Environment['device'] {
  const device = resolveBlockDevice(dir, sysRoot);
  const disk = device?.disks[0];
  if (device === null || disk === undefined) {
    return {
      name: null,
      model: null,
      rotational: null,
      writeCache: null,
      fua: null,
      scheduler: null,
      nrRequests: null,
      logicalBlockBytes: null,
      physicalBlockBytes: null,
    };
  }
  const queue = (name: string) => readQueueSetting(disk, name, sysRoot);
  // Several disks (a volume spread over them): named together; settings are the first disk's.
  return {
    name: device.disks.join('+'),
    model: readDiskAttribute(disk, 'device/model', sysRoot),
    rotational: flagOrNull(queue('rotational')),
    writeCache: queue('write_cache'),
    fua: flagOrNull(queue('fua')),
    scheduler: selectedScheduler(queue('scheduler')),
    nrRequests: numberOrNull(queue('nr_requests')),
    logicalBlockBytes: numberOrNull(queue('logical_block_size')),
    physicalBlockBytes: numberOrNull(queue('physical_block_size')),
  };
}

/**
 * Per-mount then filesystem options, each once:
 * `rw,relatime` + `rw,discard` → `rw,relatime,discard`.
 */
function joinOptions(mountOptions: string, superOptions: string): string {
  const options = [...mountOptions.split(','), ...superOptions.split(',')].filter(
    (option) => option.length > 0,
  );
  return [...new Set(options)].join(',');
}

/** Bytes an unprivileged writer can still use under `dir`, or null when statfs fails. */
export function freeBytesAt(dir: string): number | null {
  try {
    const stats = fs.statfsSync(dir);
    return stats.bavail * stats.bsize;
  } catch {
    return null;
  }
}

export function captureEnvironment(dir: string, options: CaptureOptions = {}): Environment {
  const absolute = path.resolve(dir);
  assert(fs.statSync(absolute).isDirectory(), `environment capture needs a directory: ${absolute}`);
  const mount = findMount(absolute, options.mountInfoFile);
  const cpus = os.cpus();
  return {
    hostname: os.hostname(),
    os: osName(),
    kernel: `${os.release()} ${os.version()}`.trim(),
    arch: os.arch(),
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpuCores: Math.max(1, cpus.length),
    memoryBytes: os.totalmem(),
    nodeVersion: process.version,
    dir: absolute,
    filesystem: {
      type: mount?.type ?? null,
      mountPoint: mount?.mountPoint ?? null,
      mountOptions: mount === null ? null : joinOptions(mount.mountOptions, mount.superOptions),
      source: mount?.source ?? null,
    },
    device: describeDevice(absolute, options.sysRoot ?? '/sys'),
    freeBytes: freeBytesAt(absolute),
    storage: classifyStorage(absolute, options).kind,
    canDropCaches: canDropPageCache(),
    freePageReporting: freePageReportingOn(options.sysRoot ?? '/sys'),
    git: loglabCheckout(),
  };
}

/**
 * Refuses to start a run that would fill the filesystem: throws NOT_ENOUGH_SPACE naming both
 * figures. An unknown free space (statfs failed) does not block the run.
 */
export function ensureFreeSpace(
  dir: string,
  neededBytes: number,
  freeBytes = freeBytesAt(dir),
): void {
  assert(Number.isFinite(neededBytes), `neededBytes must be finite: ${neededBytes}`);
  assert(neededBytes >= 0, `neededBytes must be >= 0: ${neededBytes}`);
  if (freeBytes === null || freeBytes >= neededBytes) return;
  throw new LabError(
    'NOT_ENOUGH_SPACE',
    `${dir} has ${formatBytes(freeBytes)} free but this run needs ${formatBytes(neededBytes)}; ` +
      'free some space or pass --dir on a larger filesystem',
  );
}
