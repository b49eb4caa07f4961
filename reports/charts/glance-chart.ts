/**
 * The first screen's small chart: the puzzle's messages per second, A (the slot file) beside B
 * (the log), on this disk and on the modelled 7,200 rpm disk, for the same guarantee and for the
 * course's comparison. Log axis: the two sides differ by up to thousands of times.
 */
import type { PuzzleAnswer, PuzzlePair } from '../glance-puzzle.js';
import { SERIES_COLOURS, axisScale, type VegaLiteSpec } from './vega-lite-spec.js';

export const GLANCE_CHART_ID = 'first-screen-puzzle';
export const GLANCE_CHART_TITLE = 'The puzzle: messages stored per second';
export const GLANCE_HOW_TO_READ =
  'Higher is faster; in each panel A (the slot file) stands ' +
  'beside B (the log), measured on this disk and as the 7,200 rpm model predicts for the same ' +
  'writes.';

const CELL_WIDTH_PX = 170;
const CELL_HEIGHT_PX = 120;
const DESIGNS = ['A: slot file', 'B: log'];

interface GlanceBar {
  readonly comparison: string;
  readonly where: string;
  readonly design: string;
  readonly y: number;
}

function barsOf(pair: PuzzlePair | null, comparison: string): GlanceBar[] {
  if (pair === null) return [];
  const bars = [
    { comparison, where: 'this disk', design: DESIGNS[0]!, y: pair.measured.a },
    { comparison, where: 'this disk', design: DESIGNS[1]!, y: pair.measured.b },
  ];
  if (pair.modelled === null) return bars;
  return [
    ...bars,
    { comparison, where: '7,200 rpm model', design: DESIGNS[0]!, y: pair.modelled.a },
    { comparison, where: '7,200 rpm model', design: DESIGNS[1]!, y: pair.modelled.b },
  ];
}

/** The chart's spec, or null when the puzzle gave neither comparison. */
export function glanceChartSpec(answer: PuzzleAnswer): VegaLiteSpec | null {
  const values = [
    ...barsOf(answer.synced, 'every send synced'),
    ...barsOf(answer.course, "the course's comparison"),
  ];
  if (values.length === 0) return null;
  const scale = axisScale(values.map((bar) => bar.y));
  const y = {
    field: 'y',
    type: 'quantitative',
    title: `msgs/s${scale.log ? ', log scale' : ''}`,
    scale: scale.log ? { type: 'log', domain: scale.domain } : {},
    axis: { format: '~s', tickCount: 4 },
  };
  const base = scale.log && scale.domain !== null ? { y2: { datum: scale.domain[0] } } : {};
  return {
    config: {
      font: 'sans-serif',
      background: 'white',
      padding: 6,
      axis: { labelFontSize: 11, titleFontSize: 11, titleFontWeight: 'normal' },
      header: { labelFontSize: 12, titleFontSize: 12 },
      legend: { orient: 'bottom', labelFontSize: 11, titleFontSize: 11 },
      view: { stroke: '#cccccc' },
    },
    data: { values },
    facet: {
      column: {
        field: 'comparison',
        type: 'nominal',
        title: null,
        sort: ['every send synced', "the course's comparison"],
      },
    },
    spacing: 12,
    spec: {
      width: CELL_WIDTH_PX,
      height: CELL_HEIGHT_PX,
      mark: { type: 'bar' },
      encoding: {
        x: {
          field: 'where',
          type: 'nominal',
          title: null,
          sort: ['this disk', '7,200 rpm model'],
          axis: { labelAngle: 0 },
        },
        xOffset: { field: 'design', type: 'nominal', sort: DESIGNS },
        y,
        ...base,
        color: {
          field: 'design',
          type: 'nominal',
          title: 'design',
          sort: DESIGNS,
          scale: { domain: DESIGNS, range: SERIES_COLOURS.slice(0, 2) },
        },
      },
    },
  };
}
