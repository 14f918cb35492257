import type { StartedEnvironment } from '../../src/env/types.js';
import type { AuditEvent, WorkerHistoryEvent } from '../../src/history/types.js';
import { runAndCheck } from '../../src/scenario/run-and-check.js';
import { loadScenario, scenarioToRunPlan } from '../../src/scenario/load-scenario.js';
import type { StatedSettings } from '../../src/queue/library-settings.js';

/**
 * Runs a shipped scenario (`scenarios/<name>.yaml`) on `queue` and judges it: the history, the
 * verdicts by checker name, and the audit and worker events for a test to look into.
 * `settings`: the library's own settings, as `--setting` states them.
 */
export async function runShippedScenario(
  env: StartedEnvironment,
  queue: string,
  name: string,
  settings?: StatedSettings,
) {
  const plan = scenarioToRunPlan(await loadScenario(`scenarios/${name}.yaml`), {
    queue,
    ...(settings !== undefined && { settings }),
  });
  const { history, drained, result } = await runAndCheck(env, plan);
  const byName = Object.fromEntries(result.results.map((r) => [r.checker, r]));
  const audit = history.events.filter((e): e is AuditEvent => e.type === 'audit');
  const worker = history.events.filter((e): e is WorkerHistoryEvent => e.type === 'worker');
  return { history, drained, result, byName, audit, worker };
}

/** A judged run of a shipped scenario (`runShippedScenario`). */
export type ShippedRun = Awaited<ReturnType<typeof runShippedScenario>>;

/**
 * Whether `worker` held a job when the run's first fault began: granted before it and not
 * released (or taken) before it. A fault timed from `go` can find a worker that has not fetched
 * yet on a loaded machine; a test about what the fault does to a held job runs again then.
 */
export function heldAtFirstFault(run: ShippedRun, worker: string): boolean {
  const fault = run.history.events.find((e) => e.type === 'nemesis' && e.phase === 'start');
  if (fault === undefined) return false;
  const isGrant = (e: AuditEvent) => e.new?.state === 'held' && e.old?.state !== 'held';
  return run.audit.some(
    (g) =>
      isGrant(g) &&
      g.app === worker &&
      g.t < fault.t &&
      !run.audit.some(
        (e) => e.job === g.job && e.t > g.t && e.t < fault.t && e.new?.holder !== g.new!.holder,
      ),
  );
}

/** `runShippedScenario` until `worker` held a job when the first fault began (at most 3 runs). */
export async function runShippedScenarioHolding(
  env: StartedEnvironment,
  queue: string,
  name: string,
  worker: string,
): Promise<ShippedRun> {
  let run = await runShippedScenario(env, queue, name);
  for (let tries = 1; tries < 3 && !heldAtFirstFault(run, worker); tries += 1) {
    run = await runShippedScenario(env, queue, name);
  }
  return run;
}
