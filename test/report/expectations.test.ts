// --expect in the reports: judged once from the scenarios' verdicts, and shown at the top of
// summary.md, under the run's verdict in reports/index.html and in verdict.json — so that a run
// that catches a known-bad queue on purpose does not read as a plain "INVALID".
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addExpectations } from '../../src/report/add-expectations.js';
import { expectationsLine, judgeExpectations } from '../../src/report/expectations.js';
import { updateReportIndex } from '../../src/report/report-index.js';
import type { RunReport } from '../../src/report/types.js';
import type { VerdictFile } from '../../src/report/verdict-types.js';
import { writeRunReport } from '../../src/report/write-run-report.js';
import { cleanRun, staleAckAfterReclaimBothComplete } from '../checker/fixtures/anomalies.js';
import { renamed, scenario } from './fixtures.js';

/** The demo in small: the reference holds, unconditional-ack is caught; INVALID overall. */
function demoRun(): RunReport {
  return {
    id: '20250101t000000-demo',
    startedAt: new Date('2025-01-01T00:00:00.000Z'),
    finishedAt: new Date('2025-01-01T00:01:00.000Z'),
    scenarios: [
      scenario(renamed(cleanRun(), 'pause-past-lease', 'reference')),
      scenario(
        renamed(staleAckAfterReclaimBothComplete(), 'pause-past-lease', 'unconditional-ack'),
      ),
    ],
  };
}

const DEMO_EXPECT = [
  { queue: 'reference', verdict: 'valid' },
  { queue: 'unconditional-ack', verdict: 'invalid' },
] as const;

const read = (dir: string, file: string): Promise<string> => readFile(join(dir, file), 'utf8');

describe('expectations', () => {
  it('are met, not met, or not judged; an error or unknown cell is not judged, never met', () => {
    const judged = judgeExpectations(
      [
        { queue: 'reference', verdict: 'valid' },
        { queue: 'reference', verdict: 'error' },
        { queue: 'unconditional-ack', verdict: 'invalid' },
        // A proven violation decides the queue even beside a run the harness failed.
        { queue: 'unconditional-ack', verdict: 'error' },
        { queue: 'no-watchdog', verdict: 'valid' },
        { queue: 'flaky', verdict: 'unknown' },
      ],
      [
        { queue: 'reference', verdict: 'valid' },
        { queue: 'unconditional-ack', verdict: 'invalid' },
        { queue: 'no-watchdog', verdict: 'invalid' },
        { queue: 'flaky', verdict: 'invalid' },
        { queue: 'absent', verdict: 'valid' },
      ],
    );
    expect(judged.items.map((i) => [i.queue, i.actual, i.outcome, i.met])).toEqual([
      ['reference', 'error', 'not-judged', false],
      ['unconditional-ack', 'invalid', 'met', true],
      ['no-watchdog', 'valid', 'not-met', false],
      ['flaky', 'unknown', 'not-judged', false],
      ['absent', 'not-run', 'not-judged', false],
    ]);
    expect(judged).toMatchObject({ outcome: 'not-met', met: false });
    expect(expectationsLine(judged)).toBe(
      'expectations not met: reference expected valid, not judged (error); ' +
        'unconditional-ack invalid; no-watchdog expected invalid, got valid; ' +
        'flaky expected invalid, not judged (unknown); absent expected valid, not judged (not run)',
    );
  });

  it('appear in verdict.json, at the top of summary.md and in reports/index.html', async () => {
    const reports = await mkdtemp(join(tmpdir(), 'leaseproof-expect-'));
    const run = { ...demoRun(), expectations: DEMO_EXPECT };
    const { dir } = await writeRunReport(join(reports, run.id), run);
    await updateReportIndex(reports);
    const line = 'expectations met: reference valid, unconditional-ack invalid';

    const verdict = JSON.parse(await read(dir, 'verdict.json')) as VerdictFile;
    expect(verdict.verdict).toBe('invalid');
    expect(verdict.expectations).toMatchObject({ outcome: 'met', met: true });
    expect(verdict.expectations!.items.map((i) => [i.queue, i.verdict, i.actual, i.met])).toEqual([
      ['reference', 'valid', 'valid', true],
      ['unconditional-ack', 'invalid', 'invalid', true],
    ]);

    const summary = await read(dir, 'summary.md');
    const [title] = summary.split('\n');
    expect(title).toBe(`# leaseproof run ${run.id}: INVALID, expectations met`);
    // Above the verdict table, not somewhere below the evidence.
    expect(summary.indexOf('## Expectations: met')).toBeLessThan(summary.indexOf('## Verdict'));
    expect(summary).toContain(`✅ E${line.slice(1)}.`);
    expect(summary).toContain('| unconditional-ack | invalid | invalid | 1 | ✅ met |');

    const index = await read(reports, 'index.html');
    expect(index).toContain(`<div class="expect met">${line}</div>`);
  });

  it('an unmet one says so in every place, and the result says not met', async () => {
    const reports = await mkdtemp(join(tmpdir(), 'leaseproof-expect-'));
    // What `run --expect` does: the runner wrote the report, the expectations are judged into it.
    const { dir } = await writeRunReport(join(reports, 'r1'), demoRun());
    const judged = await addExpectations(dir, [
      { queue: 'reference', verdict: 'invalid' },
      { queue: 'unconditional-ack', verdict: 'invalid' },
    ]);
    await updateReportIndex(reports);
    const line =
      'expectations not met: reference expected invalid, got valid; unconditional-ack invalid';
    expect(judged).toMatchObject({ outcome: 'not-met', met: false });
    expect(expectationsLine(judged)).toBe(line);

    const verdict = JSON.parse(await read(dir, 'verdict.json')) as VerdictFile;
    expect(verdict.expectations).toEqual(judged);
    // The rest of the file is as the runner wrote it.
    expect(verdict.scenarios.map((s) => s.verdict)).toEqual(['valid', 'invalid']);
    const summary = await read(dir, 'summary.md');
    expect(summary.split('\n')[0]).toMatch(/: INVALID, expectations not met$/);
    expect(summary).toContain('## Expectations: not met');
    expect(summary).toContain('| reference | invalid | valid | 1 | ❌ not met |');
    expect(await read(reports, 'index.html')).toContain(
      `<div class="expect not-met">${line}</div>`,
    );
  });
});
