/**
 * The run `explore --sim` searches with: a scenario in simulated time against the queue's own
 * SQL on PGlite (see `simulateRun`), judged by the same checkers with the same strict causes as
 * a real run. Its failures are leads: explore confirms each on real runs before it reports one.
 */
import { ALL_CHECKERS } from '../checker/index.js';
import { runCheckers } from '../checker/compose.js';
import type { QueueAdapter } from '../queue/types.js';
import { scenarioToRunPlan } from '../scenario/load-scenario.js';
import type { SimDatabase } from '../sim/pglite/sim-database.js';
import type { SimPool } from '../sim/pglite/sim-pool.js';
import { simulateRun } from '../sim/pglite/sim-run.js';
import { SIMULATED_FAULT_KINDS, simPlanOf } from '../sim/pglite/scenario-sim.js';
import { SimulationBoundError, type SimBounds } from '../sim/pglite/sim-bounds.js';
import { cutShortRun } from './cut-short-run.js';
import type { DrawableScenarios } from './scenario-arbitrary.js';
import type { ExploreRun } from './types.js';

/**
 * What a simulated search draws: every fault the simulation models, and handlers of awaited
 * units only — it runs a synchronous unit as a wait, so a drawn blocking handler would mean one
 * thing in the search and another in the real run that confirms it.
 */
export const SIMULATED_SCENARIOS: DrawableScenarios = {
  faults: SIMULATED_FAULT_KINDS,
  syncHandlers: false,
};

/** Each scenario on the next free process of `pool`, judged here as `simRun` judges it. */
export function poolRun(pool: SimPool): ExploreRun {
  return async (scenario, queue) => {
    let history;
    try {
      history = await pool.history(scenario, queue);
    } catch (error) {
      if (error instanceof SimulationBoundError) return cutShortRun(error, scenario, queue);
      throw error;
    }
    return { history, result: runCheckers(ALL_CHECKERS, history, { strictCauses: true }) };
  };
}

/** Runs each scenario against `queue` (loaded once, as `adapter`) in simulated time on `db`. */
export function simRun(
  db: SimDatabase,
  adapter: QueueAdapter,
  bounds?: Partial<SimBounds>,
): ExploreRun {
  return async (scenario, queue) => {
    const plan = {
      ...simPlanOf(scenarioToRunPlan(scenario, { queue }), adapter),
      ...(bounds !== undefined && { bounds }),
    };
    let history;
    try {
      history = await simulateRun(db, plan);
    } catch (error) {
      // A run a bound cut short is unknown, and the search goes on (issue 38).
      if (error instanceof SimulationBoundError) return cutShortRun(error, scenario, queue);
      throw error;
    }
    return { history, result: runCheckers(ALL_CHECKERS, history, { strictCauses: true }) };
  };
}
