import { describe, expect, it } from 'vitest';
import { groupsOf } from '../test/fixtures/experiment-groups.js';
import { HOSTILE, hostileResults } from '../test/fixtures/hostile-results.js';
import { sampleAllExperiments, samplePuzzle } from '../test/fixtures/sample-experiments.js';
import type { Results } from '../lab/results.js';
import { experimentCharts } from './charts/experiment-charts.js';
import { renderSvg } from './charts/render.js';
import { escapeHtml, renderHtml } from './html.js';
import { buildReportModel, type ReportChart } from './report-model.js';

async function htmlFor(
  documents: readonly Results[],
  warnings: readonly string[] = [],
): Promise<string> {
  const groups = groupsOf(documents);
  const charts = new Map<string, ReportChart[]>();
  for (const group of groups) {
    const drawn: ReportChart[] = [];
    for (const chart of experimentCharts(group)) {
      const { svg } = await renderSvg(chart.spec, chart.def.id);
      drawn.push({
        title: chart.def.title,
        howToRead: chart.def.howToRead,
        svg,
        svgFile: 'charts/x.svg',
        pngFile: 'charts/x.png',
      });
    }
    charts.set(group.id, drawn);
  }
  return renderHtml(buildReportModel(groups, charts, warnings));
}

describe('report.html', () => {
  it('escapes every value from the results, in text, tables and charts', async () => {
    const html = await htmlFor([hostileResults()], [`bad.json: schema: ${HOSTILE}`]);
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain(`headline ${escapeHtml(HOSTILE)}`);
    expect(html).toContain(`question ${escapeHtml(HOSTILE)}`);
    expect(html).toContain(`host ${escapeHtml(HOSTILE)}`);
    expect(html).toContain(`bad.json: schema: ${escapeHtml(HOSTILE)}`);
    expect(html).toContain('&amp;amp;');
  });

  it('fetches nothing: no script, stylesheet link, font, image or external URL', async () => {
    const html = await htmlFor(sampleAllExperiments());
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<(script|link|img|iframe|object|embed)\b/i);
    expect(html).not.toMatch(/@import|@font-face|url\(/i);
    expect(html).not.toMatch(/\s(src|srcset|xlink:href)=/i);
    const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1]);
    expect(hrefs.every((href) => href?.startsWith('#'))).toBe(true);
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none';`,
    );
  });

  it('inlines one SVG per chart, without ids that could clash between charts', async () => {
    const html = await htmlFor(sampleAllExperiments());
    const charts = sampleAllExperiments().flatMap((results) =>
      experimentCharts(groupsOf([results])[0]!),
    );
    expect(html.match(/<figure><svg /g)).toHaveLength(charts.length);
    expect(html).not.toMatch(/<svg[^>]*\sid=|<[a-z]+[^>]*\sid="clip/);
  });

  it('links each experiment from the first screen to its collapsible section', async () => {
    const html = await htmlFor(sampleAllExperiments());
    expect(html).toContain('<a href="#experiment-scan-vs-lookup">scan-vs-lookup</a>');
    expect(html).toContain('<details id="experiment-scan-vs-lookup">');
    expect(html.indexOf('<section id="first-screen">')).toBeLessThan(
      html.indexOf('<h2>puzzle</h2>'),
    );
    expect(html.indexOf('<h2>Environment</h2>')).toBeGreaterThan(html.indexOf('<h2>mystery</h2>'));
  });

  it('opens each experiment with its headline, then charts, then its tables', async () => {
    const html = await htmlFor(sampleAllExperiments());
    const section = html.slice(
      html.indexOf('<details id="experiment-puzzle">'),
      html.indexOf('<details id="experiment-write-amplification">'),
    );
    const headline = section.indexOf('<p class="headline">On this disk the log stored 56×');
    expect(headline).toBeGreaterThan(section.indexOf('</summary>'));
    expect(headline).toBeLessThan(section.indexOf('<figure>'));
    expect(section.indexOf('<figure>')).toBeLessThan(section.indexOf('<table>'));
  });

  it('heads each table with the human title and keeps the raw name beside it', async () => {
    const html = await htmlFor(sampleAllExperiments());
    expect(html).toContain(
      '<caption><span title="msgsPerSec">throughput</span> ' + '<code>msgsPerSec</code>',
    );
    expect(html).toContain('<tr title="puzzle.A.always.msgsPerSec">');
    expect(html).toContain('<th class="number">median (msgs/s)</th>');
  });

  it('captions each chart with how to read it, not its title again', async () => {
    const html = await htmlFor([samplePuzzle()]);
    const captions = [...html.matchAll(/<figcaption>([^<]*)<\/figcaption>/g)].map((m) => m[1]);
    expect(captions[0]).toMatch(/^Higher is faster: within each guarantee, A \(the slot file\)/);
    expect(captions).not.toContain(
      'Messages stored per second: three comparisons, each under its guarantee',
    );
  });
});
