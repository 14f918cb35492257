import type { RunDatabase, StartedEnvironment } from '../../src/env/types.js';
import { loadQueueAdapter } from '../../src/libraries/load-adapter.js';
import type { LeaseSettings, QueueAdapter } from '../../src/queue/types.js';
import { prepareQueue, withRunClient } from '../../src/pool/queue-database.js';
import { WorkerPool, type WorkerPoolOptions } from '../../src/pool/worker-pool.js';
import type { UnitPlan } from '../../src/worker/types.js';

/** A queue set up in a fresh database, with jobs enqueued and a pool of workers running. */
export interface QueueRun extends AsyncDisposable {
  database: RunDatabase;
  adapter: QueueAdapter;
  pool: WorkerPool;
  jobIds: string[];
  /** Runs SQL on the run database (the ground truth). */
  sql<R extends Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
}

/** Sets up `queue` with `plans` as jobs and starts `workers` workers. */
export async function startQueueRun(
  env: StartedEnvironment,
  options: {
    queue: string;
    workers: number;
    lease: LeaseSettings;
    /** Handlers that ignore their cancellation. */
    ignoresAbort?: boolean;
    plans: UnitPlan[][];
    maxAttempts?: number;
    /** Handlers commit a cursor after each unit and resume from it. */
    checkpoint?: boolean;
    clock?: WorkerPoolOptions['clock'];
    shutdownTimeoutMs?: WorkerPoolOptions['shutdownTimeoutMs'];
    /** Extra SQL run after setup and before the workers start (e.g. a test's own trigger). */
    beforeStart?: string;
  },
): Promise<QueueRun> {
  const database = await env.createDatabase();
  const adapter = await loadQueueAdapter(options.queue);
  const jobIds = await prepareQueue(
    database,
    adapter,
    options.plans.map((units) => ({
      payload: {
        units,
        ...(options.checkpoint === true && { checkpoint: true }),
        ...(options.ignoresAbort === true && { ignoresAbort: true }),
      },
      ...(options.maxAttempts !== undefined && { maxAttempts: options.maxAttempts }),
    })),
  );
  const sql = <R extends Record<string, unknown>>(text: string, params?: unknown[]) =>
    withRunClient(database, async (c) => (await c.query<R>(text, params)).rows);
  if (options.beforeStart) await sql(options.beforeStart);
  const pool = await WorkerPool.start({
    env,
    database,
    queue: options.queue,
    workers: options.workers,
    lease: options.lease,
    ...(options.clock && { clock: options.clock }),
    ...(options.shutdownTimeoutMs && { shutdownTimeoutMs: options.shutdownTimeoutMs }),
  });
  return {
    database,
    adapter,
    pool,
    jobIds,
    sql,
    async [Symbol.asyncDispose]() {
      await pool.stop();
      await database.drop();
    },
  };
}

/** Units of `ms` each, the last `effects` of them performing an effect. */
export function units(
  count: number,
  ms: number,
  options: { sync?: boolean; effect?: boolean } = {},
): UnitPlan[] {
  return Array.from({ length: count }, () => ({
    ms,
    sync: options.sync === true,
    effect: options.effect !== false,
  }));
}
