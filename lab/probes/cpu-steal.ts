/**
 * CPU time the hypervisor gave to other guests while an experiment ran: the `steal` column of
 * /proc/stat's `cpu` line, machine-wide, over that line's columns up to it. A virtual machine
 * whose host is oversubscribed loses its vCPUs for hundreds of microseconds at a time, inside any
 * call: on this lab's VM, with steal at 22% of its CPU time, 940 hand-offs of an fdatasync to the
 * thread pool in 5 s each held the event loop over 300 µs (365 µs at their median), and a synced
 * append's rate moved 2× from round to round. Every timing and ratio of such a run is noisier
 * than the same code on a quiet machine, which the run's document and its report say.
 */
import * as fs from 'node:fs';
import { formatFigure } from '../format.js';
import { STEAL_NOTE_SHARE } from '../results.js';

/** Jiffies since boot, all CPUs: what the hypervisor took, and every column together. */
export interface CpuTimes {
  readonly stealTicks: number;
  readonly totalTicks: number;
}

export interface CpuSteal {
  /** stealTicks over totalTicks between the two readings. */
  readonly share: number;
  readonly stealTicks: number;
  readonly totalTicks: number;
}

/**
 * The aggregate `cpu` line's times; null when the line is missing or has no steal column
 * (kernels before 2.6.11) or a column is not a number.
 */
export function parseCpuTimes(text: string): CpuTimes | null {
  const line = /^cpu\s+(.*)$/m.exec(text)?.[1];
  if (line === undefined) return null;
  const columns = line.trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal [guest guest_nice]: guest time is already
  // counted in user and nice, so the total stops at steal.
  if (columns.length < 8 || columns.some((value) => !Number.isSafeInteger(value) || value < 0))
    return null;
  const counted = columns.slice(0, 8);
  return {
    stealTicks: counted[7]!,
    totalTicks: counted.reduce((sum, value) => sum + value, 0),
  };
}

/** The machine's CPU times now, or null where /proc/stat is not readable (not Linux). */
export function readCpuTimes(file = '/proc/stat'): CpuTimes | null {
  try {
    return parseCpuTimes(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** Steal between two readings; null when either is missing or no time passed between them. */
export function cpuStealBetween(before: CpuTimes | null, after: CpuTimes | null): CpuSteal | null {
  if (before === null || after === null) return null;
  const stealTicks = after.stealTicks - before.stealTicks;
  const totalTicks = after.totalTicks - before.totalTicks;
  if (totalTicks <= 0 || stealTicks < 0) return null;
  return { share: stealTicks / totalTicks, stealTicks, totalTicks };
}

/** The note a run carries when the hypervisor took a noticeable share of its CPU time. */
export function cpuStealNote(steal: CpuSteal | null): string | null {
  if (steal === null || steal.share < STEAL_NOTE_SHARE) return null;
  return (
    `The hypervisor gave ${formatFigure(steal.share * 100)}% of this machine's CPU time to other guests while this ran ` +
    '(steal, /proc/stat): its vCPUs stopped for stretches inside any call, so timings and ' +
    'ratios are noisier than on a quiet machine. Rerun when the host is quieter to tell a ' +
    'change from the noise.'
  );
}
