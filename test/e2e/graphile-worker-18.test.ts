import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { EnvironmentError } from '../../src/errors.js';
import { graphileWorker18Queue } from '../../src/libraries/graphile-worker/v18-adapter.js';
import { graphileWorkerQueue } from '../../src/libraries/graphile-worker/adapter.js';
import { GRAPHILE_SCHEMA } from '../../src/libraries/graphile-worker/adapter.js';
import type { AuditEvent } from '../../src/history/types.js';
import { runShippedScenario } from '../support/scenario-run.js';

// graphile-worker 0.18 through its own run() loop, under the Node 22 and the graphile-worker 0.18
// leaseproof installs from the npm registry on first need. What is checked is that the run goes
// end to end on 0.18's own schema and is judged, with the lease mapped as for 0.17 — not which
// verdict graphile-worker earns.
let env: StartedEnvironment | undefined;
let unavailable: string | undefined;
beforeAll(async () => {
  try {
    await graphileWorker18Queue.native!.program();
  } catch (error) {
    // No registry here (or no npm): nothing of graphile-worker 0.18 can run.
    if (!(error instanceof EnvironmentError)) throw error;
    unavailable = `Node 22 or graphile-worker 0.18 could not be installed: ${error.message}`;
    return;
  }
  env = await new EmbeddedEnvironmentProvider().start();
}, 600_000);
afterAll(async () => {
  await env?.stop();
});

const isGrant = (e: AuditEvent) => e.new?.state === 'held' && e.old?.state !== 'held';

describe('graphile-worker 0.18 (--queue graphile-worker@0.18)', () => {
  it('sets up with 0.18’s own migrations (000020 is past 0.17’s last)', async (ctx) => {
    if (unavailable !== undefined) return ctx.skip(unavailable);
    const database = await env!.createDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const lease = { durationMs: 1_000, heartbeatMs: 250, extendByMs: 1_000, pollMs: 50 };
      await graphileWorker18Queue.setup(client, { lease, databaseUrl: database.url });
      const { rows } = await client.query<{ id: number }>(
        `SELECT max(id) AS id FROM ${GRAPHILE_SCHEMA}.migrations`,
      );
      expect(rows[0]?.id).toBe(20);
      const [id] = await graphileWorker18Queue.enqueue(client, [{ payload: { n: 1 } }]);
      expect(id).toMatch(/^\d+$/);
    } finally {
      await graphileWorkerQueue.teardown(client);
      await client.end();
      await database.drop();
    }
  }, 120_000);

  it('crash-mid-handler runs end to end under Node 22 and is judged; its own pool frees the lock', async (ctx) => {
    if (unavailable !== undefined) return ctx.skip(unavailable);
    const run = await runShippedScenario(env!, 'graphile-worker@0.18', 'crash-mid-handler');
    expect(['valid', 'invalid', 'unknown']).toContain(run.result.valid);
    expect(run.history.header.queue).toBe('graphile-worker@0.18');
    const terms = run.history.header.queueTerms;
    expect(terms?.notes[0]).toBe(
      'graphile-worker 0.18.0, native mode under Node 22: its own run() worker pool',
    );
    expect(terms?.settings?.settings.find((s) => s.name === 'lockTimeout')?.where).toMatch(
      /^dist\/sql\/resetLockedAt\.js:9,13/,
    );
    const grants = run.audit.filter(isGrant);
    expect(grants.every((e) => /^w\d+$/.test(e.app))).toBe(true);
    // The crashed worker's lock, freed by resetLockedAt in another worker's pool: the audit
    // reads a release that is no completion and no failure as that worker's sweep.
    const freed = run.audit.filter((e) => e.old?.state === 'held' && /^w\d+:sweep$/.test(e.app));
    expect(freed.length).toBeGreaterThanOrEqual(1);
  }, 300_000);
});
