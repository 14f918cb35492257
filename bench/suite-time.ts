import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runScenarios } from '../src/run/run-scenarios.js';
import { scenarioFiles } from '../src/cli/scenario-folder.js';
import { report } from './stats.js';

/**
 * Wall time of the curated suite against the reference queue on the embedded environment —
 * environment start, every scenario, checks and reports — and of each scenario (run + checks).
 * Target: the whole suite within 3 minutes on this machine.
 */
export async function benchSuiteTime(): Promise<void> {
  const started = performance.now();
  const result = await runScenarios({
    files: await scenarioFiles('scenarios'),
    queues: ['reference'],
    out: await mkdtemp(join(tmpdir(), 'leaseproof-bench-')),
    log: () => undefined,
  });
  const total = (performance.now() - started) / 1000;
  for (const outcome of result.outcomes) {
    report({
      metric: 'scenario_wall_time',
      value: Math.round(outcome.durationMs),
      unit: 'ms',
      scenario: outcome.scenario,
      verdict: outcome.result.valid,
    });
  }
  report({
    metric: 'suite_wall_time',
    value: Math.round(total * 10) / 10,
    unit: 's',
    scenarios: result.outcomes.length,
    target: '<= 180',
  });
}
