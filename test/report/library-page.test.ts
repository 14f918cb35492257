import { describe, expect, it } from 'vitest';
import {
  libraryIndexMarkdown,
  libraryPageMarkdown,
  pageSummary,
  type PageVerdictJson,
} from '../../src/report/library-page.js';
import { settleSettings } from '../../src/queue/library-settings.js';
import type { QueueTermsRecord } from '../../src/history/types.js';

const LEASE = { durationMs: 1_000, heartbeatMs: 250, extendByMs: 1_000, pollMs: 50 };
const checker = (id: string, verdict: string, extra: Record<string, unknown> = {}) => ({
  id,
  checker: `checker-${id}`,
  verdict,
  evidence: [],
  ...extra,
});
const VERDICT: PageVerdictJson = {
  runId: 'r1',
  startedAt: '2026-12-07T10:00:00.000Z',
  finishedAt: '2026-12-07T10:05:12.000Z',
  environment: { provider: 'embedded', postgres: '18.4', toxiproxy: '2.5.0', node: 'v20' },
  scenarios: [
    {
      name: 'crash',
      queue: 'lib',
      verdict: 'invalid',
      lease: { durationMs: 1_000 },
      checkers: [
        checker('I1', 'invalid', { evidence: [{ message: 'ack by w1 after its claim expired' }] }),
        checker('I9', 'n/a', { why: 'no lease extension' }),
      ],
    },
    {
      name: 'pause',
      queue: 'lib',
      verdict: 'valid',
      lease: { durationMs: 800 },
      checkers: [checker('I1', 'valid'), checker('I9', 'unknown', { why: 'harness starved' })],
    },
  ],
};

describe('a library page is written from its run, and only from it', () => {
  it('counts each invariant over the scenarios and quotes one line of evidence', () => {
    const terms = {
      requestedLease: LEASE,
      notes: [],
      rescaled: [],
      extendsLease: false,
      settings: settleSettings(
        {
          library: 'lib',
          anchor: 'Timeout',
          settings: [
            { name: 'Timeout', kind: 'duration', default: 60_000, where: 'a.go' },
            { name: 'Rescue', kind: 'duration', default: 3_600_000, where: 'b.go' },
          ],
        },
        LEASE,
      ),
    } satisfies QueueTermsRecord;
    const page = libraryPageMarkdown(
      {
        key: 'lib',
        title: 'Lib',
        versions: { lib: 'Lib 1.2.3' },
        commit: 'abc',
        command: 'cmd',
        reportDir: 'reports/x',
      },
      VERDICT,
      new Map([['crash|lib', terms]]),
      '## Hand-written\n\nAdvice.',
    );
    expect(page).toContain('| version (`--queue lib`) | Lib 1.2.3 |');
    expect(page).toContain('| suite wall time | 312 s for 2 runs (run r1) |');
    expect(page).toMatch(
      /\| I1 checker-I1 \| 1 \| 1 \| 0 \| 0 \| "ack by w1 after its claim expired" \(crash\) \|/,
    );
    expect(page).toMatch(
      /\| I9 checker-I9 \| 0 \| 0 \| 1 \| 1 \| unknown: harness starved \(pause\); n\/a: no lease extension \(crash\) \|/,
    );
    expect(page).toContain('| Rescue | 1h (default) | 1m | b.go |  |');
    expect(page).toContain('k = 1/60');
    expect(page).toContain('| crash | invalid | FAIL | - | - | - | - | - | - | - | n/a |');
    expect(page.trimEnd().endsWith('Advice.')).toBe(true);
  });
});

describe('the index of library pages', () => {
  it('marks a cell ok only where every scenario was valid or n/a', () => {
    const summary = pageSummary(
      {
        key: 'lib',
        title: 'Lib',
        versions: { lib: 'Lib 1.2.3' },
        commit: 'abc',
        command: 'c',
        reportDir: 'r',
      },
      VERDICT,
    );
    expect(summary.queues.lib!.counts.I1).toEqual({ valid: 1, invalid: 1, unknown: 0, na: 0 });
    const index = libraryIndexMarkdown([summary]);
    expect(index).toContain(
      '| [`lib`](lib.md) | Lib 1.2.3 | 2 | FAIL 1/2 | - | - | - | - | - | - | - | ? 1/2 | 2026-12-07, abc, 312 s |',
    );
  });
});
