/**
 * The machine fingerprint: what must be equal for two runs' figures to be judged against each
 * other as one machine's. A history check compares a run only with runs of its fingerprint.
 *
 * In it: what decides the figures. The CPU (architecture, model, cores), the memory (whole GiB:
 * MemTotal moves by megabytes between kernel builds), the kernel release (an update changes the
 * I/O paths measured), and the disk and filesystem under the data directory (device name and
 * model, rotational, filesystem type, storage kind).
 *
 * Left out: the host name, so that identical machines (CI runners of one type, whose names change
 * every run) share a history; Node's version, mount options, queue settings and free space,
 * which are software settings or vary by the hour, and which the results record anyway; the data
 * directory, which is new every run. Two disks of one host differ by device name.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { GiB } from '../../storage/units.js';
import type { Environment } from '../results.js';

/** The fields, as the history stores them beside the fingerprint and checks them when read. */
export const machineFieldsSchema = z
  .object({
    arch: z.string(),
    cpuModel: z.string(),
    cpuCores: z.number().int().positive(),
    memoryGiB: z.number().int().nonnegative(),
    kernelRelease: z.string(),
    deviceName: z.string().nullable(),
    deviceModel: z.string().nullable(),
    rotational: z.boolean().nullable(),
    filesystemType: z.string().nullable(),
    /** Null for files written before the storage kind was recorded. */
    storage: z.string().nullable(),
  })
  .readonly();
export type MachineFields = z.infer<typeof machineFieldsSchema>;

/** How many hex digits of a fingerprint people are shown: enough to tell machines apart. */
export const FINGERPRINT_SHOWN_CHARS = 12;

/** What people call each field when two machines differ. */
const FIELD_NAMES: Readonly<Record<keyof MachineFields, string>> = {
  arch: 'architecture',
  cpuModel: 'CPU',
  cpuCores: 'cores',
  memoryGiB: 'memory GiB',
  kernelRelease: 'kernel',
  deviceName: 'device',
  deviceModel: 'device model',
  rotational: 'rotational',
  filesystemType: 'filesystem',
  storage: 'storage',
};

export function machineFields(environment: Environment): MachineFields {
  return {
    arch: environment.arch,
    cpuModel: environment.cpuModel,
    cpuCores: environment.cpuCores,
    memoryGiB: Math.round(environment.memoryBytes / GiB),
    // `6.1.0-13-amd64 #1 SMP PREEMPT_DYNAMIC Debian …`: the build line changes with no release.
    kernelRelease: environment.kernel.split(' ')[0] ?? environment.kernel,
    deviceName: environment.device.name,
    deviceModel: environment.device.model,
    rotational: environment.device.rotational,
    filesystemType: environment.filesystem.type,
    storage: environment.storage ?? null,
  };
}

/** The SHA-256 of the fields in their fixed order, in hex. */
export function fingerprintOf(fields: MachineFields): string {
  const ordered = (Object.keys(FIELD_NAMES) as (keyof MachineFields)[]).map((key) => fields[key]);
  return createHash('sha256').update(JSON.stringify(ordered)).digest('hex');
}

export function shownFingerprint(fingerprint: string): string {
  return fingerprint.slice(0, FINGERPRINT_SHOWN_CHARS);
}

/** `kernel 6.1.0-13-amd64 → 6.18.44`, one per field that differs from `from` to `to`. */
export function machineDifferences(from: MachineFields, to: MachineFields): string[] {
  return (Object.keys(FIELD_NAMES) as (keyof MachineFields)[])
    .filter((key) => from[key] !== to[key])
    .map((key) => `${FIELD_NAMES[key]} ${String(from[key])} → ${String(to[key])}`);
}

/** `x64 · 2 × Intel Xeon … · 24 GiB · Linux 6.1.0 · vda ext4`. */
export function describeMachine(fields: MachineFields): string {
  const disk = [fields.deviceModel ?? fields.deviceName ?? 'no device', fields.filesystemType]
    .filter((part) => part !== null)
    .join(' ');
  return (
    `${fields.arch} · ${fields.cpuCores} × ${fields.cpuModel} · ${fields.memoryGiB} GiB · ` +
    `Linux ${fields.kernelRelease} · ${disk}`
  );
}
