/**
 * procrastinate (Python) under test in native mode: its own worker (`App.run_worker_async`) is
 * the worker — its fetch, its worker heartbeat, its finish and its retry — run by
 * `leaseproof_client.targets.procrastinate_native` in leaseproof's Python environment, its pool
 * opened at the worker's own proxied URL. The controller installs procrastinate's own schema,
 * enqueues with procrastinate's own `procrastinate_defer_jobs_v1`, and runs the stalled-job
 * recipe of procrastinate's documentation (`get_stalled_jobs` + `retry_job`) with the
 * statements procrastinate itself runs for them (printed by that module).
 *
 * Where the lease lives: not in the job row. A `doing` job names its worker (`worker_id`); the
 * worker heartbeats its own row (`procrastinate_workers.last_heartbeat`); a job is stalled once
 * that heartbeat is older than the stalled timeout (the run's lease). The audit follows it there
 * (`audit.liveness`): every heartbeat is an extension of each job its worker holds.
 * Version: procrastinate 3.10.
 */
import { nativeOnlyPrimitives } from '../../queue/native-only.js';
import type { LeaseSettings, QueueAdapter, SqlClient } from '../../queue/types.js';
import { programClockLimits } from '../program/program-clock.js';
import { librarySql, pythonNativeProgram } from '../program/python-native.js';

/** The Python module that runs procrastinate's worker as a native worker. */
export const PROCRASTINATE_MODULE = 'leaseproof_client.targets.procrastinate_native';

// The run's stalled timeout, read by the audit's deadline expressions.
const TERMS_TABLE = 'leaseproof_procrastinate_terms';

interface ProcrastinateSql {
  version: string;
  install: string;
  stalled: string;
  retry: string;
  queue: string;
  task: string;
}

/** procrastinate's own schema and statements, asked of procrastinate once per process. */
const procrastinateSql = librarySql<ProcrastinateSql>(PROCRASTINATE_MODULE);

/**
 * A statement of procrastinate's with psycopg's `%(name)s` placeholders, for node-postgres:
 * each name becomes `$n` (the same name, the same number) and `values` are put in that order.
 */
export function positional(
  text: string,
  values: Record<string, unknown>,
): { text: string; values: unknown[] } {
  const names: string[] = [];
  const converted = text.replace(/%\((\w+)\)s/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`no value for %(${name})s`);
    let index = names.indexOf(name);
    if (index < 0) index = names.push(name) - 1;
    return `$${index + 1}`;
  });
  return { text: converted, values: names.map((n) => values[n]) };
}

const LEASE_SECONDS = `(SELECT stalled_timeout FROM ${TERMS_TABLE})`;

/** The procrastinate 3.x native adapter. */
export const procrastinateQueue: QueueAdapter = {
  name: 'procrastinate',
  description:
    'procrastinate 3.10 (Python) through its own worker: fetch, worker heartbeat, finish, retry; ' +
    'the lease is its stalled-worker timeout, stalled jobs retried by its documented recipe.',
  audit: {
    table: 'procrastinate_jobs',
    expressions: {
      jobId: 'r.id::text',
      holder: "CASE WHEN r.status = 'doing' THEN r.worker_id::text END",
      deadline: `CASE WHEN r.status = 'doing' THEN (SELECT w.last_heartbeat
        FROM procrastinate_workers w WHERE w.id = r.worker_id) + ${LEASE_SECONDS} END`,
      // A `doing` job whose worker row was pruned (worker_id set NULL) is held by nobody: it
      // waits for the stalled-job recipe, as a pending job waits for a worker.
      state: `CASE
        WHEN r.status = 'doing' AND r.worker_id IS NOT NULL THEN 'held'
        WHEN r.status IN ('todo', 'doing') THEN 'pending'
        WHEN r.status = 'succeeded' THEN 'completed'
        ELSE 'failed' END`,
    },
    completion: 'update',
    // worker_id cleared when its worker row is deleted (ON DELETE SET NULL): unregistered at a
    // stop, or pruned as stalled by a worker starting. Only a `doing` job loses its holder by it.
    bookkeeping: `o.status = r.status AND o.status <> 'doing'
      AND o.worker_id IS NOT NULL AND r.worker_id IS NULL`,
    liveness: {
      table: 'procrastinate_workers',
      holds: "r.worker_id = l.id AND r.status = 'doing'",
      deadline: `l.last_heartbeat + ${LEASE_SECONDS}`,
    },
  },
  get limits() {
    return programClockLimits();
  },
  contract: {
    blockingLoop:
      'procrastinate 3.10 heartbeats from an asyncio task on the worker’s loop, and runs a ' +
      'plain def task in a thread: "your synchronous function will be executed by an ' +
      'asynchronous worker in a thread" (https://procrastinate.readthedocs.io/en/stable/' +
      'discussions.html); blocking work belongs in a def task, not an async one',
  },
  ...nativeOnlyPrimitives('procrastinate'),
  native: {
    description:
      'procrastinate App.run_worker_async(concurrency=1, update_heartbeat_interval=heartbeat, ' +
      'stalled_worker_timeout=lease, fetch_job_polling_interval=poll, delete_jobs="never")',
    extendsLease: true,
    program: () => pythonNativeProgram(PROCRASTINATE_MODULE),
  },

  leaseTerms(requested: LeaseSettings) {
    return {
      lease: { ...requested, extendByMs: requested.durationMs },
      notes: [
        'procrastinate 3.10, native mode: its own worker (App.run_worker_async)',
        'the lease is the stalled timeout: a job is stalled when its worker’s heartbeat ' +
          '(procrastinate_workers.last_heartbeat, one per worker, not per job) is older than it; ' +
          `the heartbeat interval is the scenario's ${requested.heartbeatMs} ms ` +
          '(update_heartbeat_interval), and each heartbeat moves the deadline to now + lease',
        'stalled jobs go back to the queue only through procrastinate’s documented recipe ' +
          '(get_stalled_jobs + retry_job, a periodic task the user writes); the harness runs it ' +
          `every poll interval (${requested.pollMs} ms)`,
      ],
      rescaled: [],
    };
  },

  maintenance: {
    description:
      "procrastinate's stalled-job recipe: get_stalled_jobs (select_stalled_jobs_by_heartbeat) " +
      'then retry_job (procrastinate_retry_job_v2) for each, every poll interval',
    intervalMs: (lease) => lease.pollMs,
    async run(db, ctx) {
      const { stalled, retry, queue, task } = await procrastinateSql();
      const seconds = String(ctx.lease.durationMs / 1000);
      const select = positional(stalled, {
        seconds_since_heartbeat: seconds,
        queue,
        task_name: task,
      });
      const { rows } = await db.query<{ id: string }>(select.text, select.values);
      for (const row of rows) {
        const call = positional(retry, {
          job_id: row.id,
          retry_at: null,
          new_priority: null,
          new_queue_name: null,
          new_lock: null,
        });
        // A job finished or retried meanwhile is refused by procrastinate: the next pass sees.
        await db.query(call.text, call.values).catch(() => undefined);
      }
    },
  },

  async setup(db, ctx) {
    const { install } = await procrastinateSql();
    await db.query(install);
    const seconds = (ctx?.lease.durationMs ?? 30_000) / 1000;
    await db.query(
      `CREATE TABLE ${TERMS_TABLE} (stalled_timeout interval NOT NULL);
       INSERT INTO ${TERMS_TABLE} VALUES (interval '${seconds} seconds')`,
    );
  },

  async teardown(db) {
    await db.query(`DROP TABLE IF EXISTS ${TERMS_TABLE}`);
    await db.query(
      `DROP TABLE IF EXISTS procrastinate_events, procrastinate_periodic_defers,
        procrastinate_jobs, procrastinate_workers CASCADE`,
    );
  },

  async enqueue(db: SqlClient, jobs) {
    const { queue, task } = await procrastinateSql();
    const args = jobs.map((job) =>
      JSON.stringify({
        ...job.payload,
        ...(job.maxAttempts !== undefined && { _maxAttempts: job.maxAttempts }),
      }),
    );
    const { rows } = await db.query<{ id: string }>(
      `SELECT unnest(procrastinate_defer_jobs_v1(ARRAY(
         SELECT ROW($1, $2, 0, NULL, NULL, a.args, NULL)::procrastinate_job_to_defer_v1
           FROM unnest($3::jsonb[]) WITH ORDINALITY AS a(args, n) ORDER BY a.n)))::text AS id`,
      [queue, task, args],
    );
    return rows.map((row) => row.id);
  },
};
