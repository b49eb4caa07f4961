import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeResultsFile, type Results } from '../lab/results.js';
import {
  onMachine,
  sampleAllExperiments,
  samplePageCache,
  samplePuzzle,
} from '../test/fixtures/sample-experiments.js';
import { writeReport } from './report.js';

const SPINNING_DISK = {
  hostname: 'archive',
  deviceModel: 'ST20000NM007D',
  filesystem: 'xfs',
  kernel: '6.8.0',
  speedFactor: 0.25,
};

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loglab-report-'));
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function writeFile(name: string, results: Results): string {
  const file = path.join(dir, 'results', name);
  writeResultsFile(file, results);
  return file;
}

function svgWidthPx(file: string): number {
  return Number(/<svg[^>]* width="(\d+)"/.exec(fs.readFileSync(file, 'utf8'))?.[1]);
}

describe('writeReport', () => {
  it('writes report.md, report.html and every chart as SVG and PNG', async () => {
    const out = path.join(dir, 'out');
    const report = await writeReport(sampleAllExperiments(), out);
    expect(report.markdownPath).toBe(path.join(out, 'report.md'));
    expect(fs.readFileSync(report.htmlPath, 'utf8')).toContain('<h2>puzzle</h2>');
    expect(report.charts.map((chart) => path.basename(chart.svgPath))).toContain(
      'puzzle-throughput.svg',
    );
    for (const chart of report.charts) {
      expect(fs.statSync(chart.svgPath).size).toBeGreaterThan(0);
      expect(fs.readFileSync(chart.pngPath).subarray(1, 4).toString()).toBe('PNG');
    }
    expect(report.warnings).toEqual([]);
    expect(report.chartWarnings).toEqual([]);
    expect(report.headlines[0]).toMatch(/^puzzle: On this disk the log stored 56×/);
  });

  it('puts several machines in one table and one chart, a series each', async () => {
    const here = samplePuzzle();
    const there = onMachine(samplePuzzle(), SPINNING_DISK);
    const report = await writeReport(
      [writeFile('a.json', here), writeFile('b.json', there)],
      path.join(dir, 'out'),
    );
    const throughput = report.charts.filter((chart) => chart.chartId === 'throughput');
    expect(throughput).toHaveLength(1);
    const svg = fs.readFileSync(throughput[0]?.svgPath ?? '', 'utf8');
    expect(svg).toContain('vda · ext4 · Linux 6.1 · A');
    expect(svg).toContain('ST20000NM007D · xfs · Linux 6.8.0 · B');
    expect(svgWidthPx(throughput[0]?.svgPath ?? '')).toBeLessThanOrEqual(800);
    const markdown = fs.readFileSync(report.markdownPath, 'utf8');
    expect(markdown.match(/^## puzzle$/gm)).toHaveLength(1);
    expect(markdown).toContain(
      '| A | always | always; every send synced; ' +
        'A: each delete synced; B: head per 1,000 deletes | each delete synced | — | ' +
        'ST20000NM007D · xfs · Linux 6.8.0 | 13 |',
    );
    expect(markdown).toContain('|  | vda · ext4 · Linux 6.1 | ST20000NM007D · xfs · Linux 6.8.0 |');
    expect(report.headlines).toEqual([
      `puzzle (vda · ext4 · Linux 6.1): ${here.headline}`,
      `puzzle (ST20000NM007D · xfs · Linux 6.8.0): ${there.headline}`,
    ]);
  });

  it('tells two runs on one machine apart by their start time', async () => {
    const first = samplePageCache();
    const second = {
      ...samplePageCache(),
      startedAt: '2026-11-30T08:00:00.000Z',
      endedAt: '2026-11-30T08:00:02.000Z',
    };
    const report = await writeReport([first, second], path.join(dir, 'out'));
    const markdown = fs.readFileSync(report.markdownPath, 'utf8');
    expect(markdown).toContain(
      '| append | vda · ext4 · Linux 6.1 · run ' + '2026-11-30T08:00:00.000Z |',
    );
    expect(markdown).toContain('vda · ext4 · Linux 6.1 · run 2026-11-29T12:00:00.000Z');
  });

  it('leaves out invalid and newer files with one line each naming file and field', async () => {
    const good = writeFile('good.json', samplePuzzle());
    const badField = path.join(dir, 'bad-field.json');
    const { unit: _unit, ...unitless } = samplePuzzle().metrics[0]!;
    fs.writeFileSync(badField, JSON.stringify({ ...samplePuzzle(), metrics: [unitless] }));
    const newer = path.join(dir, 'newer.json');
    fs.writeFileSync(newer, JSON.stringify({ ...samplePuzzle(), schema: 'loglab/results@2' }));
    const notJson = path.join(dir, 'not-json.json');
    fs.writeFileSync(notJson, '{ truncated');
    const missing = path.join(dir, 'missing.json');
    const report = await writeReport(
      [good, badField, newer, notJson, missing],
      path.join(dir, 'out'),
    );
    expect(report.warnings).toHaveLength(4);
    expect(report.warnings[0]).toMatch(new RegExp(`^${badField}: metrics\\.0\\.unit: `));
    expect(report.warnings[1]).toBe(
      `${newer}: schema: is loglab/results@2, this loglab reads ` +
        'loglab/results@1; upgrade loglab to read it',
    );
    expect(report.warnings[2]).toMatch(new RegExp(`^${notJson}: \\(file\\): is not JSON`));
    expect(report.warnings[3]).toMatch(new RegExp(`^${missing}: \\(file\\): cannot be read`));
    const markdown = fs.readFileSync(report.markdownPath, 'utf8');
    expect(markdown).toContain('## Files left out');
    expect(markdown).toContain('## puzzle');
  });

  it('reads every results file in a folder it is given', async () => {
    writeFile('puzzle.json', samplePuzzle());
    writeFile('page-cache.json', samplePageCache());
    const report = await writeReport([path.join(dir, 'results')], path.join(dir, 'out'));
    expect(new Set(report.charts.map((chart) => chart.experimentId))).toEqual(
      new Set(['puzzle', 'page-cache']),
    );
  });

  it('refuses to write a report when no input is a valid results document', async () => {
    const newer = path.join(dir, 'newer.json');
    fs.writeFileSync(newer, JSON.stringify({ schema: 'loglab/results@9' }));
    await expect(writeReport([newer], path.join(dir, 'out'))).rejects.toMatchObject({
      code: 'NO_VALID_RESULTS',
      message: expect.stringContaining(`${newer}: schema:`),
    });
    expect(fs.existsSync(path.join(dir, 'out', 'report.md'))).toBe(false);
  });

  it('keeps every chart of two machines within 800 px', async () => {
    const documents = sampleAllExperiments();
    const report = await writeReport(
      [...documents, ...documents.map((results) => onMachine(results, SPINNING_DISK))],
      path.join(dir, 'out'),
    );
    expect(report.chartWarnings).toEqual([]);
    for (const chart of report.charts) {
      expect(svgWidthPx(chart.svgPath), chart.svgPath).toBeLessThanOrEqual(800);
    }
  });
});
