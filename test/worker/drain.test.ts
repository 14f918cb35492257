import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { waitForDrain } from '../../src/pool/queue-database.js';
import { drawHandlerPlans } from '../../src/scenario/durations.js';
import { Random } from '../../src/random.js';
import { startQueueRun } from '../support/queue-run.js';
import { descendantsOf } from '../support/processes.js';

let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

describe('eight real worker processes, no faults', () => {
  it('drain 500 jobs: every job completed exactly once, no duplicate effect', async () => {
    const plans = drawHandlerPlans(
      { units: 2, unit: { dist: 'uniform', minMs: 0.5, maxMs: 1.5 }, effectEvery: 1 },
      500,
      new Random(7),
    );
    await using run = await startQueueRun(env, {
      queue: 'reference',
      workers: 8,
      lease: { durationMs: 2_000, heartbeatMs: 500, extendByMs: 2_000, pollMs: 20 },
      plans,
    });
    expect(run.pool.workers.map((w) => w.running)).toEqual(Array(8).fill(true));
    await waitForDrain(run.database, run.adapter, 60_000);

    // The database, not the workers, says what happened.
    const jobs = await run.sql<{ status: string; attempts: number }>(
      `SELECT status, attempts FROM leaseproof_jobs`,
    );
    expect(jobs).toHaveLength(500);
    expect(jobs.filter((j) => j.status !== 'completed')).toEqual([]);
    expect(jobs.filter((j) => j.attempts !== 1)).toEqual([]);
    const effects = await run.sql<{ job_id: string; unit: number; n: number }>(
      `SELECT job_id, unit, count(*)::int AS n FROM leaseproof_effects GROUP BY job_id, unit`,
    );
    expect(effects).toHaveLength(1_000);
    expect(effects.filter((e) => e.n !== 1)).toEqual([]);
    // Every worker took part, each through its own proxy (application_name = worker id).
    const byWorker = await run.sql<{ worker_id: string }>(
      `SELECT DISTINCT worker_id FROM leaseproof_effects ORDER BY worker_id`,
    );
    expect(byWorker.length).toBeGreaterThanOrEqual(6);
    const acks = run.pool
      .events()
      .filter((e) => e.event.kind === 'ack' && e.event.phase === 'complete');
    expect(acks.filter((e) => 'outcome' in e.event && e.event.outcome === 'ok')).toHaveLength(500);

    const pids = run.pool.workers.map((w) => w.pid);
    await run.pool.stop();
    expect(descendantsOf(process.pid).filter((p) => pids.includes(p.pid))).toEqual([]);
  });
});
