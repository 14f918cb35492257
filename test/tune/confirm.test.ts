// The simulation against the real thing on one grid point: the same jobs, the same crash, the
// reference queue on PostgreSQL behind Toxiproxy with real worker processes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { confirmPoints } from '../../src/tune/confirm.js';
import type { TuneSpec } from '../../src/tune/load-tune.js';
import { sweep } from '../../src/tune/sweep.js';

let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

const SPEC: TuneSpec = {
  name: 'confirm',
  seed: 5,
  handler: {
    duration: { dist: 'lognormal', p50Ms: 150, p999Ms: 1_200 },
    p50Ms: 150,
    p999Ms: 1_200,
    units: 3,
    source: 'test',
  },
  workload: { workers: 3, jobs: 300, maxAttempts: 25, rttMs: 2, pollMs: 50 },
  faults: {
    crashesPerWorkerHour: 0,
    restartAfterMs: 1_000,
    pausesPerWorkerHour: 0,
    pause: { dist: 'fixed', ms: 1 },
    partitionsPerWorkerHour: 0,
    partition: { dist: 'fixed', ms: 1 },
  },
  grid: { leaseMs: [1_000, 2_400], heartbeatFractions: [0.25], extendTimesLease: [1] },
  budgets: { p99StallMs: 1_500 },
};

describe('tune --confirm', () => {
  it('a real run agrees with the simulation on the recommended point, within the stated tolerance', async () => {
    const outcome = await sweep(SPEC);
    // The 2.4 s lease breaks the stall budget (its bound, lease + poll): it is the point outside.
    expect(outcome.points[1]?.overBudget).not.toEqual([]);
    const confirmations = await confirmPoints(SPEC, outcome, env, {
      k: 1,
      jobs: 30,
      leaseMs: 1_000,
    });
    expect(confirmations.map((c) => c.label)).toEqual(['best 1', 'outside budget']);
    const best = confirmations[0]!;
    // The crash hit a held job in both worlds, and the job was executed again.
    expect(best.measured.duplicatesPer1000).toBeGreaterThan(0);
    expect(best.realRuns).toBeLessThanOrEqual(3);
    expect(best.simulated.stallP50Ms).toBeGreaterThan(0);
    expect(best.verdict, JSON.stringify(best)).toBe('agrees');
    expect(best.tolerance).toMatch(/±25% of the simulated figure/);
  }, 180_000);
});
