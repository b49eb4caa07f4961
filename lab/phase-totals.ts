/**
 * Sums the I/O of several phases of one design. Interleaved rounds measure a design in pieces
 * (lab/runner.ts interleave); its bytes and syncs per message come from the pieces added together. A source
 * missing from any piece (no device, no /proc/self/io) is missing from the total, never counted
 * as zero.
 */
import type { FileIOCounters } from '../storage/io/file-io.js';
import type { DeviceIo, PhaseIo, ProcIo } from './io.js';

function addNumbers<T extends object>(a: T, b: T): T {
  const sum: Record<string, unknown> = { ...(a as Record<string, unknown>) };
  for (const [key, value] of Object.entries(b)) {
    const before = sum[key];
    if (typeof value === 'number' && typeof before === 'number') sum[key] = before + value;
  }
  return sum as T;
}

function addOrNull<T extends object>(a: T | null, b: T | null): T | null {
  return a === null || b === null ? null : addNumbers(a, b);
}

export class PhaseTotals {
  #total: PhaseIo | null = null;
  #phases = 0;

  /** How many phases were added. */
  get phases(): number {
    return this.#phases;
  }

  add(phase: PhaseIo): void {
    this.#phases++;
    const total = this.#total;
    if (total === null) {
      this.#total = phase;
      return;
    }
    this.#total = {
      elapsedNs: total.elapsedNs + phase.elapsedNs,
      proc: addOrNull<ProcIo>(total.proc, phase.proc),
      device: addOrNull<DeviceIo>(total.device, phase.device),
      fileIo: addOrNull<FileIOCounters>(total.fileIo, phase.fileIo),
    };
  }

  /** The sum of every phase added; null before the first. */
  get total(): PhaseIo | null {
    return this.#total;
  }
}
