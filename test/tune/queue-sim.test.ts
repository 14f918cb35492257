// `tune --queue`: the sweep's best points simulated again on a queue's own SQL (PGlite, simulated
// time). The reference holds where the model says it does; a queue whose ack has no fence is
// caught by the checkers at the very point the model recommends; the run plan is the tune file's
// workload, one seed one plan.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInQueue } from '../../src/libraries/registry.js';
import { loadTuneFile, type TuneSpec } from '../../src/tune/load-tune.js';
import { SimDatabase } from '../../src/sim/pglite/sim-database.js';
import { simulateRun } from '../../src/sim/pglite/sim-run.js';
import { figuresOf, queueRunPlan, simulateOnQueue } from '../../src/tune/queue-sim.js';
import { sweep, type SweepOutcome } from '../../src/tune/sweep.js';

// The example's handler and fault kinds, with pauses twenty times as often (a 12 s run meets
// several) and a grid of four points.
const TUNE = `
name: queue-sim
seed: 7
handler: { p50: 120ms, p999: 2s, units: 4 }
workload: { workers: 4, jobs: 300, arrivalsPerSecond: 25, poll: 200ms }
faults:
  crashesPerWorkerHour: 120
  restartAfter: 2s
  pausesPerWorkerHour: 1200
  pause: { p50: 300ms, p999: 30s }
  partitionsPerWorkerHour: 60
  partition: { p50: 1s, p999: 10s }
grid:
  lease: { timesP999: [0.5, 2] }
  heartbeat: { fractionOfLease: [0, 0.25] }
  extendBy: { timesLease: [1] }
budgets: { duplicatesPer1000: 100 }
`;

let dir = '';
let spec: TuneSpec;
let outcome: SweepOutcome;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'leaseproof-queue-sim-'));
  await writeFile(join(dir, 'tune.yaml'), TUNE);
  spec = await loadTuneFile(join(dir, 'tune.yaml'));
  outcome = await sweep(spec);
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('tune --queue', () => {
  it("draws the tune file's workload as a run plan: one seed, one plan", () => {
    const point = outcome.points[1]!.result.point;
    const plan = queueRunPlan(spec, point, builtInQueue('reference')!, 300);
    expect(JSON.stringify(queueRunPlan(spec, point, builtInQueue('reference')!, 300))).toBe(
      JSON.stringify(plan),
    );
    expect(plan.plans).toHaveLength(300);
    expect(plan.plans.every((units) => units.length === 4)).toBe(true);
    // Poisson arrivals at 25/s: 300 jobs over about 12 s.
    const last = plan.arrivalsMs!.at(-1)!;
    expect(last).toBeGreaterThan(8_000);
    expect(last).toBeLessThan(16_000);
    expect(plan.lease).toEqual({
      durationMs: point.leaseMs,
      heartbeatMs: point.heartbeatMs,
      extendByMs: point.extendByMs,
      pollMs: 200,
    });
    const kinds = new Set(plan.faults.map((f) => f.kind));
    expect([...kinds].sort()).toEqual(['crash', 'partition', 'pause']);
    // A crashed worker does not crash again before it restarts.
    for (const w of ['w1', 'w2', 'w3', 'w4']) {
      const crashes = plan.faults.filter((f) => f.kind === 'crash' && f.worker === w);
      crashes.slice(1).forEach((c, i) => {
        expect(c.atMs).toBeGreaterThanOrEqual(crashes[i]!.atMs + crashes[i]!.forMs);
      });
    }
  });

  it('the reference holds at the recommended point: valid, within budget, figures measured', async () => {
    const [best] = await simulateOnQueue(spec, outcome, {
      queue: builtInQueue('reference')!,
      k: 1,
    });
    expect(best?.index).toBe(outcome.recommended);
    expect(best?.findings).toEqual([]);
    expect(best?.verdict).toBe('valid');
    expect(best?.holds).toBe(true);
    const r = best!.result!;
    expect(r.jobs).toBe(300);
    expect(r.completed + r.dead).toBe(300);
    // The faults struck: leases were lost and jobs ran again, each after a fault.
    expect(r.duplicatesPer1000).toBeGreaterThan(0);
    expect(r.faultDuplicatesPer1000).toBe(r.duplicatesPer1000);
    expect(r.heartbeatWritesPerSecond).toBeGreaterThan(0);
  }, 120_000);

  it('tells duplicates after a fault from duplicates of handlers outlasting the lease', async () => {
    // No faults at all, and a lease of half the handler's p99.9: without a heartbeat every slow
    // handler is run again, and no fault explains it; with one, nothing is.
    const calm: TuneSpec = {
      ...spec,
      faults: {
        ...spec.faults,
        crashesPerWorkerHour: 0,
        pausesPerWorkerHour: 0,
        partitionsPerWorkerHour: 0,
      },
    };
    const db = await SimDatabase.start();
    try {
      const figures = async (heartbeatMs: number | null) => {
        const point = { leaseMs: 1_000, heartbeatMs, extendByMs: 1_000, pollMs: 200 };
        const plan = queueRunPlan(calm, point, builtInQueue('reference')!, 300);
        expect(plan.faults).toEqual([]);
        return figuresOf(await simulateRun(db, plan), point, 1);
      };
      const bare = await figures(null);
      expect(bare.leaseDuplicatesPer1000).toBeGreaterThan(0);
      expect(bare.faultDuplicatesPer1000).toBe(0);
      expect(bare.unexplainedExpiriesPer1000).toBeGreaterThan(0);
      expect(bare.heartbeatWritesPerSecond).toBe(0);
      const beating = await figures(250);
      expect(beating.duplicatesPer1000).toBe(0);
      expect(beating.unexplainedExpiriesPer1000).toBe(0);
      expect(beating.heartbeatWritesPerSecond).toBeGreaterThan(0);
    } finally {
      await db.stop();
    }
  }, 120_000);

  it("catches unconditional-ack's own SQL at the point the model recommends", async () => {
    const [best] = await simulateOnQueue(spec, outcome, {
      queue: builtInQueue('unconditional-ack')!,
      k: 1,
    });
    expect(best?.verdict).toBe('invalid');
    expect(best?.holds).toBe(false);
    expect(best?.findings.join('\n')).toMatch(/^I1 no-stale-ack: invalid/m);
  }, 120_000);

  it('simulates a queue whose setup spans statements in a transaction (graphile-worker)', async () => {
    // Its migrations run BEGIN … COMMIT over several calls, once refused as "a transaction over
    // several statements"; a transaction now owns the one session until it ends (issue 38).
    const [best] = await simulateOnQueue(spec, outcome, {
      queue: builtInQueue('graphile-worker')!,
      k: 1,
      jobs: 20,
    });
    expect(best?.verdict).not.toBe('not simulated');
    expect(best?.result?.jobs).toBe(20);
  }, 120_000);
});
