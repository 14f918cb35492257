/**
 * graphile-worker under test, through its own code: its migrations build the schema, its
 * `add_job` SQL function enqueues, and a worker claims, completes and fails with the very
 * functions graphile-worker's own worker loop calls (`batchGetJobs`, `batchCompleteJobs`,
 * `failJobs` in its `dist/sql/`), handed the worker's own connection as their `withPgClient` —
 * so every statement goes through the worker's Toxiproxy proxy and graphile-worker opens no pool.
 * Version: graphile-worker 0.17 (0.18 needs Node 22).
 *
 * graphile-worker's lease is a lock (`locked_at`, `locked_by`) with no expiry in the claim: a
 * locked job is never claimed, and a lock is freed only by `resetLockedAt`, which its worker pool
 * runs every 8–10 minutes and which frees locks older than a hard-coded `interval '4 hours'`.
 * Time compression, by one factor (`settings.ts`): the scenario's lease is that lock timeout, and
 * every other duration of graphile-worker is its value × the same k. Two of them are hard-coded
 * in its SQL and are rewritten in exactly the statements that hold them: the lock timeout in
 * `resetLockedAt`, the retry backoff's `interval '1 second'` in `failJobs`.
 */
import { AdapterError } from '../../queue/adapter-error.js';
import { settingValue, type SettledSettings } from '../../queue/library-settings.js';
import type { LeaseSettings, QueueAdapter, SetupContext, SqlClient } from '../../queue/types.js';
import { libraryVersion, requireLibrary, type LibrarySpec } from '../load-library.js';
import { GRAPHILE_LOCK_TIMEOUT_MS, GRAPHILE_SETTINGS } from './settings.js';
import {
  graphileSettings,
  graphileTerms,
  rescaleResetLocked,
  rescaleRetryDelay,
  resetIntervalMs,
  sqlInterval,
  type Rewrite,
} from './terms.js';

/** The graphile-worker versions this adapter is for. */
export const GRAPHILE_WORKER: LibrarySpec = {
  name: 'graphile-worker',
  range: '^0.17.0',
  tested: '0.17.3',
};

/** graphile-worker's schema (its default). */
export const GRAPHILE_SCHEMA = 'graphile_worker';

/** The task identifier of every job. */
export const GRAPHILE_TASK = 'leaseproof';

// The table of the run's scaled lock timeout, read by the audit's deadline expression: the
// audit description is fixed, the lease is the run's.
const TERMS_TABLE = 'leaseproof_graphile_terms';

// The slice of pg's client that graphile-worker's sql functions call.
interface GraphileClient {
  query(
    query: string | { text: string; values?: unknown[]; name?: string },
    values?: unknown[],
  ): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
}

type WithPgClient = (<T>(fn: (client: GraphileClient) => Promise<T>) => Promise<T>) & {
  withRetries?: unknown;
};

interface JobRow {
  id: string;
  attempts: number;
  payload: Record<string, unknown> | null;
  job_queue_id: number | null;
}

interface GraphileSql {
  batchGetJobs(
    shared: unknown,
    withPgClient: WithPgClient,
    tasks: Record<string, unknown>,
    poolId: string,
    flagsToSkip: string[] | null,
    batchSize: number,
  ): Promise<JobRow[]>;
  batchCompleteJobs(
    shared: unknown,
    withPgClient: WithPgClient,
    poolId: string,
    jobs: { id: string; job_queue_id: number | null }[],
  ): Promise<void>;
  failJobs(
    shared: unknown,
    withPgClient: WithPgClient,
    poolId: string,
    jobs: { id: string }[],
    message: string,
  ): Promise<unknown[]>;
  resetLockedAt(shared: unknown, withPgClient: WithPgClient): Promise<void>;
  processSharedOptions(options: Record<string, unknown>): unknown;
  makeEnhancedWithPgClient(fn: WithPgClient): WithPgClient;
  migrate(shared: unknown, client: GraphileClient): Promise<void>;
}

let loaded: GraphileSql | undefined;

// graphile-worker's own modules, loaded once, on first use (it is an optional dependency): every
// claim and ack goes through here.
function graphile(): GraphileSql {
  loaded ??= loadGraphile();
  return loaded;
}

function loadGraphile(): GraphileSql {
  const at = (file: string) => `${GRAPHILE_WORKER.name}/dist/${file}`;
  const lib = requireLibrary<
    Pick<GraphileSql, 'processSharedOptions' | 'makeEnhancedWithPgClient'>
  >(GRAPHILE_WORKER, at('lib.js'));
  return {
    ...requireLibrary<Pick<GraphileSql, 'batchGetJobs'>>(GRAPHILE_WORKER, at('sql/getJobs.js')),
    ...requireLibrary<Pick<GraphileSql, 'batchCompleteJobs'>>(
      GRAPHILE_WORKER,
      at('sql/completeJobs.js'),
    ),
    ...requireLibrary<Pick<GraphileSql, 'failJobs'>>(GRAPHILE_WORKER, at('sql/failJobs.js')),
    ...requireLibrary<Pick<GraphileSql, 'resetLockedAt'>>(
      GRAPHILE_WORKER,
      at('sql/resetLockedAt.js'),
    ),
    ...requireLibrary<Pick<GraphileSql, 'migrate'>>(GRAPHILE_WORKER, at('migrate.js')),
    processSharedOptions: lib.processSharedOptions,
    makeEnhancedWithPgClient: lib.makeEnhancedWithPgClient,
  };
}

/**
 * graphile-worker's compiled options. A fresh options object compiles afresh: its task-id cache
 * is keyed on it, and a lookup that failed (a fault on the first claim) would otherwise stay
 * failed for the life of the process. Prepared statements are off: a connection that a fault
 * replaces would lose them; the statement texts are the same.
 */
function sharedOptions(): unknown {
  return graphile().processSharedOptions({ schema: GRAPHILE_SCHEMA, noPreparedStatements: true });
}

let shared: unknown;
function currentShared(): unknown {
  shared ??= sharedOptions();
  return shared;
}

/** pg's client, as graphile-worker calls it, over one of leaseproof's connections. */
function clientOver(
  db: SqlClient,
  rewrite: Rewrite = (t) => t,
  onResult: (rowCount: number) => void = () => undefined,
): GraphileClient {
  return {
    query: async (query, values) => {
      const text = typeof query === 'string' ? query : query.text;
      const params = typeof query === 'string' ? values : query.values;
      const result = await db.query(rewrite(text), params);
      onResult(result.rowCount ?? 0);
      return result;
    },
  };
}

/** `withPgClient` over one of leaseproof's connections, noting each result's row count. */
function withClient(
  db: SqlClient,
  rewrite?: Rewrite,
  onResult?: (rowCount: number) => void,
): WithPgClient {
  const client = clientOver(db, rewrite, onResult);
  const withPgClient = (<T>(fn: (c: GraphileClient) => Promise<T>) => fn(client)) as WithPgClient;
  // graphile-worker's own retry wrapper, as its pool gets it.
  return graphile().makeEnhancedWithPgClient(withPgClient);
}

/** The graphile-worker 0.17 adapter. */
export const graphileWorkerQueue: QueueAdapter = {
  name: 'graphile-worker',
  description:
    'graphile-worker 0.17 through its own getJobs / completeJobs / failJobs and resetLockedAt; ' +
    'lease = its 4-hour lock timeout, every duration at the same scale, no lease extension.',
  contract: {
    // graphile-worker takes a job from its worker only when resetLockedAt acts on it; it fences
    // nothing after that (completeJobs deletes by id), so a completion after another worker's
    // fetch is still a violation, judged as every fenced contract's is.
    fencedOnly:
      'graphile-worker frees a job only when a worker\'s resetLockedAt sweep acts: "the jobs that ' +
      'that worker was executing remain locked for at least 4 hours. Every 8-10 minutes a worker ' +
      'will sweep for jobs that have been locked for more than 4 hours and will make them ' +
      'available to be processed again" (https://github.com/graphile/worker/blob/v0.17.3/website/docs/error-handling.md); ' +
      'completeJobs deletes a job by id whoever holds it, so a completion after another ' +
      "worker's fetch is still a violation",
  },
  audit: {
    table: `${GRAPHILE_SCHEMA}._private_jobs`,
    expressions: {
      jobId: 'r.id::text',
      // No claim token: every claim increments attempts, so (id, attempts) names one claim.
      holder: "CASE WHEN r.locked_at IS NOT NULL THEN r.id::text || '#' || r.attempts END",
      deadline: `CASE WHEN r.locked_at IS NOT NULL
        THEN r.locked_at + (SELECT lock_timeout FROM ${TERMS_TABLE}) END`,
      state: `CASE WHEN r.locked_at IS NOT NULL THEN 'held'
        WHEN r.attempts >= r.max_attempts THEN 'dead' ELSE 'pending' END`,
    },
    completion: 'delete',
  },

  settings: GRAPHILE_SETTINGS,

  leaseTerms(requested, settings) {
    const settled = graphileSettings(requested, settings);
    if (settingValue(settled, 'concurrency') !== 1) {
      throw new AdapterError(
        'graphile-worker (statements mode): leaseproof’s own worker loop runs one job at a time; ' +
          'concurrency other than 1 needs the native mode (graphile-worker-native)',
      );
    }
    const { lease, notes } = graphileTerms(
      requested,
      settled,
      `graphile-worker ${libraryVersion(GRAPHILE_WORKER)}`,
    );
    const max = settingValue(settled, 'maxResetLockedInterval');
    return {
      lease,
      notes: [
        ...notes,
        "statements mode: leaseproof's own worker loop calls graphile-worker's getJobs, " +
          'completeJobs and failJobs at its own cadence — every pollInterval ' +
          `(${String(lease.pollMs)} ms) while idle and at once after a job, as graphile-worker's ` +
          'worker does, but without its LISTEN/NOTIFY wake-up for a new job — and the harness ' +
          `runs resetLockedAt every maxResetLockedInterval (${String(Math.round(max * 10) / 10)} ms), ` +
          'the longest a worker pool waits',
      ],
      rescaled: [],
    };
  },

  maintenance: {
    description:
      "graphile-worker's resetLockedAt (frees locks older than the lock timeout), every " +
      'maxResetLockedInterval, the longest its worker pool waits',
    intervalMs: (lease, settings) => resetIntervalMs(lease, settings),
    run: (db, ctx) =>
      graphile().resetLockedAt(
        currentShared(),
        withClient(db, rescaleResetLocked(lockTimeoutOf(ctx.lease, ctx.settings))),
      ),
  },

  async setup(db, ctx) {
    await graphile().migrate(sharedOptions(), clientOver(db));
    await recordLockTimeout(db, ctx);
  },

  async teardown(db) {
    await db.query(`DROP SCHEMA IF EXISTS ${GRAPHILE_SCHEMA} CASCADE`);
    await db.query(`DROP TABLE IF EXISTS ${TERMS_TABLE}`);
  },

  async enqueue(db, jobs) {
    const ids: string[] = [];
    for (const job of jobs) {
      const { rows } = await db.query<{ id: string }>(
        `SELECT (${GRAPHILE_SCHEMA}.add_job($1, $2::json, max_attempts => $3::int)).id::text AS id`,
        [GRAPHILE_TASK, JSON.stringify(job.payload), job.maxAttempts ?? null],
      );
      ids.push(rows[0]!.id);
    }
    return ids;
  },

  async claim(db, ctx) {
    const tasks = { [GRAPHILE_TASK]: () => undefined };
    let jobs: JobRow[];
    try {
      jobs = await graphile().batchGetJobs(
        currentShared(),
        withClient(db),
        tasks,
        ctx.workerId,
        null,
        1,
      );
    } catch (error) {
      shared = undefined;
      throw error;
    }
    const job = jobs[0];
    if (job === undefined) return undefined;
    return {
      jobId: String(job.id),
      token: `${job.id}#${job.attempts}`,
      attempt: job.attempts,
      payload: job.payload ?? {},
    };
  },

  async ack(db, claim, ctx) {
    // completeJobs returns nothing; the count of its DELETE says whether it completed the job.
    let deleted = 0;
    await graphile().batchCompleteJobs(
      currentShared(),
      withClient(db, undefined, (n) => (deleted += n)),
      ctx.workerId,
      [{ id: claim.jobId, job_queue_id: null }],
    );
    return deleted === 1;
  },

  async fail(db, claim, error, ctx) {
    const unit = settingValue(graphileSettings(ctx.lease), 'retryDelayUnit');
    const failed = await graphile().failJobs(
      currentShared(),
      withClient(db, rescaleRetryDelay(unit)),
      ctx.workerId,
      [{ id: claim.jobId }],
      error,
    );
    return failed.length === 1;
  },
};

/** The run's lock timeout (ms): the lease the audit's deadline and resetLockedAt use. */
function lockTimeoutOf(lease: LeaseSettings, settings?: SettledSettings): number {
  return settingValue(graphileSettings(lease, settings), 'lockTimeout');
}

/**
 * Records the run's lock timeout where the audit's deadline reads it: after graphile-worker's
 * migrations, by every graphile-worker queue's setup.
 */
export async function recordLockTimeout(db: SqlClient, ctx?: SetupContext): Promise<void> {
  const lockTimeout =
    ctx === undefined ? GRAPHILE_LOCK_TIMEOUT_MS : lockTimeoutOf(ctx.lease, ctx.settings);
  await db.query(
    `CREATE TABLE ${TERMS_TABLE} (lock_timeout interval NOT NULL);
     INSERT INTO ${TERMS_TABLE} VALUES (${sqlInterval(lockTimeout)})`,
  );
}
