/**
 * Parsing command-line values. Every failure is one line naming the argument, what it accepts and
 * what it got (LabError BAD_ARGUMENT, exit 2).
 */
import { badArgument } from './errors.js';

const BYTE_UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  tb: 1000 ** 4,
};

export function parseIntegerArgument(name: string, raw: string, min: number, max: number): number {
  const value = /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw badArgument(name, `an integer from ${min} to ${max}`, raw);
  }
  return value;
}

/** `4096`, `4KiB`, `64MiB`, `1GiB`, `1.5GB`: bytes, whole. */
export function parseByteSize(name: string, raw: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(raw);
  const factor = match === null ? undefined : match[2] === '' ? 1 : BYTE_UNITS[match[2]!.toLowerCase()];
  const value = match === null || factor === undefined ? Number.NaN : Math.round(Number(match[1]) * factor);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw badArgument(name, `a size from ${min} to ${max} bytes, as a number with an optional unit (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)`, raw);
  }
  return value;
}

export function parseChoice<T extends string>(name: string, raw: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(raw)) return raw as T;
  throw badArgument(name, `one of ${choices.join(', ')}`, raw);
}
