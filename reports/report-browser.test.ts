/**
 * Opens report.html from disk in a real headless Chromium: every chart's SVG is there with its
 * marks, the page logs no error and asks for nothing but itself. Skips only on a developer
 * machine without /usr/bin/chromium (scripts/setup-debian.sh installs it); in CI it must run.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { sampleAllExperiments } from '../test/fixtures/sample-experiments.js';
import { writeReport } from './report.js';

const CHROMIUM_PATH = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
  '--no-first-run', '--disable-background-networking', '--disable-component-update',
  '--disable-sync'];
const REPO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Kept after the run for a look (git ignores tmp/). */
const OUTPUT_DIR = path.join(REPO_DIR, 'tmp', 'test-output', 'report-browser');

interface ChartOnPage {
  readonly widthPx: number;
  readonly marks: number;
}

describe('report.html in a real browser', () => {
  it('shows every chart with its marks, logs no error and fetches nothing', async (context) => {
    if (!fs.existsSync(CHROMIUM_PATH)) {
      const advice = `${CHROMIUM_PATH} is not installed; run scripts/setup-debian.sh`;
      if (process.env.CI) throw new Error(`report browser test: ${advice} (required in CI)`);
      context.skip(`skipped: ${advice}`);
    }
    fs.rmSync(OUTPUT_DIR, { recursive: true, force: true });
    const report = await writeReport(sampleAllExperiments(), path.join(OUTPUT_DIR, 'report'));
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
      const errors: string[] = [];
      const requests: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('request', (request) => requests.push(request.url()));
      const url = pathToFileURL(report.htmlPath).href;
      await page.goto(url, { waitUntil: 'load' });
      const charts: ChartOnPage[] = await page.$$eval('figure > svg', (svgs) => svgs.map((svg) => ({
        widthPx: svg.getBoundingClientRect().width,
        marks: svg.querySelectorAll('.role-mark > path, .role-mark > line, .role-mark > rect')
          .length,
      })));
      await page.screenshot({ path: path.join(OUTPUT_DIR, 'report.png'), fullPage: true });
      expect(charts).toHaveLength(report.charts.length);
      for (const chart of charts) {
        expect(chart.widthPx).toBeGreaterThan(0);
        expect(chart.marks).toBeGreaterThan(0);
      }
      expect(errors).toEqual([]);
      expect(requests).toEqual([url]);
      expect(fs.statSync(path.join(OUTPUT_DIR, 'report.png')).size).toBeGreaterThan(0);
    } finally {
      await browser.close();
    }
  });
});
