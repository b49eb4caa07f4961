/**
 * The report writer: results documents in, a folder out with report.md, report.html and each
 * chart as SVG and PNG under charts/. This is what `loglab report` and the end of `loglab run`
 * (and `npm run lab`) call.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type TrendDocument, trendDocumentSchema } from '../lab/history/trend-document.js';
import { type ExperimentDeclarations, withDeclarations } from '../lab/results-declarations.js';
import { experimentCharts } from './charts/experiment-charts.js';
import {
  GLANCE_CHART_ID,
  GLANCE_CHART_TITLE,
  GLANCE_HOW_TO_READ,
  glanceChartSpec,
} from './charts/glance-chart.js';
import { renderPng, renderSvg } from './charts/render.js';
import { trendCharts } from './charts/trend-chart.js';
import type { VegaLiteSpec } from './charts/vega-lite-spec.js';
import { renderHtml } from './html.js';
import { loadResults, type ReportInput } from './load-results.js';
import { renderMarkdown } from './markdown.js';
import { ReportError } from './report-error.js';
import {
  buildReportModel,
  firstPuzzleAnswer,
  type Headline,
  type ReportChart,
} from './report-model.js';
import { groupByExperiment, labelRuns, type ExperimentGroup } from './runs.js';

export type { ReportInput } from './load-results.js';

export const CHARTS_DIR = 'charts';
/** Where reports go unless told otherwise; git ignores it. */
export const REPORTS_ROOT_DIR = 'loglab-report';

/** `loglab-report/2026-11-29T12-00-00-000Z`: one folder per report, sortable by time. */
export function defaultReportDir(now: Date): string {
  return path.join(REPORTS_ROOT_DIR, now.toISOString().replace(/[:.]/g, '-'));
}

export interface ChartFiles {
  readonly experimentId: string;
  readonly chartId: string;
  readonly svgPath: string;
  readonly pngPath: string;
}

export interface ReportOutput {
  readonly markdownPath: string;
  readonly htmlPath: string;
  readonly charts: readonly ChartFiles[];
  /** One sentence per results document that has a headline: `puzzle: On this disk …`. */
  readonly headlines: readonly string[];
  /** One line per input left out: `file: field: what is wrong`. */
  readonly warnings: readonly string[];
  /** What Vega-Lite or Vega said while drawing; empty when every chart drew cleanly. */
  readonly chartWarnings: readonly string[];
}

function fileStem(experimentId: string, chartId: string, used: Set<string>): string {
  const base = `${experimentId}-${chartId}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  let stem = base === '' ? 'chart' : base;
  for (let copy = 2; used.has(stem); copy += 1) stem = `${base}-${copy}`;
  used.add(stem);
  return stem;
}

interface DrawnChart {
  readonly chart: ReportChart;
  readonly files: ChartFiles;
  readonly warnings: readonly string[];
}

/** What drawing a chart needs: where it belongs, its spec and its words. */
interface ChartToDraw {
  readonly experimentId: string;
  readonly chartId: string;
  readonly title: string;
  readonly howToRead: string;
  readonly spec: VegaLiteSpec;
}

async function drawChart(
  built: ChartToDraw,
  outDir: string,
  used: Set<string>,
): Promise<DrawnChart> {
  const stem = fileStem(built.experimentId, built.chartId, used);
  const rendered = await renderSvg(built.spec, stem);
  const svgFile = `${CHARTS_DIR}/${stem}.svg`;
  const pngFile = `${CHARTS_DIR}/${stem}.png`;
  const svgPath = path.join(outDir, svgFile);
  const pngPath = path.join(outDir, pngFile);
  fs.writeFileSync(svgPath, rendered.svg);
  fs.writeFileSync(pngPath, renderPng(rendered.svg));
  return {
    chart: { title: built.title, howToRead: built.howToRead, svg: rendered.svg, svgFile, pngFile },
    files: { experimentId: built.experimentId, chartId: built.chartId, svgPath, pngPath },
    warnings: rendered.warnings.map((warning) => `${stem}: ${warning}`),
  };
}

/** The charts the group's documents declare, then its trends across commits, if any. */
function chartsToDraw(group: ExperimentGroup, trend: TrendDocument | null): ChartToDraw[] {
  const declared = experimentCharts(group).map((built) => ({
    experimentId: built.experimentId,
    chartId: built.def.id,
    title: built.def.title,
    howToRead: built.def.howToRead,
    spec: built.spec,
  }));
  const trends = trend === null ? [] : trendCharts(trend, group.id);
  return [...declared, ...trends.map((built) => ({ experimentId: group.id, ...built }))];
}

async function drawAll(
  groups: readonly ExperimentGroup[],
  outDir: string,
  trend: TrendDocument | null,
): Promise<{
  byExperiment: Map<string, ReportChart[]>;
  drawn: DrawnChart[];
}> {
  fs.mkdirSync(path.join(outDir, CHARTS_DIR), { recursive: true });
  const used = new Set<string>();
  const byExperiment = new Map<string, ReportChart[]>();
  const drawn: DrawnChart[] = [];
  for (const group of groups) {
    const charts: ReportChart[] = [];
    for (const built of chartsToDraw(group, trend)) {
      const result = await drawChart(built, outDir, used);
      charts.push(result.chart);
      drawn.push(result);
    }
    byExperiment.set(group.id, charts);
  }
  return { byExperiment, drawn };
}

function headlineSentence(headline: Headline): string {
  const where = headline.machine === null ? '' : ` (${headline.machine})`;
  return `${headline.experimentId}${where}: ${headline.text}`;
}

export interface ReportOptions {
  /**
   * The experiments the caller knows (the CLI hands its registry), in the order their sections
   * come; experiments it does not know follow in the order their documents came. A document
   * written before results carried charts and titles takes its experiment's from here; without
   * one its experiment gets the generic chart and raw quantity names.
   */
  readonly experiments?: readonly ExperimentDeclarations[];
  /**
   * A results history's trends (`loglab report --history`): each experiment's section gains a
   * chart of its gated metrics across commits. Checked against its schema here.
   */
  readonly trend?: TrendDocument;
}

/**
 * Writes the report for `inputs` (results files, folders of them, or documents) into `outDir`.
 * Inputs that do not validate are left out with a warning; throws ReportError NO_VALID_RESULTS
 * when none does.
 */
export async function writeReport(
  inputs: readonly ReportInput[],
  outDir: string,
  options: ReportOptions = {},
): Promise<ReportOutput> {
  if (inputs.length === 0) throw new Error('assertion failed: writeReport has inputs');
  const loaded = loadResults(inputs);
  if (loaded.documents.length === 0) {
    throw new ReportError(
      'NO_VALID_RESULTS',
      `no valid results document among ${inputs.length} ` +
        `input(s): ${loaded.warnings.join('; ')}; pass results files written by 'loglab run'`,
    );
  }
  const known = options.experiments ?? [];
  const documents = loaded.documents.map(({ source, results }) => ({
    source,
    results: withDeclarations(results, known),
  }));
  const order = known.map((experiment) => experiment.id);
  const groups = groupByExperiment(labelRuns(documents), order);
  const trend = options.trend === undefined ? null : trendDocumentSchema.parse(options.trend);
  const { byExperiment, drawn } = await drawAll(groups, outDir, trend);
  const answer = firstPuzzleAnswer(groups);
  const glanceSpec = answer === null ? null : glanceChartSpec(answer);
  const glance =
    glanceSpec === null
      ? null
      : await drawChart(
          {
            experimentId: 'puzzle',
            chartId: GLANCE_CHART_ID,
            title: GLANCE_CHART_TITLE,
            howToRead: GLANCE_HOW_TO_READ,
            spec: glanceSpec,
          },
          outDir,
          new Set(),
        );
  if (glance !== null) drawn.push(glance);
  const model = buildReportModel(groups, byExperiment, loaded.warnings, glance?.chart ?? null);
  const markdownPath = path.join(outDir, 'report.md');
  const htmlPath = path.join(outDir, 'report.html');
  fs.writeFileSync(markdownPath, renderMarkdown(model));
  fs.writeFileSync(htmlPath, renderHtml(model));
  return {
    markdownPath,
    htmlPath,
    charts: drawn.map((chart) => chart.files),
    headlines: model.headlines.map(headlineSentence),
    warnings: loaded.warnings,
    chartWarnings: drawn.flatMap((chart) => chart.warnings),
  };
}
