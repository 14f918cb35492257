// The curated scenarios in simulated time: the reference queue's own SQL is clean on every one
// the simulation can model, each one it cannot is refused with the reason, and a known-bad
// queue found in simulation is confirmed on a real run (PostgreSQL, Toxiproxy, processes).
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { builtInQueue } from '../../../src/libraries/registry.js';
import { checkerByName, checkHistory } from '../../../src/checker/index.js';
import { runCheckers } from '../../../src/checker/compose.js';
import { EmbeddedEnvironmentProvider } from '../../../src/env/embedded-env.js';
import { loadScenario, scenarioToRunPlan } from '../../../src/scenario/load-scenario.js';
import { runAndCheck } from '../../../src/scenario/run-and-check.js';
import { SimulationLimitError } from '../../../src/sim/pglite/sim-database.js';
import { simulateRun } from '../../../src/sim/pglite/sim-run.js';
import { simPlanOf } from '../../../src/sim/pglite/scenario-sim.js';
import { useSimDatabase } from '../../support/sim-database.js';

const simDb = useSimDatabase();

const curated = readdirSync('scenarios')
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => `scenarios/${f}`);

describe('the curated scenarios in simulated time', () => {
  it('the reference is valid on every scenario the simulation models; the others are refused, each with its reason', async () => {
    const reference = builtInQueue('reference')!;
    const refused: string[] = [];
    const invalid: string[] = [];
    let simulated = 0;
    for (const file of curated) {
      const scenario = await loadScenario(file);
      let plan;
      try {
        plan = simPlanOf(scenarioToRunPlan(scenario, { queue: 'reference' }), reference);
      } catch (error) {
        expect(error).toBeInstanceOf(SimulationLimitError);
        expect(String(error)).toMatch(/is not modelled|are not modelled/);
        refused.push(scenario.name);
        continue;
      }
      simulated += 1;
      const result = checkHistory(await simulateRun(simDb(), plan));
      for (const r of result.results) {
        if (r.valid === 'invalid')
          invalid.push(`${scenario.name} ${r.id}: ${r.evidence[0]?.message ?? ''}`);
      }
    }
    expect(invalid).toEqual([]);
    // Most of the suite is crash, pause, partition, latency and clock: the simulation's ground.
    expect(simulated).toBeGreaterThanOrEqual(26);
    // Stalls, restarts, graceful stops and handlers that ignore their cancellation are left to
    // real runs; clock skew, slow links and jobs arriving at a rate are simulated.
    expect(refused).toEqual(
      expect.arrayContaining([
        'blocked-event-loop',
        'database-restart',
        'graceful-stop-timeout',
        'handler-ignores-cancellation',
      ]),
    );
    expect(refused).not.toContain('skewed-worker-clocks');
    expect(refused).not.toContain('slow-link-claims');
    expect(refused).not.toContain('clock-step-during-retries');
  }, 300_000);

  it('unconditional-ack found in simulation is confirmed on a real run of the same plan', async () => {
    const scenario = await loadScenario('scenarios/pause-past-lease.yaml');
    const runPlan = scenarioToRunPlan(scenario, { queue: 'unconditional-ack' });
    const noStaleAck = checkerByName('no-stale-ack')!;
    const simulated = runCheckers(
      [noStaleAck],
      await simulateRun(simDb(), simPlanOf(runPlan, builtInQueue('unconditional-ack')!)),
    );
    expect(simulated.valid).toBe('invalid');
    const env = await new EmbeddedEnvironmentProvider().start();
    try {
      const real = await runAndCheck(env, runPlan, { checkers: [noStaleAck] });
      expect(real.result.valid).toBe('invalid');
    } finally {
      await env.stop();
    }
  }, 300_000);
});
