import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkHistory } from '../../src/checker/index.js';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import type { JobEvent } from '../../src/history/types.js';
import { executeRun } from '../../src/scenario/execute-run.js';
import { parseScenario, scenarioToRunPlan } from '../../src/scenario/load-scenario.js';

let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

describe('jobs.rate', () => {
  it('enqueues jobs one by one at the rate while the workers run, and the run still drains', async () => {
    const scenario = parseScenario(
      [
        'name: rate',
        'description: jobs arrive at 20 per second',
        'seed: 3',
        'lease: { duration: 1s, heartbeat: 250ms, extendBy: 1s, poll: 20ms }',
        'workers: 2',
        'jobs: { count: 10, rate: 20, handler: { units: 1, unit: { dist: fixed, duration: 5ms } } }',
        'check: [no-lost-job, single-completion]',
      ].join('\n'),
    );
    const { history, drained } = await executeRun(
      env,
      scenarioToRunPlan(scenario, { queue: 'reference' }),
    );
    expect(drained).toBe(true);
    const jobs = history.events.filter((e): e is JobEvent => e.type === 'job');
    expect(jobs).toHaveLength(10);
    const spread = jobs[jobs.length - 1]!.t - jobs[0]!.t;
    expect(spread).toBeGreaterThanOrEqual(400); // 9 gaps of 50 ms
    expect(spread).toBeLessThan(2_000);
    expect(checkHistory(history).valid).toBe('valid');
  });
});
