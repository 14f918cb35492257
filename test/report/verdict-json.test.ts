import { describe, expect, it } from 'vitest';
import { renderVerdictJson, buildVerdict, worstVerdict } from '../../src/report/verdict-json.js';
import { scenarioNames } from '../../src/report/scenario-labels.js';
import {
  VERDICT_VERSION,
  type CheckerVerdict,
  type ScenarioVerdict,
  type VerdictExpectation,
  type VerdictExpectations,
  type VerdictEnvironment,
  type VerdictFile,
} from '../../src/report/verdict-types.js';
import type { RunReport } from '../../src/report/types.js';
import { cleanRun } from '../checker/fixtures/anomalies.js';
import { mixedRun, renamed, scenario } from './fixtures.js';

// The keys of each object of the schema. `satisfies Record<keyof T, true>` makes these lists
// exactly the types' keys (a missing or an extra key does not compile), so comparing a parsed
// file's keys with them checks the file against the exported types.
const FILE_KEYS = {
  verdictVersion: true,
  runId: true,
  startedAt: true,
  finishedAt: true,
  verdict: true,
  environment: true,
  scenarios: true,
  interrupted: true,
  plan: true,
  mergedFrom: true,
  notJudged: true,
  harnessErrors: true,
  expectations: true,
} satisfies Record<keyof VerdictFile, true>;
// Present only on planned runs (`plan`, `position`), on merged ones (`mergedFrom`), on runs given
// --expect (`expectations`) and on runs the harness could not judge in full (`notJudged`,
// `harnessErrors`, `attempts`).
const OPTIONAL_KEYS = new Set([
  'queueTerms',
  'plan',
  'mergedFrom',
  'position',
  'expectations',
  'notJudged',
  'harnessErrors',
  'attempts',
]);
const EXPECTATIONS_KEYS = {
  outcome: true,
  met: true,
  items: true,
} satisfies Record<keyof VerdictExpectations, true>;
const EXPECTATION_KEYS = {
  queue: true,
  verdict: true,
  actual: true,
  scenarios: true,
  outcome: true,
  met: true,
} satisfies Record<keyof VerdictExpectation, true>;
const ENVIRONMENT_KEYS = {
  provider: true,
  leaseproof: true,
  postgres: true,
  toxiproxy: true,
  node: true,
  platform: true,
} satisfies Record<keyof VerdictEnvironment, true>;
const SCENARIO_KEYS = {
  label: true,
  name: true,
  queue: true,
  seed: true,
  verdict: true,
  lease: true,
  queueTerms: true,
  historyStartedAt: true,
  durationMs: true,
  complete: true,
  drained: true,
  events: true,
  options: true,
  checkers: true,
  files: true,
  position: true,
  attempts: true,
} satisfies Record<keyof ScenarioVerdict, true>;
const CHECKER_KEYS = {
  checker: true,
  id: true,
  verdict: true,
  counts: true,
  evidence: true,
  stats: true,
  epsilonMs: true,
  warnings: true,
  why: true,
} satisfies Record<keyof CheckerVerdict, true>;

const keys = (o: object): string[] => Object.keys(o).sort();

function verdictOf(run: RunReport): VerdictFile {
  return buildVerdict(run, scenarioNames(run.scenarios));
}

describe('verdict.json', () => {
  it('has exactly the fields of its exported types, at every level, and version 1', () => {
    const parsed = JSON.parse(renderVerdictJson(verdictOf(mixedRun()))) as VerdictFile;
    expect(parsed.verdictVersion).toBe(VERDICT_VERSION);
    expect(VERDICT_VERSION).toBe(1);
    expect(keys(parsed)).toEqual(keys(FILE_KEYS).filter((k) => !OPTIONAL_KEYS.has(k)));
    expect(keys(parsed.environment)).toEqual(keys(ENVIRONMENT_KEYS));
    for (const s of parsed.scenarios) {
      // queueTerms appears only where a queue did not take the lease plainly.
      const expected = keys(SCENARIO_KEYS).filter((k) => !OPTIONAL_KEYS.has(k) || k in s);
      expect(keys(s)).toEqual(expected);
      for (const c of s.checkers) expect(keys(c)).toEqual(keys(CHECKER_KEYS));
    }
  });

  it('records --expect, judged, with exactly the fields of its types', () => {
    const run: RunReport = {
      ...mixedRun(),
      expectations: [
        { queue: 'unconditional-ack', verdict: 'invalid' },
        { queue: 'reference', verdict: 'valid' },
      ],
    };
    const parsed = JSON.parse(renderVerdictJson(verdictOf(run))) as VerdictFile;
    expect(keys(parsed.expectations!)).toEqual(keys(EXPECTATIONS_KEYS));
    for (const e of parsed.expectations!.items) expect(keys(e)).toEqual(keys(EXPECTATION_KEYS));
    // The fixture's reference has a cut scenario: unknown, so that one is not judged.
    expect(parsed.expectations).toEqual({
      outcome: 'not-judged',
      met: false,
      items: [
        {
          queue: 'unconditional-ack',
          verdict: 'invalid',
          actual: 'invalid',
          scenarios: 1,
          outcome: 'met',
          met: true,
        },
        {
          queue: 'reference',
          verdict: 'valid',
          actual: 'unknown',
          scenarios: 3,
          outcome: 'not-judged',
          met: false,
        },
      ],
    });
    expect(verdictOf(mixedRun()).expectations).toBeUndefined();
  });

  it('round-trips through JSON unchanged', () => {
    const verdict = verdictOf(mixedRun());
    expect(JSON.parse(renderVerdictJson(verdict))).toEqual(verdict);
  });

  it('records the run, the environment and each scenario × checker verdict with its evidence', () => {
    const v = verdictOf(mixedRun());
    expect(v).toMatchObject({
      runId: '20250101t000000_abcdef',
      startedAt: '2025-01-01T00:00:00.000Z',
      finishedAt: '2025-01-01T00:00:42.500Z',
      verdict: 'invalid',
      // Given versions win; the rest come from the first history's header.
      environment: {
        provider: 'embedded',
        postgres: '18.4',
        leaseproof: 'test',
        toxiproxy: 'test',
      },
    });
    expect(v.scenarios.map((s) => [s.name, s.queue, s.seed, s.verdict])).toEqual([
      ['pause-past-lease', 'unconditional-ack', 1, 'invalid'],
      ['clean', 'reference', 1, 'valid'],
      ['lease-too-short', 'reference', 1, 'valid'],
      ['cut-short', 'reference', 1, 'unknown'],
    ]);
    const [bad, , warned, cut] = v.scenarios;
    const staleAck = bad!.checkers.find((c) => c.checker === 'no-stale-ack')!;
    expect(staleAck).toMatchObject({ id: 'I1', verdict: 'invalid', epsilonMs: 5, why: null });
    expect(staleAck.counts.stale).toBe(1);
    expect(staleAck.evidence[0]!.job).toBe('1');
    expect(staleAck.evidence[0]!.events.length).toBeGreaterThan(0);
    expect(bad!.checkers).toHaveLength(9);
    expect(bad!.files).toEqual({
      history: 'pause-past-lease.history.jsonl.gz',
      timeline: 'pause-past-lease.timeline.html',
    });
    expect(bad!.complete).toBe(true);
    const expiry = warned!.checkers.find((c) => c.checker === 'explained-expiry')!;
    expect(expiry.verdict).toBe('valid');
    expect(expiry.warnings.length).toBeGreaterThan(0);
    const lost = cut!.checkers.find((c) => c.checker === 'no-lost-job')!;
    expect(lost).toMatchObject({ verdict: 'unknown' });
    expect(lost.why).toMatch(/cut/);
    expect(cut!.complete).toBe(false);
    // Stats are carried: bounded-zombie reports its zombie-window distribution.
    const zombie = bad!.checkers.find((c) => c.checker === 'bounded-zombie')!;
    expect(zombie.stats.zombieWindowMs).toMatchObject({ count: expect.any(Number) as number });
  });

  it('composes scenario verdicts as invalid > unknown > valid', () => {
    expect(worstVerdict([])).toBe('valid');
    expect(worstVerdict(['valid', 'unknown', 'valid'])).toBe('unknown');
    expect(worstVerdict(['unknown', 'invalid', 'valid'])).toBe('invalid');
  });

  it('labels a scenario run against two queues with the queue, and gives each its own files', () => {
    const run: RunReport = {
      ...mixedRun(),
      scenarios: [
        scenario(renamed(cleanRun(), 'pause', 'reference')),
        scenario(renamed(cleanRun(), 'pause', 'no-watchdog')),
      ],
    };
    const v = verdictOf(run);
    expect(v.scenarios.map((s) => s.label)).toEqual(['pause [reference]', 'pause [no-watchdog]']);
    expect(v.scenarios.map((s) => s.files.timeline)).toEqual([
      'pause-reference.timeline.html',
      'pause-no-watchdog.timeline.html',
    ]);
  });

  it('writes a non-finite number as null rather than failing or writing invalid JSON', () => {
    const run = mixedRun();
    const claim = run.scenarios[0]!.result.results[0]!.evidence[0]!.claims[0]!;
    claim.deadline = NaN;
    const parsed = JSON.parse(renderVerdictJson(verdictOf(run))) as VerdictFile;
    expect(parsed.scenarios[0]!.checkers[0]!.evidence[0]!.claims[0]!.deadline).toBeNull();
  });
});
