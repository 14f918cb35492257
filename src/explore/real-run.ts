/** The run explore does by default: real workers, PostgreSQL and Toxiproxy, judged strictly. */
import { checkHistory } from '../checker/index.js';
import type { StartedEnvironment } from '../env/types.js';
import { executeRun } from '../scenario/execute-run.js';
import { scenarioToRunPlan } from '../scenario/load-scenario.js';
import type { ExploreRun } from './types.js';

/**
 * Runs each scenario in its own database of `env` and judges it with strict causes: an expiry
 * no injected fault explains is a violation, so explore finds a broken heartbeat path too.
 */
export function realRun(env: StartedEnvironment): ExploreRun {
  return async (scenario, queue) => {
    const { history } = await executeRun(env, scenarioToRunPlan(scenario, { queue }));
    return { history, result: checkHistory(history, { strictCauses: true }) };
  };
}
