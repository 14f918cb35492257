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
 * the client that fetched it. Version: River 0.51.
 */
import { nativeOnlyPrimitives } from '../../queue/native-only.js';
import type {
  LeaseSettings,
  QueueAdapter,
  RescaledConstant,
  SqlClient,
} from '../../queue/types.js';
import { goNativeProgram, goProgramJson } from '../program/go-native.js';

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

// River's timing, from its source (client.go, internal/maintenance, internal/leadership).
const RIVER_DEFAULT_POLL_MS = 1_000;
const RIVER_CONSTANTS: readonly { constant: string; ms: number; where: string }[] = [
  {
    constant: 'job rescuer interval',
    ms: 30_000,
    where: 'JobRescuerIntervalDefault (internal/maintenance/job_rescuer.go)',
  },
  {
    constant: 'job scheduler interval (also where a retry is written available or retryable)',
    ms: 5_000,
    where: 'JobSchedulerIntervalDefault (internal/maintenance/job_scheduler.go)',
  },
  {
    constant: 'leader election interval',
    ms: 5_000,
    where: 'electIntervalDefault (internal/leadership/elector.go)',
  },
  {
    constant: 'leader election jitter',
    ms: 1_000,
    where: 'electIntervalJitterDefault (internal/leadership/elector.go)',
  },
  {
    constant: "leader TTL padding (a killed leader's row outlives it by interval + padding)",
    ms: 10_000,
    where: 'electIntervalTTLPaddingDefault (internal/leadership/elector.go)',
  },
  {
    constant: "leader's local trust margin",
    ms: 1_000,
    where: 'leaderLocalDeadlineSafetyMargin (internal/leadership/elector.go)',
  },
];

// River's first retry waits attempt⁴ s = 1 s, plus up to 10 % jitter (DefaultClientRetryPolicy).
const FIRST_RETRY_LONGEST_MS = 1_100;

function compression(lease: LeaseSettings): number {
  return lease.pollMs / RIVER_DEFAULT_POLL_MS;
}

function scaled(ms: number, k: number): string {
  return `${String(Math.max(1, Math.round(ms * k * 1000) / 1000))} ms`;
}

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
  native: {
    description:
      'River Client (MaxWorkers 1, JobTimeout = RescueStuckJobsAfter = lease, ' +
      'FetchPollInterval = poll), its timing constants compressed by poll / 1 s',
    extendsLease: false,
    program: () => goNativeProgram(RIVER_PROGRAM),
    sweep: {
      description:
        "River's job rescuer on the leader makes a running job past RescueStuckJobsAfter " +
        'retryable (every job rescuer interval), its job scheduler makes it available once its ' +
        'retry backoff has passed (every job scheduler interval): the sweep allowance is both ' +
        "intervals plus the first retry's longest backoff; a job rescued again waits a longer " +
        'backoff (attempt⁴ × k s), which timely-recovery counts against River',
      intervalMs: (lease) => {
        const k = compression(lease);
        const [rescuer, scheduler] = RIVER_CONSTANTS;
        return Math.round((rescuer!.ms + scheduler!.ms + FIRST_RETRY_LONGEST_MS) * k);
      },
    },
  },

  leaseTerms(requested: LeaseSettings) {
    const k = compression(requested);
    const rescaled: RescaledConstant[] = RIVER_CONSTANTS.map(({ constant, ms, where }) => ({
      constant,
      library: `${String(ms)} ms`,
      run: `${scaled(ms, k)} (× ${String(k)}, the run's poll / River's default poll of 1 s)`,
      statement: `${where}, a constant made a variable in the build's vendored copy (clients/go/cmd/river-native/rescale.json) and set before NewClient`,
    }));
    rescaled.push(
      {
        constant: 'fetch cooldown',
        library: '100 ms (FetchCooldownDefault)',
        run: scaled(100, k),
        statement: 'Config.FetchCooldown',
      },
      {
        constant: 'retry backoff',
        library: 'attempt⁴ s ± 10 % (DefaultClientRetryPolicy)',
        run: `attempt⁴ × ${scaled(1_000, k)} ± 10 %`,
        statement: "Config.RetryPolicy: River's DefaultClientRetryPolicy, its delay × k",
      },
    );
    return {
      lease: { ...requested, heartbeatMs: requested.durationMs, extendByMs: requested.durationMs },
      notes: [
        'River 0.51, native mode: its own client, fetch loop, completer, leader election, ' +
          'rescuer and scheduler',
        `River has no heartbeat: a job is cut by JobTimeout (${String(requested.durationMs)} ms, ` +
          "a context deadline on the worker's monotonic clock) and rescued by the leader once " +
          `attempted_at is older than RescueStuckJobsAfter (${String(requested.durationMs)} ms ` +
          "on the leader's wall clock); the scenario's heartbeat is not River's to take",
        "the maintenance services' random 0–1 s start-up stagger is off (Config.TestOnly)",
        'MaxWorkers 1: a worker runs one job at a time',
      ],
      rescaled,
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
