/**
 * Run, then check: one plan executed in an environment and its history judged, the way every
 * verb that runs and judges does it (the suite, explore, replay's what-if). It lives beside the
 * executor, not in `run/`, because `replay/` uses it and `run/` reads incident files from
 * `replay/`: the two rooms would import each other.
 */
import { ALL_CHECKERS } from '../checker/index.js';
import { runCheckers } from '../checker/compose.js';
import type { CheckOptions, Checker, CompositeResult } from '../checker/types.js';
import type { StartedEnvironment } from '../env/types.js';
import {
  executeRun,
  type RunControl,
  type RunOutcome,
  type RunPlan,
  type RunProgress,
} from './execute-run.js';

/** How to judge a run, and how it may be watched and cut short. */
export interface RunAndCheckOptions extends RunControl {
  /** The checkers that judge the history (default: all nine). */
  checkers?: readonly Checker[];
  /** Their options (ε, strict causes, …); what is not set is the default. */
  checkOptions?: Partial<CheckOptions> | undefined;
  /** Where the run is, for a progress line. */
  onProgress?: ((progress: RunProgress) => void) | undefined;
}

/** A run and the checkers' verdict on its history. */
export interface CheckedRun extends RunOutcome {
  /** The verdict; a cut history (`interrupted`) is judged on what was recorded. */
  result: CompositeResult;
}

/**
 * Executes `plan` in a fresh database of `env` (see `executeRun`) and judges its history. A run
 * the harness fails in throws; whatever the checkers find is in `result` (a checker that throws
 * says `unknown`).
 */
export async function runAndCheck(
  env: StartedEnvironment,
  plan: RunPlan,
  options: RunAndCheckOptions = {},
): Promise<CheckedRun> {
  const { checkers = ALL_CHECKERS, checkOptions, onProgress, signal } = options;
  const outcome = await executeRun(env, plan, onProgress, { signal });
  return { ...outcome, result: runCheckers(checkers, outcome.history, checkOptions) };
}
