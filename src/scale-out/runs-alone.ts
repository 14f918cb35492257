/**
 * Which runs need the machine to themselves under `--parallel`, and why. Two kinds do:
 *
 * - a db-restart fault cuts every database's connections, not only its own run's: beside
 *   another run it would be a fault nobody scheduled for that one;
 * - a CPU-bound handler (synchronous units) is there to prove the heartbeat survives a busy
 *   event loop. Beside other runs its threads also wait for a CPU, the starvation probes see it,
 *   and its timing verdicts become `unknown`: honest, but a queue with its heartbeat on the event
 *   loop then escapes the scenarios built to catch it (seen: the mutation matrix at
 *   `--parallel 4` caught main-thread-heartbeat on I9 in one scenario instead of two).
 */
import { faultKind } from '../faults/fault-kinds.js';
import type { RunPlan } from '../scenario/execute-run.js';

/** Why `plan` must run alone, or undefined when it can share the machine. */
export function runsAlone(plan: RunPlan): string | undefined {
  for (const fault of plan.faults) {
    const why = faultKind(fault.kind).runsAlone;
    if (why !== undefined) return why;
  }
  if (plan.plans.some((units) => units.some((u) => u.sync))) {
    return 'its handler burns CPU: its heartbeat is judged on a machine it does not share';
  }
  return undefined;
}
