import pg from 'pg';
import type { RunDatabase } from '../env/types.js';
import type { JobSpec, QueueAdapter, SetupContext, SqlClient } from '../queue/types.js';
import { adapterDeadline, adapterLoadTimeoutMs } from '../queue/adapter-deadline.js';
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

/** What `prepareQueue` does besides the adapter's setup and enqueue. */
export interface PrepareQueueOptions {
  /** Handed to the adapter's `setup` and `enqueue`: the run's lease, for a queue set per job. */
  ctx?: SetupContext | undefined;
  /**
   * Runs after the schema and the effects table exist and before any job is enqueued (the
   * history's audit trigger is installed here, so that every insert is on record).
   */
  beforeEnqueue?: ((client: pg.Client) => Promise<void>) | undefined;
}

/**
 * Sets up the queue's schema and the harness's effects table, then enqueues `jobs`; returns
 * their ids. The adapter's calls are bounded (`adapterLoadTimeoutMs`): a setup that hangs is an
 * error naming the call, not a run that never starts.
 */
export async function prepareQueue(
  database: RunDatabase,
  adapter: QueueAdapter,
  jobs: JobSpec[],
  options: PrepareQueueOptions = {},
): Promise<string[]> {
  const { beforeEnqueue } = options;
  // A queue whose code opens its own connections (a worker program) is told where and as whom.
  const ctx = options.ctx && {
    databaseUrl: database.url,
    applicationName: 'leaseproof-controller',
    ...options.ctx,
  };
  return withRunClient(database, async (client) => {
    const name = `queue adapter "${adapter.name}"`;
    await adapterDeadline(adapter.setup(client, ctx), adapterLoadTimeoutMs(), `${name}: setup()`);
    await client.query(EFFECTS_DDL);
    await beforeEnqueue?.(client);
    if (jobs.length === 0) return [];
    return adapterDeadline(
      adapter.enqueue(client, jobs, ctx),
      adapterLoadTimeoutMs(),
      `${name}: enqueue() of ${jobs.length} job(s)`,
    );
  });
}

/**
 * How many jobs are not yet terminal (completed, failed for good, or dead-lettered), read from the lease table
 * through the adapter's audit description — the same view of the queue the audit trigger has
 * (only the run's jobs, `audit.jobRows`).
 */
export async function unfinishedJobs(client: SqlClient, adapter: QueueAdapter): Promise<number> {
  const { table, expressions, completion, jobRows } = adapter.audit;
  const terminal = completion === 'delete' ? "'failed', 'dead'" : "'completed', 'failed', 'dead'";
  // The library's own work in the same table (a periodic task's jobs) is not the run's to drain.
  const ours = jobRows === undefined ? '' : ` AND (${jobRows})`;
  const sql = `SELECT count(*)::int AS n FROM ${table} r
    WHERE (${expressions.state}) NOT IN (${terminal})${ours}`;
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
  failure?: () => Error | undefined,
): Promise<void> {
  await withRunClient(database, async (client) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      signal?.throwIfAborted();
      const failed = failure?.();
      if (failed !== undefined) throw failed;
      const left = await unfinishedJobs(client, adapter);
      if (left === 0) return;
      if (Date.now() > deadline) {
        throw new Error(`${left} job(s) still unfinished after ${timeoutMs}ms`);
      }
      await new Promise((r) => setTimeout(r, pollMs));
    }
  });
}
