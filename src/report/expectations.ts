/**
 * `--expect queue=verdict`: a run that is to prove the harness can tell — the reference holds,
 * a known-bad queue is caught (the demo; a user's CI that keeps a known-bad queue as a canary).
 * Its report must not read as a plain "INVALID", so the expectations are judged here, once,
 * from the scenarios' verdicts, and every format and the exit code read the one result.
 */
import type { Verdict } from '../checker/types.js';
import type {
  ExpectationActual,
  ExpectedVerdict,
  VerdictExpectation,
  VerdictExpectations,
} from './verdict-types.js';

/** What an expectation reads of a scenario: its queue and verdict (`error`: the harness failed). */
export interface JudgedScenario {
  queue: string;
  verdict: Verdict | 'error';
}

/** Judges each expectation against the verdicts of the scenarios run against its queue. */
export function judgeExpectations(
  scenarios: readonly JudgedScenario[],
  expected: readonly ExpectedVerdict[],
): VerdictExpectations {
  const items = expected.map((e): VerdictExpectation => {
    const verdicts = scenarios.filter((s) => s.queue === e.queue).map((s) => s.verdict);
    const actual = queueVerdict(verdicts);
    const outcome =
      actual === e.verdict
        ? 'met'
        : actual === 'valid' || actual === 'invalid'
          ? 'not-met'
          : 'not-judged';
    return { ...e, actual, scenarios: verdicts.length, outcome, met: outcome === 'met' };
  });
  const outcome = items.some((i) => i.outcome === 'not-met')
    ? 'not-met'
    : items.some((i) => i.outcome === 'not-judged')
      ? 'not-judged'
      : 'met';
  return { outcome, met: outcome === 'met', items };
}

/**
 * A proven violation decides the queue whatever else happened; a harness error then hides
 * whether the rest held; an unknown says a checker could not judge.
 */
function queueVerdict(verdicts: readonly (Verdict | 'error')[]): ExpectationActual {
  if (verdicts.length === 0) return 'not-run';
  for (const v of ['invalid', 'error', 'unknown'] as const) if (verdicts.includes(v)) return v;
  return 'valid';
}

/** The expectations a judged set was given, to judge again over other scenarios (a merge). */
export function expectedOf(judged: VerdictExpectations | undefined): ExpectedVerdict[] {
  return (judged?.items ?? []).map(({ queue, verdict }) => ({ queue, verdict }));
}

const OUTCOME_WORDS: Record<VerdictExpectation['outcome'], string> = {
  met: 'met',
  'not-met': 'not met',
  'not-judged': 'not judged',
};

/** `met`, `not met`, `not judged`. */
export function outcomeWords(outcome: VerdictExpectation['outcome']): string {
  return OUTCOME_WORDS[outcome];
}

/** `unconditional-ack invalid`, or `reference expected valid, got invalid`. */
export function expectationWords(e: VerdictExpectation): string {
  switch (e.outcome) {
    case 'met':
      return `${e.queue} ${e.verdict}`;
    case 'not-met':
      return `${e.queue} expected ${e.verdict}, got ${e.actual}`;
    case 'not-judged':
      return `${e.queue} expected ${e.verdict}, not judged (${e.actual === 'not-run' ? 'not run' : e.actual})`;
  }
}

/**
 * One line for every format: `expectations met: reference valid, unconditional-ack invalid`, or
 * `expectations not met: reference expected valid, got invalid; unconditional-ack invalid`.
 */
export function expectationsLine(judged: VerdictExpectations): string {
  const sep = judged.met ? ', ' : '; ';
  return `expectations ${outcomeWords(judged.outcome)}: ${judged.items.map(expectationWords).join(sep)}`;
}

/**
 * The exit code a run given `--expect` ends with: 0 every expectation met, 1 one contradicted by
 * a verdict, 2 one the run could not judge (unknown, an `error` cell, not run) — a harness that
 * could not tell must not read as a queue that failed.
 */
export function expectationsExitCode(judged: VerdictExpectations): 0 | 1 | 2 {
  return judged.outcome === 'met' ? 0 : judged.outcome === 'not-met' ? 1 : 2;
}
