/**
 * Makes a counterexample worth writing down. Shrinking stops at the edge of the failure — a
 * pause of exactly one lease — where real timing makes a replay a coin toss. So the minimal
 * schedule is replayed; if it does not fail every time, the same schedule with its faults held
 * for two leases is tried, and the file gets whichever reproduced on every replay.
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

/** Replays `minimal` (then its stretched form) `replays` times each against `queue`. */
export async function confirmCounterexample(
  env: StartedEnvironment,
  queue: string,
  minimal: ExploredScenario,
  violated: string[],
  replays = 2,
): Promise<ConfirmedCounterexample> {
  const stretched = { ...minimal, faults: minimal.faults.map(stretch) };
  const candidates: [ExploredScenario, boolean][] = [[minimal, false]];
  if (JSON.stringify(stretched) !== JSON.stringify(minimal)) candidates.push([stretched, true]);
  let first: ConfirmedCounterexample | undefined;
  for (const [scenario, isStretched] of candidates) {
    let reproduced = 0;
    for (let i = 0; i < replays; i += 1) {
      const loaded = toScenario(scenario, { name: 'confirm', seed: 0, description: '' });
      const { history } = await executeRun(env, scenarioToRunPlan(loaded, { queue }));
      const result = checkHistory(history, { strictCauses: true });
      if (result.results.some((r) => r.valid === 'invalid' && violated.includes(r.checker))) {
        reproduced += 1;
      } else break;
    }
    const outcome = { scenario, reproduced, replays, stretched: isStretched };
    if (reproduced === replays) return outcome;
    first ??= outcome;
  }
  // Neither reproduced every time: the minimal schedule, with its count, is still the finding.
  return first!;
}
