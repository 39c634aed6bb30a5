// Opens report.html in headless Chromium: every chart renders, offline, with no console errors. Runs in Node (vitest).
// The browser is Debian's /usr/bin/chromium, driven through playwright-core.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateReport } from '../../report/generate';
import { DEFAULT_REPORT_OPTIONS } from '../../report/build-report';
import { smallRunParts, writeRunFixture } from './fixtures/make-run';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

let tmp: string;
let htmlPath: string;
let chartCount = 0;
let context: BrowserContext | null = null;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'report-html-'));
  const dir = join(tmp, 'run');
  writeRunFixture({ dir, parts: smallRunParts(), failEvery: 50 });
  const r = await generateReport(dir, { ...DEFAULT_REPORT_OPTIONS, baseline: null, tolerance: 0.1, outDir: null });
  htmlPath = join(dir, 'report.html');
  chartCount = new Set(readFileSync(join(dir, 'report.md'), 'utf8').match(/charts\/[a-z0-9_]+\.svg/g) ?? []).size;
  expect(chartCount).toBeGreaterThan(10);
  expect(r.files).toContain('report.html');
});

afterAll(async () => {
  await context?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('report.html in headless Chromium', () => {
  it('is self-contained: no external scripts, styles or fetches', () => {
    const html = readFileSync(htmlPath, 'utf8');
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(html).not.toMatch(/<link[^>]+href=/);
    expect(html).not.toMatch(/https?:\/\/cdn/);
  });

  it.skipIf(!existsSync(CHROMIUM))('renders every chart with hover tooltips and no console errors', async () => {
    // A fresh --user-data-dir per run (playwright passes it from launchPersistentContext).
    context = await chromium.launchPersistentContext(mkdtempSync(join(tmp, 'profile-')), {
      executablePath: CHROMIUM, args: ARGS, headless: true, timeout: 30_000, viewport: { width: 1200, height: 900 },
      offline: true,
    });
    const page = await context.newPage();
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) requests.push(r.url());
    });
    await page.goto(pathToFileURL(htmlPath).href, { waitUntil: 'load' });
    // Browser-side code is passed as strings: the Node tsconfig has no DOM types.
    await page.waitForFunction("typeof window.__reportCharts === 'number'", undefined, { timeout: 15_000 });
    const rendered = await page.evaluate<number>('window.__reportCharts');
    expect(rendered).toBe(chartCount);
    // Each chart container holds an SVG with drawn paths.
    const svgs = await page.$$eval('[data-chart]', (els) => els.map((el) => el.querySelectorAll('svg path').length));
    expect(svgs.length).toBe(chartCount);
    for (const n of svgs) expect(n).toBeGreaterThan(3);
    // Threshold lines are dashed.
    const dashed = await page.$$eval(
      '[data-chart="usecase_general_chatbot"] svg path[stroke-dasharray]', (els) => els.length,
    );
    expect(dashed).toBeGreaterThan(0);
    // Hovering a chart shows a tooltip with values.
    const chart = page.locator('[data-chart="throughput"]');
    await chart.scrollIntoViewIfNeeded();
    const box = await chart.boundingBox();
    expect(box).not.toBeNull();
    await page.mouse.move(box!.x + box!.width / 2 - 20, box!.y + box!.height / 2);
    await page.mouse.move(box!.x + box!.width / 2, box!.y + box!.height / 2, { steps: 5 });
    const tooltip = await page.waitForFunction(
      `(() => {
        const el = document.querySelector('[data-chart="throughput"]');
        const tip = Array.from(el ? el.querySelectorAll('div') : []).find((d) => {
          const s = getComputedStyle(d);
          return s.position === 'absolute' && /concurrent/.test(d.textContent || '') && s.display !== 'none' &&
            s.visibility !== 'hidden';
        });
        return tip ? tip.textContent : null;
      })()`,
      undefined,
      { timeout: 5000 },
    );
    expect(String(await tooltip.jsonValue())).toMatch(/\d/);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
  });
});
