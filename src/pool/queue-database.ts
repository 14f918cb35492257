import pg from 'pg';
import type { RunDatabase } from '../env/types.js';
import type { JobSpec, QueueAdapter } from '../queue/types.js';
import { EFFECTS_DDL } from '../worker/effects.js';

/** Runs `work` on a short-lived controller connection to the run database. */
export async function withRunClient<T>(
  database: RunDatabase,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({
    connectionString: database.url,
    application_name: 'leaseproof-controller',
  });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Sets up the queue's schema and the harness's effects table, then enqueues `jobs`. */
export async function prepareQueue(
  database: RunDatabase,
  adapter: QueueAdapter,
  jobs: JobSpec[],
): Promise<string[]> {
  return withRunClient(database, async (client) => {
    await adapter.setup(client);
    await client.query(EFFECTS_DDL);
    return jobs.length === 0 ? [] : adapter.enqueue(client, jobs);
  });
}

/**
 * How many jobs are not yet terminal (completed, failed for good, or dead-lettered), read from the lease table
 * through the adapter's audit description — the same view of the queue the audit trigger has.
 */
export async function unfinishedJobs(client: pg.Client, adapter: QueueAdapter): Promise<number> {
  const { table, expressions, completion } = adapter.audit;
  const sql =
    completion === 'delete'
      ? `SELECT count(*)::int AS n FROM ${table} r WHERE (${expressions.state}) NOT IN ('failed', 'dead')`
      : `SELECT count(*)::int AS n FROM ${table} r WHERE (${expressions.state}) NOT IN ('completed', 'failed', 'dead')`;
  const result = await client.query<{ n: number }>(sql);
  return result.rows[0]?.n ?? 0;
}

/** Waits until every job is terminal, or throws after `timeoutMs` saying how many are left. */
export async function waitForDrain(
  database: RunDatabase,
  adapter: QueueAdapter,
  timeoutMs: number,
  pollMs = 100,
  signal?: AbortSignal,
): Promise<void> {
  await withRunClient(database, async (client) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      signal?.throwIfAborted();
      const left = await unfinishedJobs(client, adapter);
      if (left === 0) return;
      if (Date.now() > deadline) {
        throw new Error(`${left} job(s) still unfinished after ${timeoutMs}ms`);
      }
      await new Promise((r) => setTimeout(r, pollMs));
    }
  });
}
