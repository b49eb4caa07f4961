/**
 * Whether other programs wrote to the disk while a phase was measured. The disk's counters
 * (/sys/block/<disk>/stat) are the whole machine's; /proc/self/io `write_bytes` is this process's
 * own (children included once reaped). What the disk wrote beyond our own bytes and the
 * filesystem's bookkeeping for them was someone else's, and it lands in every per-message device
 * figure of the phase.
 *
 * Our bookkeeping is not in `write_bytes`: each fdatasync of a file that grew commits a journal
 * transaction (ext4: a descriptor, the inode's block, a commit block; 4–8 KiB measured per
 * synced 1 KiB append), so JOURNAL_ALLOWANCE_BYTES_PER_SYNC is granted per sync the storage core
 * counted, plus one for the `sync` that closes a phase. A phase's dirty pages can reach the disk
 * in the next phase, so whatever was dirty or under writeback machine-wide when a phase began
 * (/proc/meminfo) is not counted as others' either; the floor keeps a stray commit from flagging
 * a short phase.
 */
import { assert } from '../../storage/errors.js';
import { formatBytes } from '../format.js';
import type { PhaseIo } from '../io.js';
import { KiB } from '../../storage/units.js';

/** Others' share above which a phase's device figures are called shared. */
export const SHARED_FRACTION = 0.1;
/** Journal and metadata bytes granted to each of our syncs before counting a byte as others'. */
export const JOURNAL_ALLOWANCE_BYTES_PER_SYNC = 16 * KiB;
/** Others' bytes below this never flag a phase (a stray 5 s journal commit is 8–12 KiB). */
export const SHARED_FLOOR_BYTES = 64 * KiB;

export interface DeviceShare {
  /** What the disk wrote during the phase. */
  readonly deviceBytes: number;
  /** What this process dirtied or wrote (/proc/self/io write_bytes). */
  readonly ownBytes: number;
  /** Granted to the filesystem's bookkeeping for our syncs. */
  readonly journalAllowanceBytes: number;
  /** The rest: other programs' writes. */
  readonly otherBytes: number;
  /** otherBytes over deviceBytes; 0 when the disk wrote nothing. */
  readonly fraction: number;
}

/** Others' share of a phase's device writes; null without the disk's or the process's counters. */
export function deviceShare(phase: PhaseIo): DeviceShare | null {
  if (phase.device === null || phase.proc === null) return null;
  const syncs =
    1 + (phase.fileIo === null ? 0 : phase.fileIo.fdatasyncCalls + phase.fileIo.dirFsyncCalls);
  const deviceBytes = phase.device.writeBytes;
  const ownBytes = phase.proc.writeBytes;
  const journalAllowanceBytes = syncs * JOURNAL_ALLOWANCE_BYTES_PER_SYNC;
  // Pages dirtied before the phase (an earlier phase's writes under `none`, say) may reach the
  // disk during it: they are nobody's new writes, so they are not counted as others'.
  const pendingBytes = phase.pendingAtStartBytes ?? 0;
  const otherBytes = Math.max(0, deviceBytes - ownBytes - journalAllowanceBytes - pendingBytes);
  const fraction = deviceBytes === 0 ? 0 : otherBytes / deviceBytes;
  return { deviceBytes, ownBytes, journalAllowanceBytes, otherBytes, fraction };
}

export function isShared(share: DeviceShare): boolean {
  return share.fraction > SHARED_FRACTION && share.otherBytes >= SHARED_FLOOR_BYTES;
}

/** What a results document records: the shared phases summed, and how many phases there were. */
export interface DeviceSharing {
  readonly phases: number;
  readonly sharedPhases: number;
  readonly otherBytes: number;
  readonly ownBytes: number;
  readonly deviceBytes: number;
  /** otherBytes over deviceBytes of the shared phases. */
  readonly fraction: number;
}

/** Collects every measured phase of one experiment; says whether its device figures are shared. */
export class DeviceSharingLog {
  #phases = 0;
  readonly #shared: DeviceShare[] = [];

  add(phase: PhaseIo): void {
    const share = deviceShare(phase);
    if (share === null) return;
    this.#phases++;
    if (isShared(share)) this.#shared.push(share);
  }

  /** Null when no phase was shared. */
  summary(): DeviceSharing | null {
    if (this.#shared.length === 0) return null;
    const sum = (pick: (share: DeviceShare) => number) =>
      this.#shared.reduce((total, share) => total + pick(share), 0);
    const deviceBytes = sum((share) => share.deviceBytes);
    assert(deviceBytes > 0, 'a shared phase wrote bytes');
    const otherBytes = sum((share) => share.otherBytes);
    return {
      phases: this.#phases,
      sharedPhases: this.#shared.length,
      otherBytes,
      ownBytes: sum((share) => share.ownBytes),
      deviceBytes,
      fraction: otherBytes / deviceBytes,
    };
  }

  /** The sentence every headline carries when the device figures are shared; null otherwise. */
  mark(): string | null {
    const summary = this.summary();
    if (summary === null) return null;
    const percent = Math.round(summary.fraction * 100);
    return (
      `Device figures are shared: other programs wrote ${percent}% of the disk's bytes ` +
      `(${formatBytes(summary.otherBytes)}) in ${summary.sharedPhases} of ${summary.phases} ` +
      'measured phases, and every per-message device figure counts their writes too.'
    );
  }
}
