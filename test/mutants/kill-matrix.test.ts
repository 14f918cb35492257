import { describe, expect, it } from 'vitest';
import type { ScenarioOutcome } from '../../src/run/run-scenarios.js';
import type { CheckResult, Verdict } from '../../src/checker/types.js';
import { DEFAULT_CHECK_OPTIONS } from '../../src/checker/options.js';
import { buildKillMatrix } from '../../src/mutants/kill-matrix.js';
import { formatKillMatrix } from '../../src/report/kill-matrix-text.js';
import { killMatrixTable } from '../../src/report/kill-matrix-html.js';

/** An outcome whose invalid checkers are `invalid` (every other one valid). */
function outcome(queue: string, scenario: string, invalid: string[] = []): ScenarioOutcome {
  const names = ['no-stale-ack', 'single-completion', 'lease-honored'];
  const results = names.map((checker, i): CheckResult => ({
    checker,
    id: `I${i + 1}` as CheckResult['id'],
    valid: invalid.includes(checker) ? 'invalid' : 'valid',
    counts: {},
    evidence: [],
    epsilonMs: 5,
  }));
  const valid: Verdict = invalid.length > 0 ? 'invalid' : 'valid';
  return {
    queue,
    scenario,
    durationMs: 1,
    result: { valid, results, options: DEFAULT_CHECK_OPTIONS },
  };
}

const variants = [
  { queue: 'bad-ack', change: 'ack by id only', catches: 'no-stale-ack' },
  { queue: 'bad-lease', change: 'lease in seconds', catches: 'lease-honored' },
];
const scenarios = ['s1', 's2'];

describe('the kill matrix', () => {
  it('is ok when the base is clean and each variant is caught by its named invariant', () => {
    const matrix = buildKillMatrix({
      outcomes: [
        outcome('reference', 's1'),
        outcome('reference', 's2'),
        outcome('bad-ack', 's1', ['no-stale-ack']),
        outcome('bad-ack', 's2', ['no-stale-ack', 'single-completion']),
        outcome('bad-lease', 's1', ['lease-honored']),
        outcome('bad-lease', 's2', ['lease-honored']),
      ],
      scenarios,
      base: 'reference',
      variants,
      minKills: 2,
      wallTimeMs: 1234,
    });
    expect(matrix.ok).toBe(true);
    expect(matrix.score).toEqual({ killed: 2, total: 2, percent: 100 });
    expect(matrix.variants.map((v) => [v.queue, v.status, v.kills])).toEqual([
      ['bad-ack', 'killed', 2],
      ['bad-lease', 'killed', 2],
    ]);
    const text = formatKillMatrix(matrix);
    expect(text).toMatch(/^reference\s+\. +\.\s+clean/m);
    expect(text).toMatch(/^bad-ack\s+K +K\s+killed/m);
    expect(text).toMatch(/mutation score 100% \(2\/2 killed\), 2 scenarios × 3 queues in 1\.2s/);
    expect(killMatrixTable(matrix, 'run/')).toContain('href="run/s1-bad-ack.timeline.html"');
  });

  it('fails on a survivor, on a variant caught only by another invariant, and on a weak kill', () => {
    const matrix = buildKillMatrix({
      outcomes: [
        outcome('reference', 's1'),
        outcome('reference', 's2'),
        outcome('bad-ack', 's1', ['single-completion']),
        outcome('bad-ack', 's2'),
        outcome('bad-lease', 's1', ['lease-honored']),
        outcome('bad-lease', 's2'),
      ],
      scenarios,
      base: 'reference',
      variants,
      minKills: 2,
      wallTimeMs: 1,
    });
    expect(matrix.ok).toBe(false);
    expect(matrix.variants.map((v) => v.status)).toEqual(['misattributed', 'killed']);
    expect(matrix.weak).toEqual(['bad-ack', 'bad-lease']);
    expect(matrix.score.percent).toBe(50);
    const text = formatKillMatrix(matrix);
    expect(text).toMatch(/mis-attributed: bad-ack was caught only by single-completion/);
    expect(text).toMatch(/killed by fewer than 2 scenarios: bad-ack, bad-lease/);

    const survivor = buildKillMatrix({
      outcomes: [outcome('reference', 's1'), outcome('bad-ack', 's1')],
      scenarios: ['s1'],
      base: 'reference',
      variants: [variants[0]!],
      minKills: 1,
      wallTimeMs: 1,
    });
    expect(survivor.variants[0]?.status).toBe('survived');
    expect(survivor.ok).toBe(false);
    expect(formatKillMatrix(survivor)).toMatch(
      /survived: bad-ack \(ack by id only\) passed every scenario/,
    );
  });

  it('voids the matrix on a false alarm of the base, and counts a missing run as unknown', () => {
    const matrix = buildKillMatrix({
      outcomes: [
        outcome('reference', 's1', ['lease-honored']),
        outcome('bad-ack', 's1', ['no-stale-ack']),
        outcome('bad-ack', 's2', ['no-stale-ack']),
        outcome('bad-lease', 's1', ['lease-honored']),
        outcome('bad-lease', 's2', ['lease-honored']),
      ],
      scenarios,
      base: 'reference',
      variants,
      minKills: 1,
      wallTimeMs: 1,
    });
    expect(matrix.base.falseAlarms).toEqual(['s1', 's2']);
    expect(matrix.base.cells[1]?.verdict).toBe('unknown');
    expect(matrix.ok).toBe(false);
    expect(formatKillMatrix(matrix)).toMatch(/false alarm: reference was not valid on s1, s2/);
  });

  it('voids the matrix on a false alarm of a correct control, and shows the control clean otherwise', () => {
    const outcomes = (control: string[]) => [
      outcome('reference', 's1'),
      outcome('reference', 's2'),
      outcome('reap-on-poll', 's1', control),
      outcome('reap-on-poll', 's2'),
      outcome('bad-ack', 's1', ['no-stale-ack']),
      outcome('bad-ack', 's2', ['no-stale-ack']),
      outcome('bad-lease', 's1', ['lease-honored']),
      outcome('bad-lease', 's2', ['lease-honored']),
    ];
    const input = {
      scenarios,
      base: 'reference',
      controls: ['reap-on-poll'],
      variants,
      minKills: 1,
      wallTimeMs: 1,
    };
    const clean = buildKillMatrix({ ...input, outcomes: outcomes([]) });
    expect(clean.ok).toBe(true);
    expect(formatKillMatrix(clean)).toMatch(
      /^reap-on-poll\s+\. +\.\s+clean\s+-\s+\(none: a correct control\)/m,
    );
    expect(killMatrixTable(clean, 'r')).toContain('correct control');
    const alarmed = buildKillMatrix({ ...input, outcomes: outcomes(['no-stale-ack']) });
    expect(alarmed.controls[0]!.falseAlarms).toEqual(['s1']);
    expect(alarmed.base.falseAlarms).toEqual([]);
    expect(alarmed.ok).toBe(false);
    expect(formatKillMatrix(alarmed)).toMatch(
      /false alarm: reap-on-poll \(a correct control\) was not valid on s1/,
    );
  });

  it('in a guided matrix, a cell not run for real kills nothing and shows what the simulation said', () => {
    const matrix = buildKillMatrix({
      outcomes: [
        outcome('reference', 's1'),
        outcome('reference', 's2'),
        outcome('bad-ack', 's1', ['no-stale-ack']),
        outcome('bad-lease', 's2', ['lease-honored']),
      ],
      scenarios,
      base: 'reference',
      variants,
      minKills: 1,
      wallTimeMs: 1,
      // bad-ack's s2 and bad-lease's s1 were not run for real; the simulation killed bad-ack there.
      notRun: (queue, scenario) =>
        (queue === 'bad-ack' && scenario === 's2') || (queue === 'bad-lease' && scenario === 's1')
          ? 'not run for real: killed on 1 real run(s) already'
          : undefined,
      simulated: (queue, scenario) =>
        queue === 'bad-ack'
          ? { verdict: 'invalid', invalid: ['no-stale-ack'], named: true }
          : scenario === 's1'
            ? { refused: 's1: a slow link is not modelled; run it for real' }
            : undefined,
      reportOf: (queue) => (queue === 'bad-lease' ? 'round-2' : undefined),
      guide: {
        simulatedRuns: 3,
        simulatedMs: 1200,
        realRuns: 4,
        fullRuns: 6,
        reports: ['round-1', 'round-2'],
        leftToReal: [{ queue: 'bad-lease', why: 'the simulation killed it on 0 of 1' }],
      },
    });
    expect(matrix.ok).toBe(true);
    const [badAck, badLease] = matrix.variants;
    expect(badAck!.kills).toBe(1);
    expect(badAck!.cells[1]).toMatchObject({
      verdict: 'unknown',
      named: false,
    });
    expect(badAck!.cells[1]!.notRun).toMatch(/not run for real/);
    expect(badLease!.cells[1]).toMatchObject({ named: true, report: 'round-2' });
    const text = formatKillMatrix(matrix);
    expect(text).toMatch(/^bad-ack\s+K s\s+killed/m);
    expect(text).toMatch(/^bad-lease\s+- K\s+killed/m);
    expect(text).toMatch(/^left to real runs: bad-lease: the simulation killed it on 0 of 1$/m);
    expect(text).toMatch(
      /guided by the simulation: 3 simulated runs in 1\.2s, then 4 real runs of the full matrix's 6 in 2 round\(s\)/,
    );
    // A later round's cell links into its own folder; a cell not run links nowhere.
    const html = killMatrixTable(matrix, '');
    expect(html).toContain('href="../round-2/');
    expect(html).toMatch(
      /title="not run for real: killed on 1 real run\(s\) already; simulation: invalid: no-stale-ack">s</,
    );
  });
});
