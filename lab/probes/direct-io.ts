/**
 * Files written around the page cache, for measuring the device rather than memory.
 *
 * O_DIRECT needs the file position, the length and the *memory address* aligned to the device's
 * block (ext4 on virtio: 512 bytes). Node cannot tell a Buffer's address, and its allocator only
 * promises 8 or 16 bytes, so the aligned start is found by trying: a write from a misaligned
 * address fails with EINVAL, and the first offset into the buffer that succeeds is aligned.
 * Where O_DIRECT is refused (tmpfs, some network filesystems) or no offset works, the file is
 * opened with O_DSYNC instead — every write still waits for the device, through the page
 * cache — and the mode says so, with the reason.
 */
import * as fs from 'node:fs';
import { assert } from '../../storage/errors.js';

export type DeviceWriteMode = 'O_DIRECT' | 'O_DSYNC';

export interface DeviceWriteFile {
  readonly fd: number;
  readonly mode: DeviceWriteMode;
  /** Why O_DIRECT is not used; null when it is. */
  readonly fallbackReason: string | null;
  /** Holds `regions` aligned blocks of `blockBytes`, the i-th at `regionStart(i)`. */
  readonly buffer: Buffer;
  regionStart(region: number): number;
}

/** Alignment the search reaches: a page, the strictest a block device asks for. */
export const ALIGNMENT_SEARCH_BYTES = 4096;
/** The allocator's smallest promise on 64-bit platforms. */
const ALLOCATOR_ALIGNMENT_BYTES = 8;

export function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? String(error);
}

/**
 * The first index into `buffer` from which `attempt` (a direct read or write starting there)
 * is accepted: the kernel answers EINVAL for a misaligned address. Null when none is.
 */
export function findAlignedStart(
  buffer: Buffer,
  attempt: (bufferStart: number) => void,
): number | null {
  const limit = Math.min(ALIGNMENT_SEARCH_BYTES, buffer.length);
  for (let bufferStart = 0; bufferStart < limit; bufferStart += ALLOCATOR_ALIGNMENT_BYTES) {
    try {
      attempt(bufferStart);
      return bufferStart;
    } catch (error) {
      if (errorCode(error) !== 'EINVAL') throw error;
    }
  }
  return null;
}

function openFlags(direct: boolean): number {
  const { O_RDWR, O_CREAT, O_DIRECT, O_DSYNC } = fs.constants;
  return O_RDWR | O_CREAT | (direct ? (O_DIRECT ?? 0) : O_DSYNC);
}

/**
 * Opens `filePath` for writes of `blockBytes` that reach the device. The probe writes one block
 * at `probeBytes` (a position the caller overwrites anyway).
 */
export function openDeviceWriteFile(
  filePath: string,
  blockBytes: number,
  regions: number,
  probeBytes: number,
): DeviceWriteFile {
  assert(Number.isSafeInteger(blockBytes), `blockBytes must be an integer: ${blockBytes}`);
  const pages = blockBytes % ALIGNMENT_SEARCH_BYTES === 0;
  assert(pages, `blockBytes must be whole pages: ${blockBytes}`);
  assert(Number.isSafeInteger(regions), `regions must be an integer: ${regions}`);
  assert(regions > 0, `regions must be positive: ${regions}`);
  const buffer = Buffer.alloc(regions * blockBytes + ALIGNMENT_SEARCH_BYTES);
  const regionsAt = (start: number) => (region: number) => start + region * blockBytes;
  let reason: string;
  if (fs.constants.O_DIRECT === undefined) {
    reason = 'this platform has no O_DIRECT';
  } else {
    let fd: number | null = null;
    try {
      fd = fs.openSync(filePath, openFlags(true), 0o644);
      const opened = fd;
      const start = findAlignedStart(buffer, (bufferStart) =>
        fs.writeSync(opened, buffer, bufferStart, blockBytes, probeBytes),
      );
      if (start !== null) {
        const regionStart = regionsAt(start);
        return { fd, mode: 'O_DIRECT', fallbackReason: null, buffer, regionStart };
      }
      reason = `no start within ${ALIGNMENT_SEARCH_BYTES} bytes of a buffer was accepted`;
    } catch (error) {
      reason = `O_DIRECT was refused (${errorCode(error)})`;
    }
    if (fd !== null) fs.closeSync(fd);
  }
  const fd = fs.openSync(filePath, openFlags(false), 0o644);
  return { fd, mode: 'O_DSYNC', fallbackReason: reason, buffer, regionStart: regionsAt(0) };
}
