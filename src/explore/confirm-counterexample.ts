/**
 * Makes a counterexample worth writing down. Shrinking stops at the edge of the failure — a
 * pause of exactly one lease — where real timing makes a replay a coin toss. So the minimal
 * schedule is replayed; if it does not fail every time, the same schedule with its faults held
 * for two leases is tried, and the file gets the first that reproduced on every replay (else
 * whichever reproduced most often).
 */
import { checkHistory } from '../checker/index.js';
import type { StartedEnvironment } from '../env/types.js';
import { executeRun } from '../scenario/execute-run.js';
import { scenarioToRunPlan } from '../scenario/load-scenario.js';
import type { DrawnFault, ExploredScenario } from './explored-scenario.js';
import { toScenario } from './scenario-document.js';

/** The schedule to write and how often it reproduced. */
export interface ConfirmedCounterexample {
  /** The minimal schedule, or its stretched form. */
  scenario: ExploredScenario;
  /** Replays that violated one of the checkers the search saw violated. */
  reproduced: number;
  /** Replays run of the schedule returned. */
  replays: number;
  /** Whether the faults were stretched to two leases. */
  stretched: boolean;
}

const STRETCH_PERMILLE = 2_000;

function stretch(fault: DrawnFault): DrawnFault {
  switch (fault.kind) {
    case 'pause':
    case 'partition':
    case 'stall':
      return { ...fault, forPermille: Math.max(fault.forPermille, STRETCH_PERMILLE) };
    case 'crash':
      return {
        ...fault,
        restartAfterPermille: Math.max(fault.restartAfterPermille, STRETCH_PERMILLE),
      };
    case 'clock':
      return fault;
  }
}

/**
 * Replays `minimal` `replays` times against `queue`; when it misses once, replays the stretched
 * form as many times. Returns the first that reproduced on every replay, else the one that
 * reproduced most often (the minimal one on a tie).
 */
export async function confirmCounterexample(
  env: StartedEnvironment,
  queue: string,
  minimal: ExploredScenario,
  violated: string[],
  replays = 3,
): Promise<ConfirmedCounterexample> {
  const stretched = { ...minimal, faults: minimal.faults.map(stretch) };
  const candidates: [ExploredScenario, boolean][] = [[minimal, false]];
  if (JSON.stringify(stretched) !== JSON.stringify(minimal)) candidates.push([stretched, true]);
  let best: ConfirmedCounterexample | undefined;
  for (const [scenario, isStretched] of candidates) {
    let reproduced = 0;
    // Every replay is run, not stopped at the first miss: the count is what the file reports.
    for (let i = 0; i < replays; i += 1) {
      const loaded = toScenario(scenario, { name: 'confirm', seed: 0, description: '' });
      const { history } = await executeRun(env, scenarioToRunPlan(loaded, { queue }));
      const result = checkHistory(history, { strictCauses: true });
      if (result.results.some((r) => r.valid === 'invalid' && violated.includes(r.checker))) {
        reproduced += 1;
      }
    }
    const outcome = { scenario, reproduced, replays, stretched: isStretched };
    if (reproduced === replays) return outcome;
    if (best === undefined || reproduced > best.reproduced) best = outcome;
  }
  // None reproduced every time: the most reliable schedule, with its count, is still the finding.
  return best!;
}
