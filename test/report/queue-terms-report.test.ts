import { describe, expect, it } from 'vitest';
import type { QueueTermsRecord } from '../../src/history/types.js';
import { renderSummary } from '../../src/report/summary-markdown.js';
import { buildTimelineData } from '../../src/report/timeline-data.js';
import { renderTimelineHtml } from '../../src/report/timeline-html.js';
import { buildVerdict } from '../../src/report/verdict-json.js';
import { scenarioNames } from '../../src/report/scenario-labels.js';
import { cleanRun } from '../checker/fixtures/anomalies.js';
import { LEASE } from '../checker/fixtures/history-builder.js';
import { renamed, scenario } from './fixtures.js';

// A run of a library queue that rescaled a constant, has no lease extension and needed a sweep:
// every report says so, none of it silently.
const TERMS: QueueTermsRecord = {
  requestedLease: LEASE,
  notes: ['graphile-worker 0.17.3'],
  rescaled: [
    {
      constant: 'lock timeout',
      library: "interval '4 hours'",
      run: "interval '200 milliseconds'",
      statement: 'resetLockedAt <clear_stale_locks>',
    },
  ],
  extendsLease: false,
  maintenance: { description: 'resetLockedAt', intervalMs: 8 },
};

function libraryRun() {
  const history = renamed(cleanRun(), 'clean', 'graphile-worker');
  return scenario({ ...history, header: { ...history.header, queueTerms: TERMS } });
}

describe('reports of a queue with its own lease terms', () => {
  it('verdict.json carries them, summary.md states each, the timeline lists them (escaped)', () => {
    const run = libraryRun();
    const report = {
      id: 'r1',
      startedAt: new Date(0),
      finishedAt: new Date(1),
      environment: { provider: 'embedded' },
      scenarios: [run],
    };
    const verdict = buildVerdict(report, scenarioNames(report.scenarios));
    expect(verdict.scenarios[0]?.queueTerms).toEqual(TERMS);
    const summary = renderSummary(verdict);
    expect(summary).toContain('- Lease: graphile-worker 0.17.3.');
    expect(summary).toMatch(
      /- Time compression: lock timeout is interval '4 hours' in the library, interval '200 milliseconds' in this run; rewritten in resetLockedAt/,
    );
    expect(summary).toContain(
      '- No lease extension: workers send no heartbeat; I9 is n/a, I7 is judged from the deadline, and I3 is n/a for a job whose work outlasts one lease.',
    );
    expect(summary).toContain('- Background sweep every 8ms: resetLockedAt.');
    const html = renderTimelineHtml(buildTimelineData(run.history, run.result), '');
    expect(html).toContain('<ul class="terms">');
    expect(html).toContain('resetLockedAt &lt;clear_stale_locks&gt;');
    // A plain queue's reports have none of it.
    const plain = scenario(renamed(cleanRun(), 'clean', 'reference'));
    expect(buildTimelineData(plain.history, plain.result).terms).toEqual([]);
  });
});
