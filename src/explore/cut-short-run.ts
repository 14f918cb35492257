/**
 * A simulated run a bound cut short, as a search counts it: `unknown`, with the bound's message as
 * its cause, and whatever history it recorded (none, when its process was killed). It is no
 * counterexample and no harness failure: the search goes on to the next draw.
 */
import { DEFAULT_CHECK_OPTIONS } from '../checker/options.js';
import type { History } from '../history/types.js';
import { HISTORY_VERSION } from '../history/types.js';
import type { ScenarioRun } from '../report/types.js';
import { scenarioToRunPlan } from '../scenario/load-scenario.js';
import type { Scenario } from '../scenario/scenario-types.js';
import type { SimulationBoundError } from '../sim/pglite/sim-bounds.js';
import { VERSION } from '../version.js';

/** `error`'s run of `scenario` against `queue`, unknown. */
export function cutShortRun(
  error: SimulationBoundError,
  scenario: Scenario,
  queue: string,
): ScenarioRun {
  return {
    history: error.history ?? emptyHistory(scenario, queue),
    result: {
      valid: 'unknown',
      results: [],
      options: { ...DEFAULT_CHECK_OPTIONS, strictCauses: true },
    },
    cutShort: error.message,
  };
}

/** A history with nothing recorded: a header for the scenario, and no events. */
function emptyHistory(scenario: Scenario, queue: string): History {
  const plan = scenarioToRunPlan(scenario, { queue });
  return {
    header: {
      type: 'header',
      version: HISTORY_VERSION,
      scenario: plan.scenario,
      seed: plan.seed,
      queue,
      versions: {
        leaseproof: VERSION,
        postgres: 'PGlite (simulated time)',
        toxiproxy: 'none (simulated)',
        node: process.version,
      },
      lease: plan.lease,
      workers: Array.from({ length: plan.workers }, (_, i) => `w${i + 1}`),
      clockOffsetMs: 0,
      clockUncertaintyMs: 0,
      startedAt: 0,
    },
    events: [],
  };
}
