/**
 * Text widths for laying out charts without a canvas. Vega's fallback guesses 0.8 em per
 * character, which makes titles and legends claim far more room than they draw and leaves charts
 * wider than 800 px with empty margins. These per-character advances (in em) follow DejaVu Sans,
 * the sans-serif font resvg draws the PNGs with; other sans-serif fonts are no wider.
 */
import * as vega from 'vega';

const ADVANCE_EM: Readonly<Record<string, number>> = {
  ' ': 0.318,
  '.': 0.318,
  ',': 0.318,
  ':': 0.337,
  ';': 0.337,
  '·': 0.318,
  "'": 0.275,
  '|': 0.337,
  '!': 0.4,
  '/': 0.337,
  '(': 0.39,
  ')': 0.39,
  '[': 0.39,
  ']': 0.39,
  '-': 0.361,
  i: 0.278,
  j: 0.278,
  l: 0.278,
  f: 0.352,
  t: 0.392,
  r: 0.411,
  s: 0.521,
  c: 0.55,
  z: 0.525,
  k: 0.579,
  v: 0.592,
  x: 0.592,
  y: 0.592,
  w: 0.818,
  m: 0.974,
  I: 0.295,
  J: 0.295,
  M: 0.863,
  W: 0.989,
  '%': 0.95,
  '@': 1.0,
  '…': 1.0,
  µ: 0.636,
  '×': 0.838,
};
const DIGIT_EM = 0.636;
const LOWERCASE_EM = 0.615;
const UPPERCASE_EM = 0.72;
const OTHER_EM = 0.7;
/** DejaVu Sans Bold runs about 16% wider than the regular face; rounded up to stay clear. */
const BOLD_FACTOR = 1.18;
const DEFAULT_FONT_SIZE_PX = 11;

function advanceEm(char: string): number {
  const listed = ADVANCE_EM[char];
  if (listed !== undefined) return listed;
  if (char >= '0' && char <= '9') return DIGIT_EM;
  if (char >= 'a' && char <= 'z') return LOWERCASE_EM;
  if (char >= 'A' && char <= 'Z') return UPPERCASE_EM;
  return OTHER_EM;
}

export function textWidthPx(text: string, fontSizePx: number, bold: boolean): number {
  let em = 0;
  for (const char of text) em += advanceEm(char);
  return em * fontSizePx * (bold ? BOLD_FACTOR : 1);
}

interface TextItem {
  readonly fontSize?: number | string;
  readonly fontWeight?: number | string;
}

function isBold(weight: number | string | undefined): boolean {
  return weight === 'bold' || (typeof weight === 'number' && weight >= 600);
}

/**
 * Makes Vega measure text with the table above, for this process. Vega documents
 * `textMetrics.width` as the hook for exactly this (it is how vl-convert measures); the widths
 * returned are untruncated because Vega's own label truncation calls this hook per candidate.
 */
export function useFontMetrics(): void {
  const metrics = (vega as unknown as { textMetrics: { width: unknown } }).textMetrics;
  metrics.width = (item: TextItem, text: unknown): number => {
    const size = item.fontSize === undefined ? DEFAULT_FONT_SIZE_PX : Number(item.fontSize);
    return textWidthPx(
      text === null || text === undefined ? '' : String(text).trim(),
      size,
      isBold(item.fontWeight),
    );
  };
}
