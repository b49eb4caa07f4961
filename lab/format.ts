/**
 * Number formatting shared by the CLI, the model printout, error messages and the report (the one
 * module of lab/ that reports/ may import besides the results contract).
 */

const BINARY_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;

/** `1536` → `1.5 KiB`; whole numbers of bytes below 1 KiB as they are. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return String(bytes);
  let value = Math.abs(bytes);
  let unit = 0;
  while (value >= 1024 && unit < BINARY_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const sign = bytes < 0 ? '-' : '';
  const digits = unit === 0 ? 0 : value < 10 ? 2 : value < 100 ? 1 : 0;
  // Number() drops the zeros toFixed pads with: 8 KiB, not 8.00 KiB.
  return `${sign}${Number(value.toFixed(digits))} ${BINARY_UNITS[unit]}`;
}

/** Thousands separators and at most `maxDigits` decimals: `278320.3` → `278,320`. */
export function formatNumber(value: number, maxDigits = 0): string {
  return value.toLocaleString('en-US', {
    maximumFractionDigits: maxDigits,
    minimumFractionDigits: 0,
  });
}

/** Rounds to `digits` significant digits, as "about 5,600" does: (5566, 2) → 5600. */
export function roundSignificant(value: number, digits: number): number {
  if (value === 0 || !Number.isFinite(value)) return value;
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  const scale = 10 ** (magnitude - digits + 1);
  return Math.round(value / scale) * scale;
}

const FIGURE_SIGNIFICANT_DIGITS = 3;
const SMALL_FIGURE = new Intl.NumberFormat('en-US', {
  maximumSignificantDigits: FIGURE_SIGNIFICANT_DIGITS,
});
const LARGE_FIGURE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/**
 * A measured figure for people, in the CLI, the notes and the report alike: three significant
 * digits below 1,000, whole numbers with separators from 1,000 up. 278,320 / 50 / 84.2 / 0.00125.
 */
export function formatFigure(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  return Math.abs(value) >= 1000 ? LARGE_FIGURE.format(value) : SMALL_FIGURE.format(value);
}

/** A 95% interval as the CLI prints it: `[0.926, 1.08]`. */
export function formatInterval([low, high]: readonly [number, number]): string {
  return `[${formatFigure(low)}, ${formatFigure(high)}]`;
}

const DURATION_UNITS = [
  { name: 'minute', seconds: 60 },
  { name: 'hour', seconds: 3600 },
  { name: 'day', seconds: 86_400 },
] as const;
export type DurationUnit = (typeof DURATION_UNITS)[number]['name'];

/**
 * A duration the way the course says it: two significant digits in the largest unit (up to
 * `largestUnit`) that holds at least one of it. 13,107 s → `about 3.6 hours`; 819 s →
 * `about 14 minutes`; 209,715 s → `about 58 hours`, or `about 2.4 days` with `'day'`.
 */
export function formatAboutDuration(seconds: number, largestUnit: DurationUnit = 'day'): string {
  if (!Number.isFinite(seconds)) return String(seconds);
  let unit: { readonly name: string; readonly seconds: number } = { name: 'second', seconds: 1 };
  for (const candidate of DURATION_UNITS) {
    if (seconds >= candidate.seconds) unit = candidate;
    if (candidate.name === largestUnit) break;
  }
  const value = Number((seconds / unit.seconds).toPrecision(2));
  return `about ${formatNumber(value, 1)} ${unit.name}${value === 1 ? '' : 's'}`;
}

const NS_STEPS = [
  { unit: 's', ns: 1e9 },
  { unit: 'ms', ns: 1e6 },
  { unit: 'µs', ns: 1e3 },
] as const;

/** A measured or modelled time at three significant digits: 235 ms, 10.0 ms, 1.25 s, 840 ns. */
export function formatDurationNs(ns: number): string {
  if (!Number.isFinite(ns)) return String(ns);
  const step = NS_STEPS.find((candidate) => Math.abs(ns) >= candidate.ns);
  const value = step === undefined ? ns : ns / step.ns;
  return `${Number(value.toPrecision(3))} ${step?.unit ?? 'ns'}`;
}
