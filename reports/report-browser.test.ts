/**
 * Opens report.html from disk in a real headless Chromium at 1280×800: the first screen (the
 * answers, the small chart, the warnings, the contents) fits in the first 800 px; with every
 * section opened, every chart's SVG is there with its marks and no table is wider than its
 * column; the page logs no error and asks for nothing but itself. Runs on the synthetic fixture
 * and on the committed sample results. Skips only on a developer machine without
 * /usr/bin/chromium (scripts/setup-debian.sh installs it); in CI it must run.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { experiments } from '../experiments/index.js';
import { sampleAllExperiments } from '../test/fixtures/sample-experiments.js';
import { FIRST_SCREEN_ID } from './html.js';
import { type ReportInput, writeReport } from './report.js';

const CHROMIUM_PATH = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const REPO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SAMPLE_DIR = path.join(REPO_DIR, 'docs', 'sample-report');
/** Kept after the run for a look (git ignores tmp/). */
const OUTPUT_DIR = path.join(REPO_DIR, 'tmp', 'test-output', 'report-browser');
const SCREEN = { width: 1280, height: 800 };

interface ChartOnPage {
  readonly widthPx: number;
  readonly marks: number;
}

interface Layout {
  readonly firstScreenBottomPx: number;
  readonly pageWidthPx: number;
  /** Tables wider than the column they sit in: their caption or first header, and by how much. */
  readonly overflowing: readonly string[];
  readonly tables: number;
}

function sampleFiles(): string[] {
  return fs
    .readdirSync(SAMPLE_DIR)
    .filter((name) => name.endsWith('.json'))
    .map((name) => path.join(SAMPLE_DIR, name));
}

async function checkReport(browser: Browser, name: string, inputs: readonly ReportInput[]) {
  // The registry charts the committed sample, written before results carried their charts.
  const report = await writeReport(inputs, path.join(OUTPUT_DIR, name), { experiments });
  const page = await browser.newPage({ viewport: SCREEN });
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('request', (request) => requests.push(request.url()));
  const url = pathToFileURL(report.htmlPath).href;
  await page.goto(url, { waitUntil: 'load' });
  // The page opens scrolled to the top, so the section's box is where it lies on the page.
  const firstScreenBottomPx = await page.$eval(
    `#${FIRST_SCREEN_ID}`,
    (section) => section.getBoundingClientRect().bottom,
  );
  await page.screenshot({ path: path.join(OUTPUT_DIR, `${name}-first-screen.png`) });
  await page.$$eval('details', (all) =>
    all.forEach((details) => {
      details.setAttribute('open', '');
    }),
  );
  const overflowing = await page.$$eval('.table-wrap', (wraps) =>
    wraps
      .filter((wrap) => wrap.scrollWidth > wrap.clientWidth + 1)
      .map(
        (wrap) =>
          `${wrap.querySelector('caption, th')?.textContent ?? '?'}: ` +
          `${wrap.scrollWidth - wrap.clientWidth} px`,
      ),
  );
  const layout: Layout = {
    firstScreenBottomPx,
    overflowing,
    pageWidthPx: await page.$eval('html', (root) => root.scrollWidth),
    tables: await page.$$eval('.table-wrap', (wraps) => wraps.length),
  };
  const charts: ChartOnPage[] = await page.$$eval('figure > svg', (svgs) =>
    svgs.map((svg) => ({
      widthPx: svg.getBoundingClientRect().width,
      marks: svg.querySelectorAll('.role-mark > path, .role-mark > line, .role-mark > rect').length,
    })),
  );
  await page.close();
  return { report, url, errors, requests, layout, charts };
}

describe('report.html in a real browser at 1280×800', () => {
  it('answers on the first screen, draws every chart, fits every table, fetches nothing', async (context) => {
    if (!fs.existsSync(CHROMIUM_PATH)) {
      const advice = `${CHROMIUM_PATH} is not installed; run scripts/setup-debian.sh`;
      if (process.env.CI) throw new Error(`report browser test: ${advice} (required in CI)`);
      context.skip(`skipped: ${advice}`);
    }
    fs.rmSync(OUTPUT_DIR, { recursive: true, force: true });
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      for (const [name, inputs] of [
        ['fixture', sampleAllExperiments()],
        ['sample', sampleFiles()],
      ] as const) {
        const seen = await checkReport(browser, name, inputs);
        expect(seen.layout.firstScreenBottomPx, name).toBeGreaterThan(200);
        expect(seen.layout.firstScreenBottomPx, name).toBeLessThanOrEqual(SCREEN.height);
        expect(seen.layout.tables, name).toBeGreaterThan(10);
        expect(seen.layout.overflowing, name).toEqual([]);
        expect(seen.layout.pageWidthPx, name).toBeLessThanOrEqual(SCREEN.width);
        expect(seen.charts, name).toHaveLength(seen.report.charts.length);
        for (const chart of seen.charts) {
          expect(chart.widthPx, name).toBeGreaterThan(0);
          expect(chart.marks, name).toBeGreaterThan(0);
        }
        expect(seen.errors, name).toEqual([]);
        expect(seen.requests, name).toEqual([seen.url]);
        const shot = path.join(OUTPUT_DIR, `${name}-first-screen.png`);
        expect(fs.statSync(shot).size, name).toBeGreaterThan(0);
      }
    } finally {
      await browser.close();
    }
  }, 120_000);
});
