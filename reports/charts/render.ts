/**
 * Headless rendering: Vega-Lite compiles the spec, Vega renders it to SVG without a browser or
 * canvas, resvg turns the SVG into a PNG. Nothing here touches the network.
 */
import { Resvg } from '@resvg/resvg-js';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { ReportError } from '../report-error.js';
import { useFontMetrics } from './text-width.js';
import type { VegaLiteSpec } from './vega-lite-spec.js';

useFontMetrics();

/** PNGs are drawn at twice the SVG's size so they stay sharp in print and on dense screens. */
export const PNG_SCALE = 2;
/** resvg's stand-in for the generic `sans-serif` family Vega writes into the SVG. */
const SANS_SERIF_FONT = 'DejaVu Sans';

/**
 * Collects what Vega-Lite and Vega warn about, so tests can insist on none. Closures, not class
 * methods: Vega calls the logger's methods detached from the object.
 */
function warningLog(warnings: string[]): vega.LoggerInterface {
  let level = vega.Warn;
  const record = (...args: readonly unknown[]): void => {
    warnings.push(args.map(String).join(' '));
  };
  const log: vega.LoggerInterface = {
    level: ((next?: number) => {
      if (next === undefined) return level;
      level = next;
      return log;
    }) as vega.LoggerInterface['level'],
    warn: (...args: readonly unknown[]) => {
      record(...args);
      return log;
    },
    error: (...args: readonly unknown[]) => {
      record(...args);
      return log;
    },
    info: () => log,
    debug: () => log,
  };
  return log;
}

export interface RenderedSvg {
  readonly svg: string;
  readonly warnings: readonly string[];
}

export async function renderSvg(spec: VegaLiteSpec, chartName: string): Promise<RenderedSvg> {
  const warnings: string[] = [];
  const log = warningLog(warnings);
  try {
    const compiled = compile(spec as unknown as TopLevelSpec, { logger: log }).spec;
    const view = new vega.View(vega.parse(compiled), { renderer: 'none', logger: log });
    await view.runAsync();
    const svg = await view.toSVG();
    view.finalize();
    return { svg, warnings };
  } catch (error) {
    throw new ReportError(
      'CHART_FAILED',
      `chart ${chartName} could not be drawn: ${(error as Error).message}; ` +
        'check the chart its experiment declares (its `charts`) against the figures',
    );
  }
}

export function renderPng(svg: string): Buffer {
  const resvg = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: PNG_SCALE },
    background: 'white',
    font: {
      loadSystemFonts: true,
      defaultFontFamily: SANS_SERIF_FONT,
      sansSerifFamily: SANS_SERIF_FONT,
    },
  });
  return resvg.render().asPng();
}
