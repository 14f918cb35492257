/**
 * Makes a counterexample worth writing down. Shrinking stops at the edge of the failure — a
 * pause of exactly one lease, or fewer jobs than workers so that the faulted worker holds a job
 * only if it wins the first claim — where real timing makes a replay a coin toss, and three lucky
 * replays prove little. So a stretched form is replayed first — the same faults at the same
 * times, held for two leases, and at least one job per worker — and written if it reproduced on
 * every replay; else the minimal schedule is tried; else the one that reproduced most often.
 * One that reproduced on none is unconfirmed: explore keeps it as evidence and searches on.
 */
import type { DrawnFault, ExploredScenario } from './explored-scenario.js';
import { toScenario } from './scenario-document.js';
import type { ExploreRun } from './types.js';

/** The schedule to write and how often it reproduced. */
export interface ConfirmedCounterexample {
  /** The minimal schedule, or its stretched form. */
  scenario: ExploredScenario;
  /** Replays that violated one of the checkers the search saw violated. */
  reproduced: number;
  /** Replays run of the schedule returned. */
  replays: number;
  /** Whether the faults were stretched to two leases (and the jobs to one per worker). */
  stretched: boolean;
}

/**
 * Whether a failure is reported as a counterexample. One reproducing replay is enough: each is
 * a fresh real run judged on the database's own audit, so a violation seen twice (the search's
 * run and a replay) is flaky but real, and the file says how often. None of three is not: the
 * failure was then most likely the machine (a sweep or a worker starved under load), not the
 * schedule.
 */
export function isConfirmed(confirmed: ConfirmedCounterexample): boolean {
  return confirmed.reproduced > 0;
}

const STRETCH_PERMILLE = 2_000;

function stretch(fault: DrawnFault): DrawnFault {
  switch (fault.kind) {
    case 'pause':
    case 'partition':
    case 'latency':
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
 * Replays the stretched form of `minimal` `replays` times against `queue`, then, if it missed,
 * `minimal` itself. Returns the first that reproduced on every replay, else the one that
 * reproduced most often (the stretched one on a tie).
 */
export async function confirmCounterexample(
  run: ExploreRun,
  queue: string,
  minimal: ExploredScenario,
  violated: string[],
  replays = 3,
): Promise<ConfirmedCounterexample> {
  const stretched = {
    ...minimal,
    jobs: Math.max(minimal.jobs, minimal.workers),
    faults: minimal.faults.map(stretch),
  };
  const candidates: [ExploredScenario, boolean][] =
    JSON.stringify(stretched) === JSON.stringify(minimal)
      ? [[minimal, false]]
      : [
          [stretched, true],
          [minimal, false],
        ];
  let best: ConfirmedCounterexample | undefined;
  for (const [scenario, isStretched] of candidates) {
    const loaded = toScenario(scenario, { name: 'confirm', seed: 0, description: '' });
    let reproduced = 0;
    // Every replay is run, not stopped at the first miss: the count is what the file reports.
    for (let i = 0; i < replays; i += 1) {
      const { result } = await run(loaded, queue);
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
