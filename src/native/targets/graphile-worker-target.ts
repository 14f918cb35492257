/**
 * graphile-worker 0.17's own worker pool as a native worker: `run()` — its fetch (`getJobs`),
 * LISTEN for new jobs, `completeJobs` / `failJobs`, the handler's abort signal on shutdown, and
 * its pool's `resetLockedAt` timer, which frees locks older than the lock timeout — on a pg pool
 * of the worker's own through its proxy (`pgPool`).
 *
 * graphile-worker's settings come from the run (`WorkerConfig.settings`, every duration at the
 * run's one time factor; see `libraries/graphile-worker/settings.ts`): `concurrency`,
 * `pollInterval`, `minResetLockedInterval`, `maxResetLockedInterval` and
 * `gracefulShutdownAbortTimeout` are `run()`'s own options. Its two hard-coded durations are
 * rewritten by the pool's client in the statements that hold them: the lock timeout,
 * `interval '4 hours'` in `resetLockedAt` (refusing a statement that does not hold it exactly
 * twice), and the retry backoff's `interval '1 second'` in `failJobs`. Nothing else of
 * graphile-worker is changed.
 */
import pg from 'pg';
import {
  GRAPHILE_SCHEMA,
  GRAPHILE_TASK,
  GRAPHILE_WORKER,
} from '../../libraries/graphile-worker/adapter.js';
import {
  GRAPHILE_LOCK_TIMEOUT_SQL,
  GRAPHILE_RETRY_DELAY_SQL,
  graphileSettings,
  rescaleResetLocked,
  rescaleRetryDelay,
} from '../../libraries/graphile-worker/terms.js';
import { requireLibrary } from '../../libraries/load-library.js';
import type { WorkerConfig } from '../../worker/types.js';
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

/** The part of graphile-worker's entry a native worker uses (0.17 and 0.18 alike). */
export interface GraphileWorker {
  run(options: Record<string, unknown>): Promise<Runner>;
  Logger: new (factory: () => LogFunction) => unknown;
}

/** Where a target gets graphile-worker from, and what its refusals call it. */
export interface GraphileRelease {
  /** `graphile-worker` (0.17, leaseproof's own) or `graphile-worker 0.18.0`. */
  label: string;
  load(): Promise<GraphileWorker>;
}

/** graphile-worker 0.17, from leaseproof's own node_modules. */
export const GRAPHILE_17_RELEASE: GraphileRelease = {
  label: 'graphile-worker',
  load: () => Promise.resolve(requireLibrary<GraphileWorker>(GRAPHILE_WORKER)),
};

// The one statement of graphile-worker's that claims: its getJobs update counts an attempt.
const CLAIM_MARKER = 'attempts = jobs.attempts + 1';

/** graphile-worker's settings as the target uses them (ms for durations). */
export interface Settings {
  lockTimeout: number;
  retryDelayUnit: number;
  pollInterval: number;
  minResetLockedInterval: number;
  maxResetLockedInterval: number;
  gracefulShutdownAbortTimeout: number;
  concurrency: number;
}

/**
 * The run's settings by name (ms for durations): as the controller sent them, or — a config
 * without them (an older controller) — graphile-worker's defaults at the lease's scale.
 */
export function targetSettings(config: Pick<WorkerConfig, 'lease' | 'settings'>): Settings {
  const values = config.settings ?? graphileSettings(config.lease).values;
  const get = (name: keyof Settings): number => {
    const value = values[name];
    if (value === undefined || !Number.isFinite(value)) {
      throw new Error(`graphile-worker target: the run's settings have no ${name}`);
    }
    return value;
  };
  return {
    lockTimeout: get('lockTimeout'),
    retryDelayUnit: get('retryDelayUnit'),
    pollInterval: get('pollInterval'),
    minResetLockedInterval: get('minResetLockedInterval'),
    maxResetLockedInterval: get('maxResetLockedInterval'),
    gracefulShutdownAbortTimeout: get('gracefulShutdownAbortTimeout'),
    concurrency: get('concurrency'),
  };
}

/**
 * pg's Client with graphile-worker's hard-coded durations rewritten to the run's in the
 * statements that hold them (`resetLockedAt`'s lock timeout, `failJobs`' retry backoff), and its
 * claim held until `gate` resolves (the controller's `go`: the pool starts, checks its schema and
 * listens before, as a worker process that has booted does, and fetches after). Every other
 * statement passes as it is.
 */
function rewritingClient(settings: Settings, gate: Promise<void>, label: string): typeof pg.Client {
  const resetLocked = rescaleResetLocked(settings.lockTimeout, label);
  const retryDelay = rescaleRetryDelay(settings.retryDelayUnit, label);
  const rewrite = (text: string): string =>
    text.includes(GRAPHILE_LOCK_TIMEOUT_SQL)
      ? resetLocked(text)
      : text.includes(GRAPHILE_RETRY_DELAY_SQL)
        ? retryDelay(text)
        : text;
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

/** graphile-worker's `run()` as a native target, of the release `release` loads. */
export class GraphileWorkerTarget implements NativeTarget {
  private pool: pg.Pool | undefined;
  private runner: Runner | undefined;

  constructor(private readonly release: GraphileRelease = GRAPHILE_17_RELEASE) {}

  async prepare(worker: NativeWorker): Promise<void> {
    const { databaseUrl, workerId } = worker.config;
    const settings = targetSettings(worker.config);
    await this.releasePool();
    const pool = new pg.Pool({
      connectionString: databaseUrl,
      application_name: workerId,
      // The jobs it runs at once, plus the LISTEN connection graphile-worker holds.
      max: settings.concurrency + 2,
      Client: rewritingClient(settings, worker.started, this.release.label),
    });
    // A connection cut by a fault errors here; graphile-worker's loop retries its own work.
    pool.on('error', (error) => worker.log(`pg pool: ${error.message}`));
    this.pool = pool;
    const graphile = await this.release.load();
    const logger = new graphile.Logger(() => (level, message) => {
      // stdout carries events only: graphile-worker's log goes to stderr.
      if (level !== 'debug') worker.log(`graphile-worker ${level}: ${message}`);
    });
    // Started here, before `ready`: its first claim waits for `go` in the pool's client.
    this.runner = await graphile.run({
      pgPool: pool,
      schema: GRAPHILE_SCHEMA,
      concurrency: settings.concurrency,
      pollInterval: settings.pollInterval,
      noHandleSignals: true,
      logger,
      minResetLockedInterval: settings.minResetLockedInterval,
      maxResetLockedInterval: settings.maxResetLockedInterval,
      gracefulShutdownAbortTimeout: settings.gracefulShutdownAbortTimeout,
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

  private async releasePool(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    this.runner = undefined;
    await pool?.end().catch(() => undefined);
  }
}
