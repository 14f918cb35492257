/**
 * procrastinate (Python) under test in native mode: its own worker (`App.run_worker_async`) is
 * the worker — its fetch, its worker heartbeat, its finish and its retry — run by
 * `leaseproof_client.targets.procrastinate_native` in leaseproof's Python environment, its pool
 * opened at the worker's own proxied URL. The controller installs procrastinate's own schema and
 * enqueues with procrastinate's own `procrastinate_defer_jobs_v1`; nothing else.
 *
 * Where the lease lives: not in the job row. A `doing` job names its worker (`worker_id`); the
 * worker heartbeats its own row (`procrastinate_workers.last_heartbeat`); a job is stalled once
 * that heartbeat is older than the recipe's `seconds_since_heartbeat` (the run's lease). The
 * audit follows it there (`audit.liveness`): every heartbeat is an extension of each job its
 * worker holds.
 *
 * Who recovers a stalled job: procrastinate's documented recipe, as its users deploy it — the
 * periodic task `retry_stalled_jobs` defined in the worker program's app, deferred by
 * procrastinate's own periodic deferrer inside every worker (one job per tick: its queueing
 * lock) and run by whichever worker fetches it, behind the jobs already waiting. Its
 * `retry_job` on a stalled job is a sweep (`DerivedHistory.sweeps`); its own rows in
 * `procrastinate_jobs` are not the run's jobs (`audit.jobRows`). Version: procrastinate 3.10.
 */
import { formatDuration } from '../../duration.js';
import {
  formatFactor,
  settingValue,
  settleSettings,
  type SettledSettings,
} from '../../queue/library-settings.js';
import { nativeOnlyPrimitives } from '../../queue/native-only.js';
import type { LeaseSettings, QueueAdapter, SqlClient } from '../../queue/types.js';
import { programClockLimits } from '../program/program-clock.js';
import { pythonNativeProgram } from '../program/python-native.js';
import { PROCRASTINATE_MODULE, RUN_TASK, procrastinateSql } from './library-sql.js';
import { PROCRASTINATE_SETTINGS, RECIPE_CRON, recipeCron } from './settings.js';

export { PROCRASTINATE_MODULE, positional } from './library-sql.js';

// The run's stalled horizon, read by the audit's deadline expressions.
const TERMS_TABLE = 'leaseproof_procrastinate_terms';

const LEASE_SECONDS = `(SELECT stalled_timeout FROM ${TERMS_TABLE})`;

const settledOf = (lease: LeaseSettings, settings?: SettledSettings): SettledSettings =>
  settings ?? settleSettings(PROCRASTINATE_SETTINGS, lease);

const ms = (value: number): string => formatDuration(Math.round(value * 1000) / 1000);

/**
 * The longest a stalled job waits past its horizon for the recipe, by design: one period of the
 * cron, the deferrer's oversleep (`MARGIN`), then a free worker's fetch of the recipe's job.
 */
function recipeWaitMs(settings: SettledSettings): number {
  return (
    recipeCron(settingValue(settings, RECIPE_CRON)).maxGapMs + settingValue(settings, 'MARGIN')
  );
}

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
    // The recipe's own jobs (retry_stalled_jobs) share the table; the run's are its task's.
    jobRows: `r.task_name = '${RUN_TASK}'`,
    // The recipe's retry_job, run by whichever worker runs retry_stalled_jobs: a doing job put
    // back to todo while its worker's heartbeat is past the horizon (or its worker row is gone)
    // is the library's sweep, not that worker's write on a job it never held. A worker's own
    // retry of its job looks the same in the row; it is told apart by its fresh heartbeat.
    sweep: `o.status = 'doing' AND r.status = 'todo' AND NOT EXISTS (
      SELECT 1 FROM procrastinate_workers w WHERE w.id = o.worker_id
        AND w.last_heartbeat >= now() - ${LEASE_SECONDS})`,
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
    // Past the horizon a job is only *eligible*: it leaves its worker when the recipe acts.
    fencedOnly:
      'procrastinate takes a job from its worker only when the stalled-job recipe acts: past ' +
      'the horizon the job is one that "can be fetched by the JobManager.get_stalled_jobs ' +
      'method" and "can then be retried for example by a periodic task" ' +
      '(https://procrastinate.readthedocs.io/en/stable/howto/production/retry_stalled_jobs.html); ' +
      'it fences nothing after that — procrastinate_finish_job_v1 checks the status, not the ' +
      'worker — so a finish after the recipe gave the job to another worker is still a violation',
  },
  ...nativeOnlyPrimitives('procrastinate'),
  settings: PROCRASTINATE_SETTINGS,
  native: {
    description:
      'procrastinate App.run_worker_async(concurrency, update_heartbeat_interval, ' +
      'stalled_worker_timeout, fetch_job_polling_interval, abort_job_polling_interval, ' +
      'shutdown_graceful_timeout: the settings × k, delete_jobs="never"), all queues, with the ' +
      "docs' periodic task retry_stalled_jobs in its app",
    extendsLease: true,
    program: () => pythonNativeProgram(PROCRASTINATE_MODULE),
    sweep: {
      description:
        "procrastinate's periodic task retry_stalled_jobs (the docs' recipe: get_stalled_jobs, " +
        "then retry_job for each), deferred by every worker's periodic deferrer once per tick " +
        '(queueing_lock) and run by whichever worker fetches it',
      intervalMs: (lease, settings) => recipeWaitMs(settledOf(lease, settings)),
    },
  },

  leaseTerms(requested: LeaseSettings, settings?: SettledSettings) {
    const settled = settledOf(requested, settings);
    const value = (name: string) => settingValue(settled, name);
    const durationMs = value('seconds_since_heartbeat');
    const heartbeatMs = value('update_heartbeat_interval');
    const pollMs = value('fetch_job_polling_interval');
    const period = value(RECIPE_CRON);
    const { cron, maxGapMs } = recipeCron(period);
    const library = (name: string) => settled.settings.find((s) => s.name === name)?.library;
    const cronWords =
      maxGapMs === period
        ? `cron "${cron}"`
        : `cron "${cron}" (the cron procrastinate can state nearest ${ms(period)}: ` +
          `no gap between ticks longer than ${ms(maxGapMs)})`;
    return {
      lease: { durationMs, heartbeatMs, extendByMs: durationMs, pollMs },
      notes: [
        "procrastinate 3.10, native mode: its own worker (App.run_worker_async), the docs' " +
          'periodic task retry_stalled_jobs in its app',
        `the scenario's ${String(requested.durationMs)} ms lease is the recipe's stalled horizon ` +
          `(get_stalled_jobs' seconds_since_heartbeat, ${library('seconds_since_heartbeat') ?? '?'} ` +
          `in procrastinate): k = ${formatFactor(settled.k)} for every duration of procrastinate, ` +
          `so the scenario's heartbeat (${String(requested.heartbeatMs)} ms) and poll ` +
          `(${String(requested.pollMs)} ms) give way to procrastinate's own × k: ` +
          `update_heartbeat_interval ${ms(heartbeatMs)}, fetch_job_polling_interval ${ms(pollMs)}`,
        'the lease is kept per worker: a job is stalled when its worker’s heartbeat ' +
          '(procrastinate_workers.last_heartbeat, one per worker, not per job) is older than the ' +
          'horizon; each heartbeat moves the deadline of every job the worker holds to now + horizon',
        'a stalled job goes back to the queue only through retry_stalled_jobs, which every ' +
          `worker's periodic deferrer defers at ${cronWords} (the docs' "*/10 * * * *" × k) ` +
          `and oversleeps by MARGIN (${ms(value('MARGIN'))}); one job per tick (its queueing ` +
          'lock), run by whichever worker fetches it — after the jobs already waiting, since ' +
          'procrastinate fetches by priority, then id',
      ],
      rescaled: [
        {
          constant: 'MARGIN',
          library: '0.5 s (procrastinate/periodic.py:25)',
          run: ms(value('MARGIN')),
          statement:
            'procrastinate.periodic.MARGIN, a module constant the deferrer reads at every ' +
            'tick, assigned before the worker starts (targets/procrastinate_native.py)',
        },
        {
          constant: 'LISTEN_TIMEOUT',
          library: '30 s (procrastinate/connector.py:13)',
          run: ms(value('LISTEN_TIMEOUT')),
          statement:
            'the timeout default of PsycopgConnector._loop_notify (bound from ' +
            'connector.LISTEN_TIMEOUT at import), replaced before the worker starts',
        },
        {
          constant: 'CANCEL_TIMEOUT',
          library: '1 s (procrastinate/utils.py:222)',
          run: ms(value('CANCEL_TIMEOUT')),
          statement:
            'procrastinate.utils.CANCEL_TIMEOUT, a module constant read at every stop, ' +
            'assigned before the worker starts',
        },
      ],
    };
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
