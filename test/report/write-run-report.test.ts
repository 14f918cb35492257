import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readHistory } from '../../src/history/jsonl.js';
import { updateReportIndex } from '../../src/report/report-index.js';
import type { VerdictFile } from '../../src/report/verdict-types.js';
import { writeRunReport } from '../../src/report/write-run-report.js';
import { mixedRun } from './fixtures.js';

let reports: string;
beforeEach(async () => {
  reports = await mkdtemp(join(tmpdir(), 'leaseproof-reports-'));
});
afterEach(async () => {
  await rm(reports, { recursive: true, force: true });
});

describe('writeRunReport', () => {
  it('writes every file of a run, each linkable from the verdict', async () => {
    const run = mixedRun();
    const paths = await writeRunReport(join(reports, run.id), run);
    expect(paths.dir).toBe(join(reports, run.id));
    expect((await readdir(paths.dir)).sort()).toEqual(
      [
        'verdict.json',
        'summary.md',
        'junit.xml',
        'assets',
        ...['pause-past-lease', 'clean', 'lease-too-short', 'cut-short'].flatMap((s) => [
          `${s}.history.jsonl.gz`,
          `${s}.timeline.html`,
        ]),
      ].sort(),
    );
    const verdict = JSON.parse(await readFile(paths.verdict, 'utf8')) as VerdictFile;
    expect(verdict.runId).toBe(run.id);
    for (const [i, s] of verdict.scenarios.entries()) {
      expect(join(paths.dir, s.files.history)).toBe(paths.scenarios[i]!.history);
      expect(join(paths.dir, s.files.timeline)).toBe(paths.scenarios[i]!.timeline);
    }
    // The history written is the history given, readable by the project's own reader.
    expect(await readHistory(paths.scenarios[0]!.history)).toEqual(run.scenarios[0]!.history);
    expect(await readFile(paths.summary, 'utf8')).toMatch(/^# leaseproof run/);
    expect(await readFile(paths.junit, 'utf8')).toMatch(/^<\?xml/);
    expect(await readFile(paths.scenarios[0]!.timeline, 'utf8')).toContain('id="v-no-stale-ack-1"');
  });
});

describe('updateReportIndex', () => {
  it('lists the runs present, newest first, with verdicts and links; and other folders as such', async () => {
    const older = { ...mixedRun(), id: 'run_old', startedAt: new Date('2024-06-01T00:00:00Z') };
    const newer = mixedRun();
    await writeRunReport(join(reports, older.id), older);
    await writeRunReport(join(reports, newer.id), newer);
    await mkdir(join(reports, 'half-done'));
    await mkdir(join(reports, 'garbled'));
    await writeFile(join(reports, 'garbled', 'verdict.json'), '{ nope');
    await writeFile(join(reports, 'README.md'), 'not a run');

    const index = await updateReportIndex(reports);
    expect(index).toBe(join(reports, 'index.html'));
    const html = await readFile(index, 'utf8');
    const rows = html.split('\n').filter((l) => l.startsWith('<tr><td>'));
    // Runs by start, newest first; folders without a verdict after them.
    expect(rows.map((r) => /<td>([^<]*)<\/td>/.exec(r)![1])).toEqual([
      newer.id,
      'run_old',
      'half-done',
      'garbled',
    ]);
    expect(rows[0]).toContain('<td class="invalid">invalid</td>');
    expect(rows[0]).toContain(`href="${newer.id}/pause-past-lease.timeline.html"`);
    expect(rows[0]).toContain(`href="${newer.id}/summary.md"`);
    expect(html).toContain('no verdict.json');
    expect(html).toContain('unreadable verdict.json');

    // Rebuilt from what is there: a deleted run disappears.
    await rm(join(reports, 'run_old'), { recursive: true });
    expect(await readFile(await updateReportIndex(reports), 'utf8')).not.toContain('run_old');
  });
});
