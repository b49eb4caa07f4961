/**
 * Every chart of the committed sample report (docs/sample-report/*.json, a real quick run) drawn
 * again: each PNG is a non-empty image, each SVG carries its axis titles and legend entries, and
 * no legend entry names a series, share or model that drew no visible mark.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { experiments } from '../../experiments/index.js';
import { withDeclarations } from '../../lab/results-declarations.js';
import { loadResults } from '../load-results.js';
import { firstPuzzleAnswer } from '../report-model.js';
import { groupByExperiment, labelRuns } from '../runs.js';
import { experimentCharts } from './experiment-charts.js';
import { glanceChartSpec } from './glance-chart.js';
import { renderPng, renderSvg } from './render.js';
import type { VegaLiteSpec } from './vega-lite-spec.js';

const SAMPLE_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'docs',
  'sample-report',
);
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function sampleGroups() {
  const files = fs
    .readdirSync(SAMPLE_DIR)
    .filter((name) => name.endsWith('.json'))
    .map((name) => path.join(SAMPLE_DIR, name));
  const loaded = loadResults(files);
  expect(loaded.warnings).toEqual([]);
  // Written before results carried their charts: the registry's, as `loglab report` fills in.
  const documents = loaded.documents.map(({ source, results }) => ({
    source,
    results: withDeclarations(results, experiments),
  }));
  return groupByExperiment(
    labelRuns(documents),
    experiments.map((experiment) => experiment.id),
  );
}

function unescapeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

function textsOf(svg: string, role: string): string[] {
  const pattern = new RegExp(`class="mark-text ${role}"[^>]*>((?:<text[^>]*>[^<]*</text>)+)`, 'g');
  return [...svg.matchAll(pattern)].flatMap((match) =>
    [...(match[1] ?? '').matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((text) =>
      unescapeXml(text[1] ?? ''),
    ),
  );
}

/** A mark with area or length: a bar of height 0 (`v0`) draws nothing a reader can see. */
function visible(path: string): boolean {
  return !/[vh]-?0(?:\.0+)?(?![.\d])/.test(path) || /[LAC]/.test(path);
}

/** The aria labels (`series: total; share: total`) of every mark drawn with some size. */
function drawnMarks(svg: string): string[] {
  const groups = [...svg.matchAll(/<g class="mark-[a-z]+ role-mark[^"]*"[^>]*>(.*?)<\/g>/gs)];
  return groups.flatMap((group) =>
    [...(group[1] ?? '').matchAll(/<path ([^>]*)>/g)]
      .filter((mark) => visible(/ d="([^"]*)"/.exec(mark[1] ?? '')?.[1] ?? ''))
      .map((mark) => unescapeXml(/aria-label="([^"]*)"/.exec(mark[1] ?? '')?.[1] ?? '')),
  );
}

/** The axis titles a spec asks for, from every encoding in it. */
function axisTitles(spec: unknown): string[] {
  if (spec === null || typeof spec !== 'object') return [];
  const node = spec as Record<string, unknown>;
  const own = ['x', 'y'].flatMap((channel) => {
    const title = (node.encoding as Record<string, { title?: unknown }> | undefined)?.[channel]
      ?.title;
    return typeof title === 'string' ? [title] : [];
  });
  return [...own, ...Object.values(node).flatMap(axisTitles)];
}

async function expectReadable(name: string, spec: VegaLiteSpec, legend: readonly string[]) {
  const { svg, warnings } = await renderSvg(spec, name);
  expect(warnings, name).toEqual([]);
  const png = renderPng(svg);
  expect(png.subarray(0, 8).equals(PNG_SIGNATURE), name).toBe(true);
  expect(png.length, name).toBeGreaterThan(2_000);
  const titles = textsOf(svg, 'role-axis-title');
  for (const title of new Set(axisTitles(spec))) expect(titles, name).toContain(title);
  const labels = textsOf(svg, 'role-legend-label');
  for (const entry of legend) expect(labels, name).toContain(entry);
  const marks = drawnMarks(svg);
  for (const label of labels.filter((entry) => !entry.endsWith('…'))) {
    const drawn = marks.some((aria) =>
      aria.split('; ').some((part) => part.endsWith(`: ${label}`)),
    );
    expect(drawn, `${name}: legend entry '${label}' has a visible mark`).toBe(true);
  }
}

describe("the sample report's charts", () => {
  it('draw every chart with its axis titles and legend entries, each entry with marks', async () => {
    const groups = sampleGroups();
    let drawn = 0;
    for (const group of groups) {
      for (const chart of experimentCharts(group)) {
        const legend = chart.panels.flatMap((panel) => [
          ...(panel.hasSeries ? [...panel.colourSort, ...panel.dashSort] : []),
          ...panel.models,
        ]);
        await expectReadable(`${group.id}-${chart.def.id}`, chart.spec, legend);
        drawn += 1;
      }
    }
    expect(drawn).toBeGreaterThanOrEqual(16);
  }, 120_000);

  it("draw the first screen's puzzle chart, A beside B, on this disk and modelled", async () => {
    const answer = firstPuzzleAnswer(sampleGroups());
    const spec = answer === null ? null : glanceChartSpec(answer);
    expect(spec).not.toBeNull();
    await expectReadable('first-screen-puzzle', spec!, ['A: slot file', 'B: log']);
  });
});

describe('the legend check', () => {
  it('finds a zero-height bar invisible and a bar with height visible', () => {
    expect(visible('M10,190h24.7v0h-24.7Z')).toBe(false);
    expect(visible('M10,168h24.7v21.9h-24.7Z')).toBe(true);
    expect(visible('M0,10L5,0L10,10Z')).toBe(true);
  });
});
