/**
 * pgqueuer (Python) under test in native mode: its own `QueueManager.run` loop is the worker —
 * its dequeue statement (which also re-picks `picked` jobs whose `heartbeat` is older than the
 * heartbeat timeout), its per-job heartbeat task, its batched status log that deletes a finished
 * job — run by `leaseproof_client.targets.pgqueuer_native` in leaseproof's Python environment,
 * on the worker's own proxied connection. The controller installs pgqueuer's schema and enqueues
 * with the statements pgqueuer itself builds (printed by that module), so nothing here is a
 * re-typed copy of pgqueuer's SQL.
 *
 * Where the lease lives: a picked row's `heartbeat` plus the heartbeat timeout (the run's lease);
 * the holder is the row's `queue_manager_id` (one per worker process). Version: pgqueuer 1.6.
 * Its settings are pgqueuer's own (`settings.ts`): the scenario's lease is `heartbeat_timeout`
 * (30 s by default), and `dequeue_timeout` and pgqueuer's constants run at the same factor.
 */
import { nativeOnlyPrimitives } from '../../queue/native-only.js';
import type { SettledSettings } from '../../queue/library-settings.js';
import type { LeaseSettings, QueueAdapter, SqlClient } from '../../queue/types.js';
import { PGQUEUER_SETTINGS, pgqueuerLeaseNote, pgqueuerValue } from './settings.js';
import { programClockLimits } from '../program/program-clock.js';
import { librarySql, pythonNativeProgram } from '../program/python-native.js';

/** The Python module that runs pgqueuer's loop as a native worker. */
export const PGQUEUER_MODULE = 'leaseproof_client.targets.pgqueuer_native';

// The run's heartbeat timeout, read by the audit's deadline expression (the description is
// fixed; the lease is the run's).
const TERMS_TABLE = 'leaseproof_pgqueuer_terms';

interface PgqueuerSql {
  version: string;
  install: string;
  enqueue: string;
  entrypoint: string;
}

/** pgqueuer's own install and enqueue statements, asked of pgqueuer once per process. */
const pgqueuerSql = librarySql<PgqueuerSql>(PGQUEUER_MODULE);

/** The pgqueuer 1.x native adapter. */
export const pgqueuerQueue: QueueAdapter = {
  name: 'pgqueuer',
  description:
    'pgqueuer 1.6 (Python) through its own QueueManager.run loop: its dequeue, per-job heartbeat ' +
    'and batched completion; the lease is its heartbeat timeout.',
  audit: {
    table: 'pgqueuer',
    expressions: {
      jobId: 'r.id::text',
      holder: "CASE WHEN r.status = 'picked' THEN r.queue_manager_id::text END",
      deadline: `CASE WHEN r.status = 'picked'
        THEN r.heartbeat + (SELECT heartbeat_timeout FROM ${TERMS_TABLE}) END`,
      // Only these three stay in the table: a finished job's row is deleted (its log says how).
      state: `CASE r.status WHEN 'queued' THEN 'pending' WHEN 'picked' THEN 'held'
        ELSE 'failed' END`,
    },
    completion: 'delete',
  },
  retries: false,
  get limits() {
    return programClockLimits();
  },
  contract: {
    blockingLoop:
      'pgqueuer 1.6 heartbeats from an asyncio task on the handler’s loop and refuses sync ' +
      'entrypoints: "Wrap blocking code with asyncio.to_thread()" (pgqueuer/core/executors.py; ' +
      'the maintainer in https://github.com/janbjorge/pgqueuer/issues/323: "Could it be blocking ' +
      'the eventloop from emitting heartbeats?")',
  },
  ...nativeOnlyPrimitives('pgqueuer'),
  native: {
    description:
      'pgqueuer QueueManager.run(batch_size=1, max_concurrent_tasks=2, ' +
      'heartbeat_timeout and dequeue_timeout as settled), entrypoint on_failure="hold"',
    extendsLease: true,
    program: () => pythonNativeProgram(PGQUEUER_MODULE),
  },

  settings: PGQUEUER_SETTINGS,

  leaseTerms(requested: LeaseSettings, settings?: SettledSettings) {
    const timeoutMs = pgqueuerValue('heartbeat_timeout', requested, settings);
    const dequeueMs = pgqueuerValue('dequeue_timeout', requested, settings);
    const heartbeatMs = timeoutMs / 2;
    return {
      lease: {
        durationMs: timeoutMs,
        heartbeatMs,
        extendByMs: timeoutMs,
        // pgqueuer's idle wait: its next dequeue, the one that re-picks a stale job.
        pollMs: dequeueMs,
      },
      notes: [
        'pgqueuer 1.6, native mode: its own QueueManager.run loop',
        pgqueuerLeaseNote(requested, settings),
        `pgqueuer heartbeats every heartbeat_timeout / 2 (${String(heartbeatMs)} ms), flushed ` +
          `from a buffer every heartbeat_timeout / 8 (${String(timeoutMs / 8)} ms); the ` +
          `scenario's heartbeat of ${String(requested.heartbeatMs)} ms is not pgqueuer's to take`,
        `an idle worker dequeues again after dequeue_timeout (${String(dequeueMs)} ms) or a ` +
          `NOTIFY, not the scenario's ${String(requested.pollMs)} ms poll`,
        'batch_size 1 and max_concurrent_tasks 2 (the smallest cap pgqueuer allows): a worker ' +
          'may hold two jobs at once',
        'no retries and no attempt limit: a failed job is held as failed (on_failure="hold"), ' +
          "a job whose heartbeat went stale is re-picked however often; a scenario's " +
          'maxAttempts is not applied',
      ],
      rescaled: [],
    };
  },

  async setup(db, ctx) {
    const { install } = await pgqueuerSql();
    await db.query(install);
    // The run's heartbeat_timeout (the lease the terms settled), read by the audit's deadline.
    const timeout = ctx?.lease.durationMs ?? 30_000;
    await db.query(
      `CREATE TABLE ${TERMS_TABLE} (heartbeat_timeout interval NOT NULL);
       INSERT INTO ${TERMS_TABLE} VALUES (interval '${timeout} milliseconds')`,
    );
  },

  async teardown(db) {
    await db.query(`DROP TABLE IF EXISTS pgqueuer, pgqueuer_log, pgqueuer_statistics,
      pgqueuer_schedules, ${TERMS_TABLE} CASCADE`);
  },

  async enqueue(db: SqlClient, jobs) {
    const { enqueue, entrypoint } = await pgqueuerSql();
    // pgqueuer has no attempt limit (see the lease terms' note): `maxAttempts` is not applied.
    const { rows } = await db.query<{ id: string }>(enqueue, [
      jobs.map(() => 0),
      jobs.map(() => entrypoint),
      jobs.map((job) => Buffer.from(JSON.stringify(job.payload))),
      jobs.map(() => '0 seconds'),
      jobs.map(() => null),
      jobs.map(() => null),
    ]);
    return rows.map((row) => String(row.id));
  },
};
