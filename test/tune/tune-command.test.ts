// `leaseproof tune` end to end from the CLI: the table and recommendation, tune.json, the
// scenario it writes (which the suite can run), and the HTML page opened in headless Chromium.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/scenario/load-scenario.js';
import type { TuneDocument } from '../../src/tune/tune-report.js';

const run = promisify(execFile);
const CHROMIUM = '/usr/bin/chromium';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'leaseproof-tune-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('leaseproof tune', () => {
  it("--queue: the recommendation checked on a queue's own SQL, and a native queue refused at once", async () => {
    // Pauses twenty times as often as the example's: a 12 s run of 300 jobs meets several.
    const example = await readFile('examples/tune.yaml', 'utf8');
    const file = join(dir, 'tune-queue.yaml');
    await writeFile(
      file,
      example
        .replace('jobs: 10000', 'jobs: 300')
        .replace('pausesPerWorkerHour: 60', 'pausesPerWorkerHour: 1200'),
    );
    const out = join(dir, 'out-queue');
    const failed = await run(
      process.execPath,
      [
        'bin/leaseproof.js',
        'tune',
        file,
        '--out',
        out,
        '--queue',
        'unconditional-ack',
        '--queue-points',
        '1',
      ],
      { timeout: 120_000 },
    ).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toMatch(
      /^best 1 \(point \d+\) on unconditional-ack's own SQL: INVALID: I1 no-stale-ack/m,
    );
    expect(failed?.stdout).toMatch(
      /^the recommendation does not hold on unconditional-ack's own SQL$/m,
    );
    const doc = JSON.parse(await readFile(join(out, 'tune.json'), 'utf8')) as TuneDocument;
    expect(doc.onQueue[0]).toMatchObject({
      queue: 'unconditional-ack',
      verdict: 'invalid',
      holds: false,
    });
    expect(await readFile(join(out, 'tune.html'), 'utf8')).toContain(
      "On unconditional-ack's own SQL",
    );
    const native = await run(
      process.execPath,
      ['bin/leaseproof.js', 'tune', file, '--out', out, '--queue', 'pg-boss-native'],
      { timeout: 60_000 },
    ).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(native?.code).toBe(2);
    expect(native?.stderr).toMatch(
      /--queue pg-boss-native: this queue runs its library's own worker loop/,
    );
  }, 180_000);

  it('prints a recommendation, writes tune.json, tune.html and a runnable scenario', async () => {
    // The example as shipped, with fewer jobs per point to keep the test short.
    const example = await readFile('examples/tune.yaml', 'utf8');
    const file = join(dir, 'tune.yaml');
    await writeFile(file, example.replace('jobs: 10000', 'jobs: 500'));
    const scenario = join(dir, 'recommended.yaml');
    const out = join(dir, 'out');
    const { stdout } = await run(
      process.execPath,
      ['bin/leaseproof.js', 'tune', file, '--out', out, '--write-scenario', scenario],
      { timeout: 120_000 },
    );
    expect(stdout).toMatch(/^recommended:$/m);
    expect(stdout).toMatch(/^ {2}- lease \d+ms = [\d.]+ × the handler's p99\.9 \(2000ms\)/m);
    expect(stdout).toMatch(/jobs simulated in [\d.]+s \(\d+ jobs\/s\)/);
    const doc = JSON.parse(await readFile(join(out, 'tune.json'), 'utf8')) as TuneDocument;
    expect(doc.tuneVersion).toBe(1);
    expect(doc.points).toHaveLength(28);
    expect(doc.recommended).toBeGreaterThanOrEqual(0);
    expect(doc.points[doc.recommended]?.overBudget).toEqual([]);
    expect(doc.points.some((p) => p.pareto)).toBe(true);
    // Without a heartbeat, the half-p99.9 lease re-runs slow handlers; with one it does not.
    const noHeartbeat = doc.points.find(
      (p) => p.leaseTimesP999 === 0.5 && p.heartbeatFraction === 0,
    );
    const withHeartbeat = doc.points.find(
      (p) => p.leaseTimesP999 === 0.5 && p.heartbeatFraction === 0.25,
    );
    expect(noHeartbeat?.result.leaseDuplicatesPer1000).toBeGreaterThan(0);
    expect(withHeartbeat?.result.leaseDuplicatesPer1000).toBe(0);
    const written = await loadScenario(scenario);
    expect(written.name).toBe('send-mail-recommended');
    expect(written.lease.durationMs).toBeLessThanOrEqual(2_000);
  }, 180_000);

  it.skipIf(!existsSync(CHROMIUM))(
    'tune.html draws its four charts in headless Chromium, with no error and no network',
    async () => {
      const html = join(dir, 'out', 'tune.html');
      expect(existsSync(html)).toBe(true);
      const context = await chromium.launchPersistentContext(join(dir, 'profile'), {
        executablePath: CHROMIUM,
        headless: true,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--no-first-run',
        ],
      });
      try {
        const page = await context.newPage();
        const errors: string[] = [];
        const requests: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        page.on('console', (m) => {
          if (m.type() === 'error') errors.push(m.text());
        });
        page.on('request', (r) => {
          if (!/^(file|data|blob):/.test(r.url())) requests.push(r.url());
        });
        await page.goto(pathToFileURL(html).href);
        await page.waitForSelector('body[data-charts="4"]', { timeout: 15_000 });
        expect(await page.textContent('h1')).toMatch(/send-mail: recommended lease \d+ms/);
        expect(await page.locator('#recommendation li').count()).toBeGreaterThanOrEqual(4);
        expect(errors).toEqual([]);
        expect(requests).toEqual([]);
      } finally {
        await context.close();
      }
    },
    60_000,
  );
});
