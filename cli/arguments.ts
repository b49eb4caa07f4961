/**
 * Parsing command-line values. Every failure is one line naming the argument, what it accepts and
 * what it got (LabError BAD_ARGUMENT, exit 2).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { badArgument } from '../lab/errors.js';
import { GiB, KiB, MiB } from '../storage/units.js';

const BYTE_UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kib: KiB,
  mib: MiB,
  gib: GiB,
  tib: 1024 * GiB,
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
export function parseByteSize(
  name: string,
  raw: string,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(raw);
  const factor =
    match === null ? undefined : match[2] === '' ? 1 : BYTE_UNITS[match[2]!.toLowerCase()];
  const value =
    match === null || factor === undefined ? Number.NaN : Math.round(Number(match[1]) * factor);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw badArgument(
      name,
      `a size from ${min} to ${max} bytes, as a number with an optional unit (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)`,
      raw,
    );
  }
  return value;
}

export function parseChoice<T extends string>(name: string, raw: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(raw)) return raw as T;
  throw badArgument(name, `one of ${choices.join(', ')}`, raw);
}

/** A number in (0, max]: `2.5` seconds, not `0`, not `abc`. */
export function parsePositiveNumberArgument(
  name: string,
  raw: string,
  max: number,
  what: string,
): number {
  const value = /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isFinite(value) || value <= 0 || value > max) {
    throw badArgument(name, `${what} in (0, ${max}]`, raw);
  }
  return value;
}

const RATE_UNITS_PER_SEC: Readonly<Record<string, number>> = {
  s: 1,
  sec: 1,
  min: 1 / 60,
  h: 1 / 3600,
  d: 1 / 86_400,
};

/** `5`, `5/s`, `300/min`, `18000/h`, `0.5/s`: messages per second, a positive number. */
export function parseRatePerSec(name: string, raw: string, max = 1e12): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*([a-zA-Z]+))?\s*$/.exec(raw);
  const factor = match === null ? undefined : RATE_UNITS_PER_SEC[(match[2] ?? 's').toLowerCase()];
  const value = match === null || factor === undefined ? Number.NaN : Number(match[1]) * factor;
  if (!Number.isFinite(value) || value <= 0 || value > max) {
    const accepted =
      `a positive rate up to ${max.toLocaleString('en-US')}/s, ` +
      'as a number with an optional /s, /min, /h or /d';
    throw badArgument(name, accepted, raw);
  }
  return value;
}

const DURATION_UNITS_SECONDS: Readonly<Record<string, number>> = {
  ms: 0.001,
  s: 1,
  min: 60,
  h: 3600,
  d: 86_400,
  w: 604_800,
};

/** `30s`, `500ms`, `15min`, `3h`, `3d`, `2w`; a bare number is seconds. Returns seconds. */
export function parseDurationSeconds(name: string, raw: string, min: number, max: number): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(raw);
  const unit = match === null || match[2] === '' ? 's' : match[2]!.toLowerCase();
  const factor = match === null ? undefined : DURATION_UNITS_SECONDS[unit];
  const value = match === null || factor === undefined ? Number.NaN : Number(match[1]) * factor;
  if (!Number.isFinite(value) || value < min || value > max) {
    const accepted =
      `a duration from ${min} to ${max.toLocaleString('en-US')} seconds, ` +
      'as a number with an optional unit (ms, s, min, h, d, w)';
    throw badArgument(name, accepted, raw);
  }
  return value;
}

/** `5%` or `5`: a percentage in (0, max], returned as a fraction (0.05). */
export function parsePercentArgument(name: string, raw: string, max = 1000): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(raw);
  const value = match === null ? Number.NaN : Number(match[1]);
  if (!Number.isFinite(value) || value <= 0 || value > max) {
    throw badArgument(name, `a percentage in (0, ${max}], e.g. 5%`, raw);
  }
  return value / 100;
}

/** The directory `dir` is, or the one that would hold it once created: the nearest that exists. */
function nearestExisting(dir: string): string {
  let current = path.resolve(dir);
  while (!fs.existsSync(current) && path.dirname(current) !== current) {
    current = path.dirname(current);
  }
  return current;
}

/**
 * Checks, before any work starts, that `dir` is a directory loglab may create files in (or, when
 * `mustExist` is false, one it may create): a run that measures for minutes and then cannot write
 * its results wastes those minutes. Creates nothing.
 */
export function checkDirectoryArgument(name: string, dir: string, mustExist: boolean): void {
  const kind = mustExist ? 'an existing directory' : 'a directory';
  const created = mustExist ? '' : ' (created when missing)';
  const accepted = `${kind}${created}`;
  const exists = fs.existsSync(dir);
  if (mustExist && !exists) throw badArgument(name, accepted, dir);
  const holder = exists ? path.resolve(dir) : nearestExisting(dir);
  if (!fs.statSync(holder).isDirectory()) {
    const why = exists ? undefined : `${holder} is a file, not a directory`;
    throw badArgument(name, accepted, dir, why);
  }
  try {
    fs.accessSync(holder, fs.constants.W_OK | fs.constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown';
    throw badArgument(name, `${kind} you may write in${created}`, dir, `${holder}: ${code}`);
  }
}
