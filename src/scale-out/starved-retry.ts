/**
 * Which verdicts the harness's own starvation left `unknown`. On a loaded runner a timing
 * checker (I7, I8, I9) cannot tell a late queue from a late harness and says so ("harness
 * starved: …: not judged"); such a run says nothing about the queue, so the suite runs it again
 * when the machine has room instead of handing the user an `unknown` that load, not the queue,
 * produced.
 */
import type { CompositeResult } from '../checker/types.js';

/** The prefix every starvation `why` starts with (see checker/starvation.ts). */
const STARVED = 'harness starved';

/**
 * Whether `result` is `unknown` only because the harness starved: no checker found a violation,
 * and every `unknown` one gives starvation as its reason (a cut history, a checker that threw,
 * or any other reason is not cured by running again).
 */
export function starvedOnly(result: CompositeResult): boolean {
  if (result.valid !== 'unknown') return false;
  const unknown = result.results.filter((r) => r.valid === 'unknown');
  return unknown.length > 0 && unknown.every((r) => r.why?.startsWith(STARVED) === true);
}

/** The first starvation reason of `result`, for the line that says why a run is repeated. */
export function starvedWhy(result: CompositeResult): string {
  return result.results.find((r) => r.why?.startsWith(STARVED) === true)?.why ?? STARVED;
}
