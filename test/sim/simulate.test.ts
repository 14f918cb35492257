import { describe, expect, it } from 'vitest';
import { simulatePoint } from '../../src/sim/simulate.js';
import type { FaultModel, SimResult, SimWorkload } from '../../src/sim/sim-types.js';

const NO_FAULTS: FaultModel = {
  crashesPerWorkerHour: 0,
  restartAfterMs: 5_000,
  pausesPerWorkerHour: 0,
  pause: { dist: 'fixed', ms: 1_000 },
  partitionsPerWorkerHour: 0,
  partition: { dist: 'fixed', ms: 1_000 },
};

const P50 = 100;
const P999 = 1_000;
const WORKLOAD: SimWorkload = {
  duration: { dist: 'lognormal', p50Ms: P50, p999Ms: P999 },
  units: 4,
  workers: 4,
  jobs: 4_000,
  maxAttempts: 25,
  faults: NO_FAULTS,
  rttMs: 2,
  seed: 3,
};

/** P(duration > x) for the log-normal of p50 and p99.9. */
function tail(x: number): number {
  const sigma = Math.log(P999 / P50) / 3.090232306167813;
  const z = Math.log(x / P50) / sigma;
  // Abramowitz–Stegun 7.1.26 for erfc, enough for three decimals.
  const t = 1 / (1 + 0.3275911 * (z / Math.SQRT2));
  const erfc =
    t *
    (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) *
    Math.exp(-(z * z) / 2);
  return erfc / 2;
}

const without = ({ wallMs: _w, ...rest }: SimResult) => rest;

describe('the tuning simulation (real claim loop and heartbeat on fake timers)', () => {
  it('is deterministic per seed, and another seed gives another run', async () => {
    const faults: FaultModel = {
      ...NO_FAULTS,
      crashesPerWorkerHour: 60,
      pausesPerWorkerHour: 60,
      partitionsPerWorkerHour: 30,
    };
    const point = { leaseMs: 800, heartbeatMs: 200, extendByMs: 800, pollMs: 50 };
    const workload = { ...WORKLOAD, jobs: 1_500, faults };
    const a = await simulatePoint(point, workload);
    const b = await simulatePoint(point, workload);
    expect(without(b)).toEqual(without(a));
    const c = await simulatePoint(point, { ...workload, seed: 4 });
    expect(without(c)).not.toEqual(without(a));
    // The faults had their effect: duplicates after them, and crash stalls measured.
    expect(a.faultDuplicatesPer1000).toBeGreaterThan(0);
    expect(a.crashStallMs.count).toBeGreaterThan(0);
  });

  it('without a heartbeat, a lease below the p99.9 re-runs a share P(duration > lease) of the jobs', async () => {
    const leaseMs = 600;
    const r = await simulatePoint(
      { leaseMs, heartbeatMs: null, extendByMs: leaseMs, pollMs: 20 },
      WORKLOAD,
    );
    const expected = tail(leaseMs);
    const observed = r.duplicatedJobsPer1000 / 1000;
    // Binomial: three standard deviations of 4,000 draws.
    const sd = Math.sqrt((expected * (1 - expected)) / WORKLOAD.jobs);
    expect(Math.abs(observed - expected)).toBeLessThan(3 * sd + 0.001);
    expect(r.leaseDuplicatesPer1000).toBe(r.duplicatesPer1000);
    expect(r.unexplainedExpiriesPer1000).toBeGreaterThan(0);
    expect(r.heartbeatWritesPerSecond).toBe(0);
  });

  it('with a working heartbeat, the same short lease runs every job once and nothing expires', async () => {
    const r = await simulatePoint(
      { leaseMs: 600, heartbeatMs: 150, extendByMs: 600, pollMs: 20 },
      WORKLOAD,
    );
    expect(r.completed).toBe(WORKLOAD.jobs);
    expect(r.duplicatesPer1000).toBe(0);
    expect(r.unexplainedExpiriesPer1000).toBe(0);
    expect(r.heartbeatWritesPerSecond).toBeGreaterThan(0);
  });

  it('a crash stalls the held job for about a lease: the deadline passes, then a worker polls', async () => {
    const point = { leaseMs: 2_000, heartbeatMs: 500, extendByMs: 2_000, pollMs: 50 };
    const r = await simulatePoint(point, {
      ...WORKLOAD,
      jobs: 40,
      plans: Array.from({ length: 40 }, () => [{ ms: 1_000, sync: false, effect: false }]),
      schedule: [{ atMs: 1_500, worker: 'w1', kind: 'crash', forMs: 10_000 }],
    });
    expect(r.crashStallMs.count).toBe(1);
    // Confirmed at most one heartbeat before the crash, expired a lease after that.
    expect(r.crashStallMs.p50).toBeGreaterThanOrEqual(point.leaseMs - point.heartbeatMs);
    expect(r.crashStallMs.p50).toBeLessThanOrEqual(point.leaseMs + point.pollMs + 10);
    expect(r.faultDuplicatesPer1000).toBe(1000 / 40);
    expect(r.completed).toBe(40);
  });
});
