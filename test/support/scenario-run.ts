import type { StartedEnvironment } from '../../src/env/types.js';
import type { AuditEvent, WorkerHistoryEvent } from '../../src/history/types.js';
import { runAndCheck } from '../../src/scenario/run-and-check.js';
import { loadScenario, scenarioToRunPlan } from '../../src/scenario/load-scenario.js';

/**
 * Runs a shipped scenario (`scenarios/<name>.yaml`) on `queue` and judges it: the history, the
 * verdicts by checker name, and the audit and worker events for a test to look into.
 */
export async function runShippedScenario(env: StartedEnvironment, queue: string, name: string) {
  const plan = scenarioToRunPlan(await loadScenario(`scenarios/${name}.yaml`), { queue });
  const { history, drained, result } = await runAndCheck(env, plan);
  const byName = Object.fromEntries(result.results.map((r) => [r.checker, r]));
  const audit = history.events.filter((e): e is AuditEvent => e.type === 'audit');
  const worker = history.events.filter((e): e is WorkerHistoryEvent => e.type === 'worker');
  return { history, drained, result, byName, audit, worker };
}
