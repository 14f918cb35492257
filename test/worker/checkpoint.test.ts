import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { waitForDrain } from '../../src/pool/queue-database.js';
import { startQueueRun, units } from '../support/queue-run.js';

let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

describe('a long job in cursor-checkpointed units', () => {
  it('resumes from the last committed cursor after its worker is SIGKILLed', async () => {
    await using run = await startQueueRun(env, {
      queue: 'reference',
      workers: 2,
      lease: { durationMs: 800, heartbeatMs: 200, extendByMs: 800, pollMs: 50 },
      plans: [units(20, 80)],
      checkpoint: true,
    });
    const claim = await Promise.any(
      run.pool.workers.map((w) =>
        w.waitFor((e) => e.kind === 'claim' && e.outcome === 'ok', 10_000),
      ),
    );
    const first = run.pool.worker(claim.workerId);
    await first.waitFor((e) => e.kind === 'unit' && e.unit === 8, 10_000);
    await first.kill();
    await waitForDrain(run.database, run.adapter, 15_000);

    const [job] = await run.sql<{ cursor: string; attempts: number; status: string }>(
      'SELECT cursor, attempts, status FROM leaseproof_jobs',
    );
    expect(job).toMatchObject({ status: 'completed', attempts: 2 });
    // The second claim started where the first one's last checkpoint left off, not at 0.
    const other = run.pool.workers.find((w) => w.workerId !== claim.workerId)!;
    const resumedAt = other.events.find((e) => e.event.kind === 'unit')?.event;
    expect(resumedAt && 'unit' in resumedAt ? resumedAt.unit : -1).toBeGreaterThanOrEqual(8);
    // Each unit's effect ran once, except at most the one in flight at the crash.
    const effects = await run.sql<{ unit: number; n: number }>(
      'SELECT unit, count(*)::int AS n FROM leaseproof_effects GROUP BY unit ORDER BY unit',
    );
    expect(effects.map((e) => e.unit)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(effects.filter((e) => e.n > 1).length).toBeLessThanOrEqual(1);
  });
});
