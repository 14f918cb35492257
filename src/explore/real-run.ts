/** The run explore does by default: real workers, PostgreSQL and Toxiproxy, judged strictly. */
import type { StartedEnvironment } from '../env/types.js';
import { scenarioToRunPlan } from '../scenario/load-scenario.js';
import { runAndCheck } from '../scenario/run-and-check.js';
import type { ExploreRun } from './types.js';

/**
 * Runs each scenario in its own database of `env` and judges it with strict causes: an expiry
 * no injected fault explains is a violation, so explore finds a broken heartbeat path too.
 */
export function realRun(env: StartedEnvironment): ExploreRun {
  return async (scenario, queue) => {
    const plan = scenarioToRunPlan(scenario, { queue });
    const { history, result } = await runAndCheck(env, plan, {
      checkOptions: { strictCauses: true },
    });
    return { history, result };
  };
}
