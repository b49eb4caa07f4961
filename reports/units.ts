/**
 * Units for people: picks a display unit for a set of figures (ns shown as ms when the figures are
 * milliseconds long, bytes as KiB or MiB) and formats numbers the same way in charts and tables.
 * Results documents keep their raw units; only what a reader sees is converted. The numbers
 * themselves are written by lab/format.ts's `formatFigure`, as the CLI writes them.
 */
import { formatFigure } from '../lab/format.js';

/** How a raw figure is shown: `shown = raw / divisor`, labelled `unit`. */
export interface DisplayUnit {
  readonly unit: string;
  readonly divisor: number;
}

interface UnitFamily {
  readonly pattern: RegExp;
  /** Prefixes from smallest to largest with their size in the family's smallest prefix. */
  readonly steps: readonly (readonly [string, number])[];
}

const TIME_FAMILY: UnitFamily = {
  pattern: /^(ns|us|µs|ms|s)(\/.+)?$/,
  steps: [
    ['ns', 1],
    ['µs', 1e3],
    ['ms', 1e6],
    ['s', 1e9],
  ],
};

const BYTE_FAMILY: UnitFamily = {
  pattern: /^(B|KiB|MiB|GiB|TiB)(\/.+)?$/,
  steps: [
    ['B', 1],
    ['KiB', 1024],
    ['MiB', 1024 ** 2],
    ['GiB', 1024 ** 3],
    ['TiB', 1024 ** 4],
  ],
};

function familyOf(unit: string): { family: UnitFamily; prefix: string; suffix: string } | null {
  for (const family of [TIME_FAMILY, BYTE_FAMILY]) {
    const match = family.pattern.exec(unit);
    // `us` is the ASCII spelling of `µs`; both name the same step.
    const prefix = match?.[1] === 'us' ? 'µs' : match?.[1];
    if (prefix !== undefined) return { family, prefix, suffix: match?.[2] ?? '' };
  }
  return null;
}

function stepSize(family: UnitFamily, prefix: string): number {
  const step = family.steps.find(([name]) => name === prefix);
  if (step === undefined) {
    throw new Error(`assertion failed: unit prefix '${prefix}' is in its family`);
  }
  return step[1];
}

function middleMagnitude(values: readonly number[]): number | null {
  const magnitudes = values
    .filter((value) => Number.isFinite(value) && value !== 0)
    .map((value) => Math.abs(value))
    .sort((a, b) => a - b);
  return magnitudes[Math.floor(magnitudes.length / 2)] ?? null;
}

/**
 * The unit to show `values` (all in `unit`) in: the largest prefix of the unit's family that keeps
 * the middle figure at 1 or more. Units outside the time and byte families are shown as they are.
 */
export function displayUnitFor(unit: string, values: readonly number[]): DisplayUnit {
  const parsed = familyOf(unit);
  const middle = middleMagnitude(values);
  if (parsed === null || middle === null) return { unit, divisor: 1 };
  const base = stepSize(parsed.family, parsed.prefix);
  const rawInSmallest = middle * base;
  let chosen = parsed.family.steps[0] ?? [parsed.prefix, base];
  for (const step of parsed.family.steps) {
    if (rawInSmallest / step[1] >= 1) chosen = step;
  }
  return { unit: `${chosen[0]}${parsed.suffix}`, divisor: chosen[1] / base };
}

/** A number already in `unit`, written with it: `84.2 ms`, `55.8×` for ratios, bare counts. */
export function withUnit(value: number, unit: string): string {
  if (unit === 'count') return formatFigure(value);
  if (unit === 'ratio') return `${formatFigure(value)}×`;
  return `${formatFigure(value)} ${unit}`;
}

/** One figure in the display unit that suits it alone: 84,200,000 ns → `84.2 ms`. */
export function formatInDisplayUnit(value: number, unit: string): string {
  const display = displayUnitFor(unit, [value]);
  return withUnit(value / display.divisor, display.unit);
}

const BINARY_STEPS: readonly (readonly [string, number])[] = BYTE_FAMILY.steps;

/**
 * A byte size as it was measured: the largest unit that holds it whole (`1600 KiB`, not the
 * rounded `1.56 MiB` a quick run's 100 MiB / 64 would read as), else three significant digits.
 */
export function formatExactBytes(value: number): string {
  if (!Number.isInteger(value) || value <= 0) return formatInDisplayUnit(value, 'B');
  let chosen: readonly [string, number] = ['B', 1];
  for (const step of BINARY_STEPS) if (value % step[1] === 0) chosen = step;
  return `${formatFigure(value / chosen[1])} ${chosen[0]}`;
}

/**
 * Label values that mean something other than their number (docs/report-contract.md): an index
 * interval of 0 bytes is a dense index, an entry for every record.
 */
const NAMED_LABEL_VALUES: Readonly<Record<string, ReadonlyMap<LabelInput, string>>> = {
  intervalBytes: new Map([[0, 'dense']]),
};

type LabelInput = string | number | boolean;

/**
 * A label value for axes, legends and tables: byte-sized labels (`segmentBytes`) read as the
 * size measured (`4 MiB`, `1600 KiB`), millisecond labels (`maxDelayMs`) as `0.1 ms`, MiB labels
 * as `24 MiB`, an index interval of 0 as `dense`; other values as they are.
 */
export function formatLabelValue(key: string, value: LabelInput): string {
  const named = NAMED_LABEL_VALUES[key]?.get(value);
  if (named !== undefined) return named;
  if (typeof value !== 'number') return String(value);
  if (key.endsWith('Bytes')) return formatExactBytes(value);
  if (key.endsWith('Ms')) return `${formatFigure(value)} ms`;
  if (key.endsWith('MiB')) return `${formatFigure(value)} MiB`;
  return formatFigure(value);
}
