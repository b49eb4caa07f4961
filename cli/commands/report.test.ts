import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { samplePageCache, samplePuzzle } from '../../test/fixtures/sample-experiments.js';
import { main } from '../cli.js';
import { writeResultsFile } from '../../lab/results.js';
import { writeSyntheticRuns } from '../../test/fixtures/synthetic-history.js';

let dir: string;
let stdout: string[];
let stderr: string[];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loglab-report-cli-'));
  stdout = [];
  stderr = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout.push(String(chunk));
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr.push(String(chunk));
    return true;
  });
});

afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

function resultsFiles(): string[] {
  const puzzle = path.join(dir, 'puzzle.json');
  const pageCache = path.join(dir, 'page-cache.json');
  writeResultsFile(puzzle, samplePuzzle());
  writeResultsFile(pageCache, samplePageCache());
  return [puzzle, pageCache];
}

describe('loglab report', () => {
  it('writes the report where --out says and prints the headlines and both paths', async () => {
    const out = path.join(dir, 'out');
    expect(await main(['report', ...resultsFiles(), '--out', out])).toBe(0);
    expect(fs.existsSync(path.join(out, 'report.html'))).toBe(true);
    expect(fs.existsSync(path.join(out, 'charts', 'page-cache-latency.png'))).toBe(true);
    const printed = stdout.join('');
    expect(printed).toContain(`puzzle: ${samplePuzzle().headline}`);
    expect(printed).toContain(`report: ${path.join(out, 'report.html')}\n`);
    expect(printed).toContain(`report: ${path.join(out, 'report.md')}\n`);
  });

  it('names a file it leaves out on stderr and still writes the report', async () => {
    const broken = path.join(dir, 'broken.json');
    fs.writeFileSync(broken, JSON.stringify({ ...samplePuzzle(), quick: 'yes' }));
    const out = path.join(dir, 'out');
    expect(await main(['report', broken, ...resultsFiles(), '--out', out])).toBe(0);
    expect(stderr.join('')).toMatch(new RegExp(`^loglab: left out ${broken}: quick: `, 'm'));
    expect(fs.readFileSync(path.join(out, 'report.md'), 'utf8')).toContain('## page-cache');
  });

  it('exits 2 naming the file when no file is a valid results document', async () => {
    const broken = path.join(dir, 'broken.json');
    fs.writeFileSync(broken, '[]');
    expect(await main(['report', broken, '--out', path.join(dir, 'out')])).toBe(2);
    expect(stderr.join('')).toContain(
      `loglab: INVALID_RESULTS: reports: no valid results ` +
        `document among 1 input(s): ${broken}: `,
    );
  });

  it('charts the gated metrics across commits from --history, and refuses a bad one', async () => {
    const runs = writeSyntheticRuns(dir, { runs: 4 });
    const db = path.join(dir, 'h.db');
    expect(await main(['history', 'add', ...runs, '--db', db])).toBe(0);
    const out = path.join(dir, 'out');
    expect(await main(['report', runs[3]!, '--history', db, '--out', out])).toBe(0);
    expect(fs.existsSync(path.join(out, 'charts', 'synthetic-trend-ratioba.svg'))).toBe(true);
    expect(fs.readFileSync(path.join(out, 'report.md'), 'utf8')).toContain(
      '![synthetic across commits: ratioBA](charts/synthetic-trend-ratioba.png)',
    );
    expect(await main(['report', runs[3]!, '--history', runs[0]!, '--out', out])).toBe(2);
    expect(stderr.join('')).toContain('is not a loglab history');
  });

  it('exits 2 when given no files', async () => {
    expect(await main(['report'])).toBe(2);
  });

  it('writes into ./loglab-report/<timestamp>/ by default', async () => {
    const files = resultsFiles();
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      expect(await main(['report', ...files])).toBe(0);
    } finally {
      process.chdir(cwd);
    }
    const folders = fs.readdirSync(path.join(dir, 'loglab-report'));
    expect(folders).toHaveLength(1);
    expect(folders[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/);
    expect(fs.existsSync(path.join(dir, 'loglab-report', folders[0]!, 'report.md'))).toBe(true);
  });
});
