/**
 * graphile-worker 0.17's own worker pool as a native worker: `run()` — its fetch (`getJobs`),
 * LISTEN for new jobs, `completeJobs` / `failJobs`, the handler's abort signal on shutdown, and
 * its pool's `resetLockedAt` timer, which frees locks older than the lock timeout — on a pg pool
 * of the worker's own through its proxy (`pgPool`).
 *
 * The lock timeout is `interval '4 hours'` in graphile-worker's `resetLockedAt` statement: the
 * pool's client rewrites exactly that text to the run's lease (refusing a statement that does not
 * hold it exactly twice), and the reset timer's 8–10 minutes are the pool's own options
 * (`minResetLockedInterval`, `maxResetLockedInterval`), scaled by the same factor. Nothing else
 * of graphile-worker is changed.
 */
import pg from 'pg';
import {
  GRAPHILE_LOCK_TIMEOUT_SQL,
  GRAPHILE_SCHEMA,
  GRAPHILE_TASK,
  GRAPHILE_WORKER,
  rescaleResetLocked,
  resetLockedIntervalsMs,
} from '../../libraries/graphile-worker/adapter.js';
import { requireLibrary } from '../../libraries/load-library.js';
import type { LeaseSettings } from '../../queue/types.js';
import type { NativeTarget, NativeWorker } from '../native-worker.js';

interface Helpers {
  job: { id: string; attempts: number };
  abortSignal?: AbortSignal;
}

interface Runner {
  stop(): Promise<void>;
  promise: Promise<void>;
}

type LogFunction = (level: string, message: string) => void;

interface GraphileWorker {
  run(options: Record<string, unknown>): Promise<Runner>;
  Logger: new (factory: () => LogFunction) => unknown;
}

// The one statement of graphile-worker's that claims: its getJobs update counts an attempt.
const CLAIM_MARKER = 'attempts = jobs.attempts + 1';

/**
 * pg's Client with graphile-worker's lock timeout rewritten to the run's lease in the one
 * statement that holds it (`resetLockedAt`), and its claim held until `gate` resolves (the
 * controller's `go`: the pool starts, checks its schema and listens before, as a worker process
 * that has booted does, and fetches after). Every other statement passes as it is.
 */
function rewritingClient(lease: LeaseSettings, gate: Promise<void>): typeof pg.Client {
  const rescale = rescaleResetLocked(lease);
  const rewrite = (text: string): string =>
    text.includes(GRAPHILE_LOCK_TIMEOUT_SQL) ? rescale(text) : text;
  class RewritingClient extends pg.Client {
    override query(...args: unknown[]): never {
      const [first, ...rest] = args;
      const text =
        typeof first === 'string'
          ? first
          : typeof first === 'object' && first !== null && 'text' in first
            ? String(first.text)
            : undefined;
      const config =
        text === undefined
          ? first
          : typeof first === 'string'
            ? rewrite(text)
            : { ...(first as object), text: rewrite(text) };
      const send = (): never => (super.query as (...a: unknown[]) => never)(config, ...rest);
      if (text?.includes(CLAIM_MARKER) === true) return gate.then(send) as never;
      return send();
    }
  }
  return RewritingClient;
}

/** graphile-worker's `run()` as a native target. */
export class GraphileWorkerTarget implements NativeTarget {
  private pool: pg.Pool | undefined;
  private runner: Runner | undefined;

  async prepare(worker: NativeWorker): Promise<void> {
    const { databaseUrl, workerId, lease } = worker.config;
    await this.release();
    const pool = new pg.Pool({
      connectionString: databaseUrl,
      application_name: workerId,
      // One job at a time, plus the LISTEN connection graphile-worker holds.
      max: 3,
      Client: rewritingClient(lease, worker.started),
    });
    // A connection cut by a fault errors here; graphile-worker's loop retries its own work.
    pool.on('error', (error) => worker.log(`pg pool: ${error.message}`));
    this.pool = pool;
    const graphile = requireLibrary<GraphileWorker>(GRAPHILE_WORKER);
    const reset = resetLockedIntervalsMs(lease);
    const logger = new graphile.Logger(() => (level, message) => {
      // stdout carries events only: graphile-worker's log goes to stderr.
      if (level !== 'debug') worker.log(`graphile-worker ${level}: ${message}`);
    });
    // Started here, before `ready`: its first claim waits for `go` in the pool's client.
    this.runner = await graphile.run({
      pgPool: pool,
      schema: GRAPHILE_SCHEMA,
      concurrency: 1,
      pollInterval: lease.pollMs,
      noHandleSignals: true,
      logger,
      minResetLockedInterval: reset.minMs,
      maxResetLockedInterval: reset.maxMs,
      taskList: {
        [GRAPHILE_TASK]: async (payload: unknown, helpers: Helpers) => {
          const { id, attempts } = helpers.job;
          // The holder the audit shows: no claim token; every fetch increments attempts.
          await worker.runJob({
            jobId: String(id),
            token: `${id}#${attempts}`,
            attempt: attempts,
            payload: (payload ?? {}) as Record<string, unknown>,
            ...(helpers.abortSignal !== undefined && { signal: helpers.abortSignal }),
          });
        },
      },
    });
  }

  async run(worker: NativeWorker): Promise<void> {
    const runner = this.runner;
    if (runner === undefined) throw new Error('graphile-worker target: run before prepare');
    if (worker.stopping) await runner.stop();
    await runner.promise;
  }

  async stop(): Promise<void> {
    // graphile-worker's graceful shutdown: no more fetches, the job in hand finished.
    await this.runner?.stop();
  }

  private async release(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    this.runner = undefined;
    await pool?.end().catch(() => undefined);
  }
}
