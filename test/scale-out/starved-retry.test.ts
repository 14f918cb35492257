import { describe, expect, it } from 'vitest';
import { DEFAULT_CHECK_OPTIONS } from '../../src/checker/options.js';
import type {
  CheckResult,
  CompositeResult,
  CompositeVerdict,
  Verdict,
} from '../../src/checker/types.js';
import { starvedOnly, starvedWhy } from '../../src/scale-out/starved-retry.js';

const check = (valid: Verdict, why?: string): CheckResult => ({
  checker: 'timely-recovery',
  id: 'I8',
  valid,
  counts: {},
  evidence: [],
  epsilonMs: 5,
  ...(why !== undefined && { why }),
});
const composite = (valid: CompositeVerdict, results: CheckResult[]): CompositeResult => ({
  valid,
  results,
  options: { ...DEFAULT_CHECK_OPTIONS },
});
const STARVED = "harness starved: worker w1's main thread ran 131 ms late at +3000ms: not judged";

describe('starvedOnly: which verdicts a second run can cure', () => {
  it('an unknown whose every unknown checker gives starvation as its reason', () => {
    const result = composite('unknown', [check('valid'), check('unknown', STARVED)]);
    expect(starvedOnly(result)).toBe(true);
    expect(starvedWhy(result)).toBe(STARVED);
  });
  it('not an invalid one, even with a starved checker beside it', () => {
    expect(starvedOnly(composite('invalid', [check('invalid'), check('unknown', STARVED)]))).toBe(
      false,
    );
  });
  it('not an unknown for another reason (a cut history, a checker that threw)', () => {
    const cut = check('unknown', 'the history was cut at +4000ms: 2 expiries not judged');
    expect(starvedOnly(composite('unknown', [cut, check('unknown', STARVED)]))).toBe(false);
    expect(starvedOnly(composite('unknown', [cut]))).toBe(false);
  });
  it('not a valid one, and not an error cell (no checker ran)', () => {
    expect(starvedOnly(composite('valid', [check('valid')]))).toBe(false);
    expect(starvedOnly(composite('unknown', []))).toBe(false);
  });
});
