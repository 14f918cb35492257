/**
 * River (Go) under test in native mode: its own client is the worker — its producer's fetch
 * (`JobGetAvailable`: `state = 'available'` rows, `FOR UPDATE SKIP LOCKED`, `attempt + 1`,
 * `attempted_at = now()`), its batched completer (`JobSetStateIfRunningMany`), its leader
 * election and, on the leader, its job rescuer and scheduler — run by leaseproof's Go client
 * (`clients/go/cmd/river-native`) on the worker's own proxied pool. The controller installs
 * River's schema with River's own migrations (printed by that program).
 *
 * Where the lease lives: River has no heartbeat. A running job's lease is its `attempted_at`
 * (the database's clock) plus `RescueStuckJobsAfter`, after which the leader's rescuer — judging
 * "after" on the leader's own wall clock — makes it `retryable`; the holder is the attempt and
 * the client that fetched it. The scenario's lease is River's `JobTimeout` (the deadline of one
 * attempt's context); every other setting is River's default compressed by the same factor
 * (`settings.ts`), so RescueStuckJobsAfter — the lease the checkers judge — is 60 leases unless
 * the user states otherwise. Version: River 0.51.
 */
import { nativeOnlyPrimitives } from '../../queue/native-only.js';
import type { LeaseSettings, QueueAdapter, SqlClient } from '../../queue/types.js';
import { formatDuration } from '../../duration.js';
import { settleSettings, type SettledSettings } from '../../queue/library-settings.js';
import { goNativeProgram, goProgramJson } from '../program/go-native.js';
import { RIVER_RESCUE_RELATION, riverSettings } from './settings.js';

/** The Go program that runs River's client as a native worker. */
export const RIVER_PROGRAM = 'river-native';

// The run's RescueStuckJobsAfter, read by the audit's deadline expression (the description is
// fixed; the lease is the run's).
const TERMS_TABLE = 'leaseproof_river_terms';

interface RiverSql {
  version: string;
  install: string;
  kind: string;
}

/** River's own migrations and the job kind, asked of the program once per process. */
const riverSql = goProgramJson<RiverSql>(RIVER_PROGRAM, ['--print-sql']);

// River's first retry waits attempt⁴ = 1 unit of its backoff, plus up to 10 % jitter
// (DefaultClientRetryPolicy); the rescuer's retry of a job on its first attempt is that one.
const FIRST_RETRY_LONGEST = 1.1;

/**
 * River's settled values for a run. A caller without them (the simulator) gets River's defaults
 * compressed so that RescueStuckJobsAfter is the run's lease, as `leaseTerms` makes it.
 */
function riverValues(lease: LeaseSettings, settings?: SettledSettings): Record<string, number> {
  if (settings !== undefined) return settings.values;
  // River's defaults: RescueStuckJobsAfter (1 h) is 60 × JobTimeout (1 min).
  return settleSettings(riverSettings, { ...lease, durationMs: lease.durationMs / 60 }).values;
}

function ms(values: Readonly<Record<string, number>>, name: string): number {
  const value = values[name];
  if (value === undefined) throw new Error(`River's settings have no ${name}`);
  return value;
}

const shownMs = (v: number): string => formatDuration(Math.round(v * 1000) / 1000);

/** The River 0.51 native adapter. */
export const riverQueue: QueueAdapter = {
  name: 'river',
  description:
    "River 0.51 (Go) through its own client: its fetch, batched completer, leader's job " +
    'rescuer and scheduler; the lease is RescueStuckJobsAfter (no heartbeat).',
  audit: {
    table: 'river_job',
    expressions: {
      jobId: 'r.id::text',
      holder: `CASE WHEN r.state = 'running'
        THEN r.attempt::text || '@' || coalesce(r.attempted_by[array_length(r.attempted_by, 1)], '') END`,
      deadline: `CASE WHEN r.state = 'running'
        THEN r.attempted_at + (SELECT rescue_after FROM ${TERMS_TABLE}) END`,
      state: `CASE r.state WHEN 'running' THEN 'held' WHEN 'completed' THEN 'completed'
        WHEN 'discarded' THEN 'failed' WHEN 'cancelled' THEN 'failed' ELSE 'pending' END`,
    },
    completion: 'update',
    // River's maintenance on its leader, not writes of that worker on claims it never held:
    // the rescuer's (it counts the rescue in the job's metadata, river_job.sql JobRescueMany)
    // and the scheduler's (retryable or scheduled made available, JobSchedule).
    sweep: `coalesce((r.metadata ->> 'river:rescue_count')::int, 0)
        > coalesce((o.metadata ->> 'river:rescue_count')::int, 0)
      OR (o.state IN ('retryable', 'scheduled') AND r.state = 'available')`,
  },
  ...nativeOnlyPrimitives('river'),
  settings: riverSettings,
  native: {
    description:
      "River Client with River's own settings (JobTimeout = the scenario's lease, every other " +
      "duration River's default × the same factor), MaxWorkers 1",
    extendsLease: false,
    program: () => goNativeProgram(RIVER_PROGRAM),
    sweep: {
      description:
        "River's job rescuer on the leader makes a running job past RescueStuckJobsAfter " +
        'retryable (every JobRescuerIntervalDefault), its job scheduler makes it available once ' +
        'its retry backoff has passed (every JobSchedulerIntervalDefault): the sweep allowance ' +
        "is both intervals plus the first retry's longest backoff (1.1 × the backoff unit); a " +
        'job rescued again waits a longer backoff (attempt⁴ units), which timely-recovery counts ' +
        'against River',
      intervalMs: (lease, settings) => {
        const v = riverValues(lease, settings);
        return Math.round(
          ms(v, 'JobRescuerIntervalDefault') +
            ms(v, 'JobSchedulerIntervalDefault') +
            FIRST_RETRY_LONGEST * ms(v, 'DefaultClientRetryPolicy'),
        );
      },
    },
  },

  leaseTerms(requested: LeaseSettings, settings?: SettledSettings) {
    const v = riverValues(requested, settings);
    const timeout = ms(v, 'JobTimeout');
    const rescue = ms(v, 'RescueStuckJobsAfter');
    const poll = ms(v, 'FetchPollInterval');
    // River waits FetchPollInterval plus a jitter of up to max(poll / 10, 10 ms) between polls.
    const pollWait = poll + Math.max(poll / 10, 10);
    const notes = [
      'River 0.51, native mode: its own client, fetch loop, completer, leader election, ' +
        'rescuer and scheduler, with the settings listed above',
      `the scenario's lease (${shownMs(requested.durationMs)}) is River's JobTimeout ` +
        `(${shownMs(timeout)} in this run): River cancels an attempt's context after it, on the ` +
        "worker's monotonic clock; a handler that ignores cancellation runs on",
      'River has no heartbeat: the lease the checkers judge is RescueStuckJobsAfter ' +
        `(${shownMs(rescue)} in this run), after which the leader's rescuer — judging "after" ` +
        "on its own wall clock against attempted_at, the database's — lets another client take " +
        "the job; the scenario's heartbeat is not River's to take",
      `the checkers' poll is FetchPollInterval + River's longest jitter (${shownMs(pollWait)})`,
      "the maintenance services' random 0–1 s start-up stagger is off (Config.TestOnly)",
      "not compressed: the completer's 50 ms batch tick, the fetch jitter's 10 ms minimum and " +
        "River's 10 s query timeouts (constants inside River's functions)",
    ];
    if (rescue === timeout) {
      notes.push(
        `RescueStuckJobsAfter equals JobTimeout: River takes it, but its docs warn ${RIVER_RESCUE_RELATION}`,
      );
    }
    return {
      lease: { durationMs: rescue, heartbeatMs: rescue, extendByMs: rescue, pollMs: pollWait },
      notes,
      rescaled: [],
      // River cuts each attempt at JobTimeout: a job longer than that never completes.
      attemptLimitMs: timeout,
    };
  },

  async setup(db, ctx) {
    const { install } = await riverSql();
    await db.query(install);
    const rescueAfter = ctx?.lease.durationMs ?? 30_000;
    await db.query(
      `CREATE TABLE ${TERMS_TABLE} (rescue_after interval NOT NULL);
       INSERT INTO ${TERMS_TABLE} VALUES (interval '${String(rescueAfter)} milliseconds')`,
    );
  },

  async teardown(db) {
    await db.query(`DROP TABLE IF EXISTS river_job, river_leader, river_migration, river_queue,
      river_client_queue, river_client, river_notification, ${TERMS_TABLE} CASCADE;
      DROP TYPE IF EXISTS river_job_state CASCADE`);
  },

  async enqueue(db: SqlClient, jobs) {
    const { kind } = await riverSql();
    // A plain insert into River's documented table (its columns' defaults do the rest: state
    // available, scheduled_at now(), queue default, priority 1), then the notification River's
    // own insert sends, so that producers fetch at once rather than at their next poll.
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO river_job (kind, args, max_attempts)
       SELECT $1, a, m FROM unnest($2::jsonb[], $3::int[]) AS t(a, m)
       RETURNING id`,
      [
        kind,
        jobs.map((job) => JSON.stringify(job.payload)),
        jobs.map((job) => job.maxAttempts ?? 25),
      ],
    );
    await db.query(`SELECT pg_notify(current_schema() || '.river_insert', '{"queue":"default"}')`);
    return rows.map((row) => String(row.id));
  },
};
