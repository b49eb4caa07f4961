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
  const charts = new Map<string, ReportChart[]>(
    groups.map((group) => [
      group.id,
      [
        {
          title: `${group.id} chart`,
          howToRead: `${group.id}: higher is better.`,
          svg: '<svg></svg>',
          svgFile: `charts/${group.id}-main.svg`,
          pngFile: `charts/${group.id}-main.png`,
        },
      ],
    ]),
  );
  return renderMarkdown(buildReportModel(groups, charts, warnings));
}

describe('report.md', () => {
  const markdown = markdownFor(sampleAllExperiments());

  it('opens with the answers, then each experiment headline first, the environment last', () => {
    const puzzle = markdown.indexOf('**The puzzle.** With every send synced');
    const firstSection = markdown.indexOf('## puzzle');
    const environment = markdown.indexOf('## Environment');
    expect(puzzle).toBeGreaterThan(-1);
    expect(puzzle).toBeLessThan(firstSection);
    expect(markdown.indexOf('**Sizing a log.**')).toBeLessThan(firstSection);
    expect(environment).toBeGreaterThan(markdown.lastIndexOf('## mystery'));
    expect(markdown).toContain('## puzzle\n\nOn this disk the log stored 56× more messages');
  });

  it('gives each experiment its question, chart image and tables, in the registry order', () => {
    const order = [
      'puzzle',
      'write-amplification',
      'queue-depth',
      'page-cache',
      'durability',
      'index-density',
      'scan-vs-lookup',
      'segment-size',
      'recovery',
      'crash-safety',
      'mystery',
    ];
    const positions = order.map((id) => markdown.indexOf(`## ${id}\n`));
    expect(positions.every((position) => position > -1)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(markdown).toContain(
      '![puzzle chart](charts/puzzle-main.png)\n\n' + '*How to read it:* puzzle: higher is better.',
    );
    expect(markdown).toContain('*Question:* how many bytes reach the device per message?');
  });

  it('writes one table per quantity, titled, units in the header, numbers aligned', () => {
    expect(markdown).toContain(
      '**throughput** `msgsPerSec`\n\n' +
        '| design | policy | comparison | deletes | variant | median \\(msgs/s\\) | ' +
        '95% interval | p99 | n | predicted |\n' +
        '| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- |',
    );
    const row = markdown.split('\n').find((line) => line.startsWith('| A | always | always'));
    expect(row).toBe(
      `| A | always | ${ALWAYS} | each delete synced | — | ` +
        '52 | 49.4 – 54.6 | 156 | 30 | course: 50; hdd:exos-x20: 61; ssd:990-pro: 1,900 |',
    );
  });

  it('says once the labels every row of a table shares', () => {
    const ratio = markdown.slice(markdown.indexOf('`ratioBA`') - 40);
    expect(ratio).toMatch(/^[^\n]*\*\*throughput, B over A\*\* `ratioBA` · comparison: always/m);
  });

  it('adds a machine column when several machines ran one experiment', () => {
    const other = {
      ...samplePuzzle(),
      environment: { ...samplePuzzle().environment, hostname: 'other', kernel: '6.8.0' },
    };
    const text = markdownFor([samplePuzzle(), other]);
    expect(text).toContain(
      '| design | policy | comparison | deletes | variant | machine | median \\(msgs/s\\) |',
    );
    expect(text).toContain(
      '| A | none | none; no sync \\(page cache\\) | ' +
        'deletes not synced | — | vda · ext4 · Linux 6.8.0 | 9,100 |',
    );
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
    const lines = text.split('\n');
    const header = lines.find((line) => line.startsWith('| design |')) ?? '';
    const columns = (line: string): number => line.split(/(?<!\\)\|/).length;
    const table = lines.slice(lines.indexOf(header) + 2);
    const rows = table.slice(
      0,
      table.findIndex((line) => !line.startsWith('|')),
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const line of rows) expect(columns(line)).toBe(columns(header));
    expect(text).toContain(
      'note \\<script\\>alert\\("x"\\)\\</script\\> \\| \\*bold\\* ' +
        '\\[link\\]\\(http://evil.test\\) &amp;amp; second line',
    );
  });
});
