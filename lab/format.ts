/** Number formatting shared by the CLI, the model printout and error messages. */

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

/** A measured figure at a readable precision: 278,320 / 49.98 / 0.00125. */
export function formatFigure(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return formatNumber(value);
  return String(Number(value.toPrecision(3)));
}
