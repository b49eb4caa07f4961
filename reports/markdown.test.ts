import { describe, expect, it } from 'vitest';
import { groupsOf } from '../test/fixtures/experiment-groups.js';
import { HOSTILE, hostileResults } from '../test/fixtures/hostile-results.js';
import { sampleAllExperiments, samplePuzzle } from '../test/fixtures/sample-experiments.js';
import type { Results } from '../lab/results.js';
import { escapeMarkdown, renderMarkdown } from './markdown.js';

/** The puzzle's `always` category, as experiments/puzzle.ts labels it. */
const ALWAYS = 'always; every send synced; A: each delete synced; B: head per 1,000 deletes';
import { buildReportModel, type ReportChart } from './report-model.js';

function markdownFor(documents: readonly Results[], warnings: readonly string[] = []): string {
  const groups = groupsOf(documents);
  const charts = new Map<string, ReportChart[]>(groups.map((group) => [group.id, [{
    title: `${group.id} chart`, svg: '<svg></svg>', svgFile: `charts/${group.id}-main.svg`,
    pngFile: `charts/${group.id}-main.png`,
  }]]));
  return renderMarkdown(buildReportModel(groups, charts, warnings));
}

describe('report.md', () => {
  const markdown = markdownFor(sampleAllExperiments());

  it('puts the headlines first and the environment last', () => {
    const headlines = markdown.indexOf('## Headlines');
    const firstSection = markdown.indexOf('## puzzle');
    const environment = markdown.indexOf('## Environment');
    expect(headlines).toBeGreaterThan(-1);
    expect(headlines).toBeLessThan(firstSection);
    expect(environment).toBeGreaterThan(markdown.lastIndexOf('## mystery'));
    expect(markdown).toContain('- **puzzle**: On this disk the log stored 56× more messages');
  });

  it('gives each experiment its question, chart image and table, in the chart table order', () => {
    const order = ['puzzle', 'write-amplification', 'queue-depth', 'page-cache', 'durability',
      'index-density', 'scan-vs-lookup', 'segment-size', 'recovery', 'crash-safety', 'mystery'];
    const positions = order.map((id) => markdown.indexOf(`## ${id}\n`));
    expect(positions.every((position) => position > -1)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(markdown).toContain('![puzzle chart](charts/puzzle-main.png)');
    expect(markdown).toContain('*Question:* how many bytes reach the device per message?');
  });

  it('writes figures with units, intervals, sample counts and predictions', () => {
    const row = markdown.split('\n').find((line) => line.startsWith('| msgsPerSec | A | always'));
    expect(row).toBe(`| msgsPerSec | A | always | ${ALWAYS} | each delete synced | — | ` +
      '52 msgs/s | 49.4 – 54.6 msgs/s | 156 msgs/s | ' +
      '30 | seed: 50 msgs/s; hdd:exos-x20: 61 msgs/s; ssd:990-pro: 1,900 msgs/s |');
    expect(markdown).toContain(`| sendLatencyNs | A | always | ${ALWAYS} | each delete synced | ` +
      '— | 19.2 ms | 18.3 – 20.2 ms |');
  });

  it('adds a machine column when several machines ran one experiment', () => {
    const other = { ...samplePuzzle(), environment: { ...samplePuzzle().environment,
      hostname: 'other', kernel: '6.8.0' } };
    const text = markdownFor([samplePuzzle(), other]);
    expect(text).toContain(
      '| figure | design | policy | comparison | deletes | variant | machine | median |');
    expect(text).toContain('| msgsPerSec | A | none | none; no sync \\(page cache\\) | ' +
      'deletes not synced | — | vda · ext4 · Linux 6.8.0 | 9,100 msgs/s |');
  });

  it('lists the files left out after the headlines', () => {
    const text = markdownFor([samplePuzzle()], ['bad.json: metrics.0.unit: Invalid input']);
    expect(text).toContain('## Files left out\n\n- bad.json: metrics.0.unit: Invalid input');
  });

  it('escapes every value so none breaks a table or reaches a page as markup', () => {
    const text = markdownFor([hostileResults()]);
    expect(text).not.toContain('<script>');
    expect(text).not.toContain('](http');
    expect(text).toContain(escapeMarkdown(HOSTILE));
    const header = text.split('\n').find((line) => line.startsWith('| figure |')) ?? '';
    const columns = (line: string): number => line.split(/(?<!\\)\|/).length;
    for (const line of text.split('\n').filter((l) => l.startsWith('| msgsPerSec'))) {
      expect(columns(line)).toBe(columns(header));
    }
    expect(text).toContain('note \\<script\\>alert\\("x"\\)\\</script\\> \\| \\*bold\\* ' +
      '\\[link\\]\\(http://evil.test\\) &amp;amp; second line');
  });
});
