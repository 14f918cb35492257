import { simulatePoint } from '../src/sim/simulate.js';
import type { SimWorkload } from '../src/sim/sim-types.js';
import type { TuneSpec } from '../src/tune/load-tune.js';
import { sweep } from '../src/tune/sweep.js';
import { median, report } from './stats.js';

// The example's world: a handler of p50 120 ms and p99.9 2 s, four workers, crashes, pauses
// and partitions at the example's rates.
const WORKLOAD: SimWorkload = {
  duration: { dist: 'lognormal', p50Ms: 120, p999Ms: 2_000 },
  units: 4,
  workers: 4,
  jobs: 10_000,
  arrivalsPerSecond: 25,
  maxAttempts: 25,
  rttMs: 2,
  seed: 7,
  faults: {
    crashesPerWorkerHour: 2,
    restartAfterMs: 10_000,
    pausesPerWorkerHour: 6,
    pause: { dist: 'lognormal', p50Ms: 300, p999Ms: 30_000 },
    partitionsPerWorkerHour: 1,
    partition: { dist: 'lognormal', p50Ms: 2_000, p999Ms: 60_000 },
  },
};

/**
 * The tuning simulation's speed: simulated jobs per second of wall time on one point (10,000
 * jobs, lease 2 × p99.9 with a heartbeat at a quarter of it; median of 5), and the wall time of
 * a 100-point sweep of 10,000 jobs each (10 leases × 10 heartbeat fractions), one thread.
 * Targets (issue 12): >= 100,000 simulated jobs/s; the 100-point sweep under a minute.
 */
export async function benchTune(): Promise<void> {
  const point = { leaseMs: 4_000, heartbeatMs: 1_000, extendByMs: 4_000, pollMs: 200 };
  const rates: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const r = await simulatePoint(point, { ...WORKLOAD, seed: 7 + i });
    rates.push(r.jobs / (r.wallMs / 1000));
  }
  report({
    metric: 'tune.sim_jobs_per_s',
    value: Math.round(median(rates)),
    unit: 'jobs/s',
    target: '>= 100000',
    runs: rates.map(Math.round),
  });
  const spec: TuneSpec = {
    name: 'bench',
    seed: 7,
    handler: { duration: WORKLOAD.duration, p50Ms: 120, p999Ms: 2_000, units: 4, source: 'bench' },
    workload: {
      workers: 4,
      jobs: 10_000,
      arrivalsPerSecond: 25,
      maxAttempts: 25,
      rttMs: 2,
      pollMs: 200,
    },
    faults: WORKLOAD.faults,
    grid: {
      leaseMs: [0.5, 1, 1.5, 2, 3, 4, 5, 7.5, 10, 15].map((x) => x * 2_000),
      heartbeatFractions: [0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.75],
      extendTimesLease: [1],
    },
    budgets: { duplicatesPer1000: 5 },
  };
  const outcome = await sweep(spec);
  report({
    metric: 'tune.sweep_100x10000_wall_s',
    value: Math.round(outcome.wallMs / 100) / 10,
    unit: 's',
    target: '< 60',
    points: outcome.points.length,
    jobs: outcome.simulatedJobs,
    jobsPerSecond: Math.round(outcome.simulatedJobs / (outcome.wallMs / 1000)),
  });
}
