// One copy of ECharts per report folder: the library is written once beside the pages, and
// every page reaches it by a relative path, so the folder opens from disk and stays small.
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assetSrc } from '../../src/report/echarts-asset.js';
import { mergeRuns } from '../../src/report/merge-runs.js';
import type { RunReport } from '../../src/report/types.js';
import { writeRunReport } from '../../src/report/write-run-report.js';
import { cleanRun } from '../checker/fixtures/anomalies.js';
import { mixedRun, oddStaleAck, renamed, scenario } from './fixtures.js';

const LIBRARY = createRequire(import.meta.url).resolve('echarts/dist/echarts.min.js');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'leaseproof-asset-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** The folder's files holding ECharts (its own header comment names it), by path. */
async function copiesOfLibrary(folder: string): Promise<string[]> {
  const signature = (await readFile(LIBRARY, 'utf8')).slice(0, 400);
  const found: string[] = [];
  for (const file of await filesUnder(folder)) {
    if ((await readFile(file, 'utf8')).includes(signature)) found.push(file);
  }
  return found;
}

/** Each page's `<script src>`, resolved against the page's own folder as a browser does. */
async function scriptTargets(page: string): Promise<string[]> {
  const html = await readFile(page, 'utf8');
  return [...html.matchAll(/<script[^>]*\ssrc="([^"]*)"/g)].map((m) => {
    const src = m[1]!;
    expect(src, `${page}: a relative path`).not.toMatch(/^([a-z]+:|\/)/i);
    return resolve(dirname(page), decodeURIComponent(src));
  });
}

/** A run of six scenarios: the fixture run, the odd stale ack, and a name run on two queues. */
function run(): RunReport {
  const fixture = mixedRun();
  return {
    ...fixture,
    scenarios: [
      ...fixture.scenarios,
      scenario(oddStaleAck()),
      scenario(renamed(cleanRun(), 'clean', 'unconditional-ack')),
    ],
  };
}

describe('the ECharts asset', () => {
  it('is in a run folder exactly once, and every timeline loads that copy by a relative path', async () => {
    const paths = await writeRunReport(join(dir, 'run'), run());
    expect(relative(paths.dir, paths.echarts)).toBe(join('assets', 'echarts.min.js'));
    expect(await copiesOfLibrary(paths.dir)).toEqual([paths.echarts]);
    // (A boolean: toEqual on two megabyte buffers compares them byte by byte, slowly.)
    expect((await readFile(paths.echarts)).equals(await readFile(LIBRARY))).toBe(true);
    const pages = (await filesUnder(paths.dir)).filter((f) => f.endsWith('.html'));
    expect(pages).toHaveLength(6);
    const sizes: number[] = [];
    for (const page of pages) {
      expect(await scriptTargets(page), page).toEqual([paths.echarts]);
      sizes.push((await stat(page)).size);
    }
    // Small without the library: a demo run's 38 pages, at this size each, and the one copy
    // stay far under 5 MB (its real pages are larger: their histories are, see the report).
    expect(Math.max(...sizes)).toBeLessThan(60_000);
  });

  it('is written once into a merged run, which its copied timelines reach', async () => {
    await writeRunReport(join(dir, 'shards', 'a'), { ...mixedRun(), id: 'a' });
    const merged = await mergeRuns([join(dir, 'shards')], join(dir, 'merged'));
    const copies = await copiesOfLibrary(merged.dir);
    expect(copies).toEqual([join(merged.dir, 'assets', 'echarts.min.js')]);
    for (const s of merged.verdict.scenarios) {
      expect(await scriptTargets(join(merged.dir, s.files.timeline))).toEqual(copies);
    }
  });

  it('is reached from a page in a subfolder by going up', () => {
    expect(assetSrc('/r/run/sub/deeper/p.html', '/r/run/assets/echarts.min.js')).toBe(
      '../../assets/echarts.min.js',
    );
    expect(assetSrc('/r/a b/p.html', '/r/a b/assets/echarts.min.js')).toBe('assets/echarts.min.js');
    expect(assetSrc('/r/p.html', '/r/odd #dir/echarts.min.js')).toBe('odd%20%23dir/echarts.min.js');
  });
});
