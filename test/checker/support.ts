import type { CheckOptions, CheckResult, Checker } from '../../src/checker/types.js';
import type { History } from '../../src/history/types.js';
import { T0 } from './fixtures/history-builder.js';

/** Runs one checker (which must not throw). */
export function check(
  checker: Checker,
  history: History,
  options: Partial<CheckOptions> = {},
): CheckResult {
  return checker.check(history, options);
}

/** Ms since the fixture run started. */
export const rel = (t: number): number => Math.round((t - T0) * 1000) / 1000;
