import { describe, expect, it } from 'vitest';
import { scenarioNames } from '../../src/report/scenario-labels.js';
import { renderSummary } from '../../src/report/summary-markdown.js';
import type { RunReport } from '../../src/report/types.js';
import { buildVerdict } from '../../src/report/verdict-json.js';
import { mixedRun, oddStaleAck, scenario } from './fixtures.js';

const summaryOf = (run: RunReport): string =>
  renderSummary(buildVerdict(run, scenarioNames(run.scenarios)));

describe('summary.md', () => {
  it('opens with the run verdict and a scenario × invariant table', () => {
    const text = summaryOf(mixedRun());
    expect(text.split('\n')[0]).toBe('# leaseproof run 20250101t000000\\_abcdef: INVALID');
    const table = text.split('\n').filter((l) => l.startsWith('| '));
    expect(table[0]).toBe(
      '| scenario | queue | I1 no-stale-ack | I2 single-completion | I3 no-lost-job | ' +
        'I4 exclusive-claim | I5 at-least-once-bound | I6 lease-honored | I7 bounded-zombie | ' +
        'I8 timely-recovery | I9 explained-expiry | verdict |',
    );
    // Header, separator, one row per scenario; every row has every column.
    expect(table).toHaveLength(2 + 4);
    for (const row of table) expect(row.split(' | ')).toHaveLength(12);
    expect(table[2]).toMatch(
      /^\| \[pause-past-lease\]\(pause-past-lease\.timeline\.html\) \| unconditional-ack \| ❌ \*\*invalid\*\* \| ❌ \*\*invalid\*\* \| ✅ valid/,
    );
    expect(table[2]).toMatch(/❌ INVALID \|$/);
    expect(table[3]).toMatch(/✅ valid \|$/);
    expect(table[4]).toMatch(/⚠️ valid \| ✅ valid \|$/); // explained-expiry warned
    expect(table[5]).toMatch(/❓ unknown \|/);
  });

  it('explains each failing checker with its first evidence in words, with both clocks', () => {
    const text = summaryOf(mixedRun());
    expect(text).toContain('## pause-past-lease: INVALID');
    expect(text).toMatch(/### ❌ I1 no-stale-ack: invalid \(acks=2, stale=1/);
    expect(text).toMatch(/1\. Violation: job 1: ack by w1 \(claim 1\) committed at \+405ms/);
    // Each cited event: time since start, database-clock time, role, the event in words.
    expect(text).toMatch(
      /- \+405\.05ms \(db 1970-01-01T00:16:40\.405050Z\) ack committed by w1: update by w1 of job 1/,
    );
    expect(text).toMatch(/- fault pause on w1 \(f1\) from \+20ms to \+400ms/);
    expect(text).toContain('### ❌ I2 single-completion: invalid');
    // Unknown says why; a warning is shown with its example.
    expect(text).toMatch(
      /### ❓ I3 no-lost-job: unknown[^\n]*\n\nWhy unknown: the history was cut/,
    );
    expect(text).toMatch(/### ⚠️ I9 explained-expiry: valid[\s\S]*- Warning: /);
    // A scenario with nothing to say gets no section.
    expect(text).not.toContain('## clean');
  });

  it('escapes odd strings so that they show as written and cannot inject markup', () => {
    const text = summaryOf({ ...mixedRun(), scenarios: [scenario(oddStaleAck())] });
    expect(text).not.toMatch(/<&"'>|<\/script>/);
    expect(text).toContain('job job&lt;&amp;"\'&gt;');
    expect(text).toContain('## odd &lt;&amp;"\'&gt;');
  });

  it('keeps table rows intact when a name holds a pipe or a newline', () => {
    const run = mixedRun();
    run.scenarios[0]!.name = 'a | b\nc';
    const row = summaryOf(run)
      .split('\n')
      .find((l) => l.startsWith('| [a'))!;
    expect(row).toContain('[a \\| b c]');
    expect(row.split(' | ')).toHaveLength(12);
  });
});
