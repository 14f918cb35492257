import { describeError } from '../errors.js';
import type { History } from '../history/types.js';
import { resolveOptions } from './options.js';
import type {
  CheckOptions,
  CheckResult,
  Checker,
  CompositeResult,
  CompositeVerdict,
  Verdict,
} from './types.js';

const RANK: Record<Verdict, number> = { valid: 0, 'n/a': 0, unknown: 1, invalid: 2 };

/**
 * Merges verdicts as Jepsen does: invalid > unknown > valid, where `n/a` (a property the queue
 * does not promise) counts as valid; no verdicts at all is valid. Never `n/a`: a run whose
 * checkers all said `n/a` broke no promise.
 */
export function composeVerdicts(verdicts: Iterable<Verdict>): CompositeVerdict {
  let worst: CompositeVerdict = 'valid';
  for (const v of verdicts) if (v !== 'n/a' && RANK[v] > RANK[worst]) worst = v;
  return worst;
}

/**
 * Runs one checker and never throws: a checker that throws says `unknown`, with the error as
 * why — a bug in one checker must not hide the verdicts of the others.
 */
export function runChecker(checker: Checker, history: History, options: CheckOptions): CheckResult {
  try {
    return checker.check(history, options);
  } catch (error) {
    return {
      checker: checker.name,
      id: checker.id,
      valid: 'unknown',
      counts: {},
      evidence: [],
      epsilonMs: options.epsilonMs,
      why: `the checker threw: ${describeError(error)}`,
    };
  }
}

/**
 * Runs `checkers` over one history and composes their verdicts. Options are resolved once
 * (bad options throw: that is misuse, not a verdict).
 */
export function runCheckers(
  checkers: readonly Checker[],
  history: History,
  options: Partial<CheckOptions> = {},
): CompositeResult {
  const resolved = resolveOptions(options);
  const unskewed = history.header.queueTerms?.unskewedClock;
  const results = checkers.map((checker) => {
    const result = runChecker(checker, history, resolved);
    // A fault that never reached the queue's clock proves nothing: no `valid` from this run.
    return unskewed !== undefined && result.valid === 'valid'
      ? { ...result, valid: 'unknown' as const, why: unskewed }
      : result;
  });
  return { valid: composeVerdicts(results.map((r) => r.valid)), results, options: resolved };
}
