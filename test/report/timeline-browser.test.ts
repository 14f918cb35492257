// Opens timeline pages in headless Chromium (Debian's package, driven by playwright-core) and
// checks what a person would see: the violation markers over their pins, the list linking to
// them, no console errors, and nothing fetched from anywhere. Skips, saying how to install it,
// where Chromium is missing.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkHistory } from '../../src/checker/index.js';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { RunReport } from '../../src/report/types.js';
import { writeRunReport } from '../../src/report/write-run-report.js';
import { executeRun } from '../../src/scenario/execute-run.js';
import { pausePastLease } from '../e2e/runs.js';
import { mixedRun, oddStaleAck, scenario } from './fixtures.js';

const CHROMIUM = '/usr/bin/chromium';
const INSTALL = 'apt-get update && apt-get install -y chromium';
const haveChromium = existsSync(CHROMIUM);
const title = haveChromium
  ? 'timeline.html in headless Chromium'
  : `timeline.html in headless Chromium — SKIPPED: no ${CHROMIUM}; install it with: ${INSTALL}`;

/** What a page did while it was opened. */
interface Opened {
  page: Page;
  /** Console errors and uncaught exceptions. */
  errors: string[];
  /** Requests for anything but the file itself (the page must need no network). */
  requests: string[];
}

/** A marker as the page shows it, and where its pin is on the chart. */
interface MarkerView {
  id: string;
  hidden: boolean;
  center: [number, number];
  pin: [number, number];
  inChart: boolean;
}

/**
 * Runs in the page (as text: the project compiles without the DOM's types): each `.violation`
 * element, whether it is shown, its center, and where ECharts puts its pin — computed from the
 * page's own data with the page's row arithmetic — both relative to the chart.
 */
const MARKER_VIEWS = `(() => {
  const chartEl = document.getElementById('chart');
  const chart = echarts.getInstanceByDom(chartEl);
  const data = JSON.parse(document.getElementById('timeline-data').textContent);
  const box = chartEl.getBoundingClientRect();
  return [...document.querySelectorAll('.violation')].map((el) => {
    const m = data.markers.find((x) => x.id === el.id);
    const y = m.lane - 0.4 + (0.8 * (m.row + 0.5)) / data.lanes[m.lane].rows;
    const pin = chart.convertToPixel({ gridIndex: 0 }, [m.t, y]);
    const r = el.getBoundingClientRect();
    const center = [r.left + r.width / 2 - box.left, r.top + r.height / 2 - box.top];
    const inChart = center[0] > 0 && center[0] < box.width && center[1] > 0 && center[1] < box.height;
    return { id: el.id, hidden: el.hidden, center, pin, inChart };
  });
})()`;

describe.skipIf(!haveChromium)(title, () => {
  let context: BrowserContext;
  let scratch: string;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'leaseproof-browser-'));
    // The flags that work on this machine: without the background-networking ones Chromium
    // keeps trying to reach Google's hosts through a closed network.
    context = await chromium.launchPersistentContext(join(scratch, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1400, height: 900 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  async function open(file: string): Promise<Opened> {
    const page = await context.newPage();
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => {
      if (!/^(file|data|blob):/.test(r.url())) requests.push(r.url());
    });
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-rendered="true"]', { timeout: 15_000 });
    return { page, errors, requests };
  }

  async function markers(page: Page): Promise<MarkerView[]> {
    return page.evaluate<MarkerView[]>(MARKER_VIEWS);
  }

  /** Checks each marker is shown exactly over its pin, and returns their ids. */
  async function expectMarkersOverPins(page: Page): Promise<string[]> {
    const views = await markers(page);
    for (const v of views) {
      expect(v.hidden, `${v.id} hidden`).toBe(false);
      expect(v.inChart, `${v.id} inside the chart`).toBe(true);
      expect(Math.abs(v.center[0] - v.pin[0]), `${v.id} x`).toBeLessThan(1.5);
      expect(Math.abs(v.center[1] - v.pin[1]), `${v.id} y`).toBeLessThan(1.5);
    }
    return views.map((v) => v.id);
  }

  it('shows the violation markers of a fixture run, links to them from the list, and fetches nothing', async () => {
    const run: RunReport = { ...mixedRun(), scenarios: [scenario(oddStaleAck())] };
    const paths = await writeRunReport(join(scratch, 'fixture'), run);
    const { page, errors, requests } = await open(paths.scenarios[0]!.timeline);
    expect(await expectMarkersOverPins(page)).toEqual(['v-no-stale-ack-1']);
    // ECharts drew into its canvas.
    const canvas = await page.locator('#chart canvas').first().boundingBox();
    expect(canvas?.width).toBeGreaterThan(600);
    // Odd strings show as written (escaped in the markup, not interpreted).
    expect(await page.title()).toContain(`odd <&"'>`);
    // The list links to the marker: a click focuses it, zooms to it and explains it.
    await page.click('a[data-marker="v-no-stale-ack-1"]');
    await expect.poll(() => page.evaluate('location.hash')).toBe('#v-no-stale-ack-1');
    expect(await page.locator('#v-no-stale-ack-1').getAttribute('class')).toContain('focused');
    await expect.poll(() => page.locator('#details').isVisible()).toBe(true);
    expect(await page.locator('#details').textContent()).toMatch(/ack by w1 \(claim 1\) committed/);
    await page.waitForTimeout(300); // let the zoom settle, then the marker follows its pin
    await expectMarkersOverPins(page);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await page.close();
  });

  it('shows the no-stale-ack violation of a real unconditional-ack run without console errors', async () => {
    const env = await new EmbeddedEnvironmentProvider().start();
    let history;
    try {
      ({ history } = await executeRun(env, pausePastLease('unconditional-ack')));
    } finally {
      await env.stop();
    }
    const result = checkHistory(history);
    const invalid = result.results.filter((r) => r.valid === 'invalid');
    expect(invalid.map((r) => r.checker)).toContain('no-stale-ack');
    const paths = await writeRunReport(join(scratch, 'real'), {
      id: 'real',
      startedAt: new Date(),
      finishedAt: new Date(),
      scenarios: [{ history, result }],
    });
    const { page, errors, requests } = await open(paths.scenarios[0]!.timeline);
    const ids = await expectMarkersOverPins(page);
    expect(ids).toEqual(
      invalid.flatMap((r) => r.evidence.map((_, n) => `v-${r.checker}-${n + 1}`)),
    );
    expect(await page.locator('a[data-marker]').count()).toBe(ids.length);
    await page.screenshot({ path: join(scratch, 'real.png'), fullPage: true });
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await page.close();
  }, 120_000);
});
