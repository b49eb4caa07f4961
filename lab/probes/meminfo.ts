/**
 * Dirty memory from /proc/meminfo: file pages written into the page cache and not yet on the
 * device (`Dirty`), plus those being written right now (`Writeback`). It is machine-wide, every
 * process and filesystem together, so it bounds from above what a power failure would take from
 * one program that acknowledged writes without syncing them.
 */
import * as fs from 'node:fs';
import { KiB } from '../../storage/units.js';

export interface DirtyMemory {
  readonly dirtyBytes: number;
  readonly writebackBytes: number;
}

/** The fields, or null when the file is missing or lacks them (not Linux). */
export function readDirtyMemory(file = '/proc/meminfo'): DirtyMemory | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const field = (name: string): number | null => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(text);
    return match?.[1] === undefined ? null : Number(match[1]) * KiB;
  };
  const dirtyBytes = field('Dirty');
  const writebackBytes = field('Writeback');
  if (dirtyBytes === null || writebackBytes === null) return null;
  return { dirtyBytes, writebackBytes };
}
