/**
 * db-scheduler 16.7.1 (Java) under test in native mode: its own `Scheduler` is the worker — its
 * polling (`fetch-and-lock-on-execute`: due rows `picked = false AND execution_time <= ?`, then
 * a pick `UPDATE … SET picked = true, picked_by, last_heartbeat, version = version + 1 WHERE
 * picked = false AND version = ?`), its heartbeats (`SET last_heartbeat = ? WHERE version = ?`),
 * its completion (a one-time task's row deleted `WHERE version = ?`) and its dead-execution
 * detection (`picked AND last_heartbeat <= now − heartbeatInterval × missedHeartbeatsLimit`,
 * revived by rescheduling), run by leaseproof's Java client (`clients/java`,
 * `leaseproof.dbscheduler`) on the worker's own proxied HikariCP pool. The controller installs
 * db-scheduler's table as printed by that program.
 *
 * Where the lease lives: `scheduled_tasks` itself. A picked row is held by `picked_by` under
 * its `version`; its deadline is `last_heartbeat` (written from the holder's JVM clock) plus
 * heartbeatInterval × missedHeartbeatsLimit, judged by whichever scheduler looks, on its own
 * JVM clock. Every timestamp db-scheduler writes is its JVM's `Instant.now()`, never the
 * database's `now()`.
 */
import { nativeOnlyPrimitives } from '../../queue/native-only.js';
import type {
  LeaseSettings,
  QueueAdapter,
  RescaledConstant,
  SqlClient,
} from '../../queue/types.js';
import { javaNativeProgram, javaProgramJson } from '../program/java-native.js';
import { programClockLimits } from '../program/program-clock.js';

/** The jar whose main class runs db-scheduler's Scheduler as a native worker. */
export const DB_SCHEDULER_PROGRAM = 'leaseproof-java';

// The run's dead-execution age and revive window, read by the audit's expressions.
const TERMS_TABLE = 'leaseproof_db_scheduler_terms';
// task_instance ids: 1, 2, … in enqueue order (db-scheduler leaves ids to the application).
const ID_SEQUENCE = 'leaseproof_db_scheduler_ids';

interface DbSchedulerSql {
  version: string;
  install: string;
  source: string;
  taskName: string;
}

/** db-scheduler's table and the task name, asked of the program once per process. */
const dbSchedulerSql = javaProgramJson<DbSchedulerSql>(DB_SCHEDULER_PROGRAM, ['--print-sql']);

// db-scheduler's timing, from its source (SchedulerBuilder.java, task/helper/OneTimeTask.java).
const DEFAULT_POLL_MS = 10_000;
const MIN_MISSED_HEARTBEATS = 4;
const COMPRESSED: readonly { constant: string; ms: number; where: string }[] = [
  {
    constant: "a failed one-time task's retry delay",
    ms: 5 * 60_000,
    where: "OneTimeTask's default FailureHandler, OnFailureRetryLater(Duration.ofMinutes(5))",
  },
  {
    constant: 'graceful shutdown wait',
    ms: 30 * 60_000,
    where: 'SchedulerBuilder.SHUTDOWN_MAX_WAIT, set with shutdownMaxWait',
  },
];

/**
 * The run's lease in db-scheduler's settings (the Java side, `LeaseMapping.java`, computes the
 * same from the lease it is handed): missedHeartbeatsLimit = duration / heartbeat, rounded, at
 * least 4 (SchedulerBuilder refuses less); heartbeatInterval = duration / limit, so the lease
 * is kept exactly; k = poll / db-scheduler's default poll of 10 s compresses its minute-long
 * defaults.
 */
export function dbSchedulerMapping(lease: LeaseSettings): {
  heartbeatMs: number;
  missedHeartbeatsLimit: number;
  k: number;
  retryDelayMs: number;
} {
  const missedHeartbeatsLimit = Math.max(
    MIN_MISSED_HEARTBEATS,
    Math.round(lease.durationMs / lease.heartbeatMs),
  );
  const k = lease.pollMs / DEFAULT_POLL_MS;
  return {
    heartbeatMs: lease.durationMs / missedHeartbeatsLimit,
    missedHeartbeatsLimit,
    k,
    retryDelayMs: Math.max(1, COMPRESSED[0]!.ms * k),
  };
}

const ms = (value: number) => `${String(Math.round(value * 1000) / 1000)} ms`;

/** The db-scheduler 16.7.1 native adapter. */
export const dbSchedulerQueue: QueueAdapter = {
  name: 'db-scheduler',
  description:
    'db-scheduler 16.7.1 (Java) through its own Scheduler: its polling, version-fenced pick, ' +
    'heartbeats, dead-execution detection and delete-on-completion; the lease is ' +
    'heartbeatInterval × missedHeartbeatsLimit on the JVM clock.',
  audit: {
    table: 'scheduled_tasks',
    expressions: {
      jobId: 'r.task_instance',
      holder: `CASE WHEN r.picked THEN coalesce(r.picked_by, '') || '#' || r.version::text END`,
      deadline: `CASE WHEN r.picked
        THEN r.last_heartbeat + (SELECT dead_after FROM ${TERMS_TABLE}) END`,
      // A one-time task's row is deleted when it completes; a failed attempt is rescheduled
      // (retried later, without limit: db-scheduler's default), so no row ends failed.
      state: `CASE WHEN r.picked THEN 'held' ELSE 'pending' END`,
    },
    completion: 'delete',
    // The dead-execution detector's revive, run by whichever scheduler looked (the holder's
    // own, too, when its heartbeats failed): ReviveDeadExecution reschedules to its JVM's now,
    // and records that same detection's now as last_failure, so execution_time is within a
    // moment of last_failure; a failed attempt's reschedule sets execution_time = last_failure
    // + the retry delay. Half that delay tells them apart.
    sweep: `o.picked AND NOT r.picked
      AND r.execution_time < r.last_failure + (SELECT revive_window FROM ${TERMS_TABLE})`,
  },
  retries: true,
  get limits() {
    return programClockLimits();
  },
  contract: {
    fencedOnly:
      'db-scheduler fences the holder by its version column (pick, heartbeat and remove all ' +
      'compare version) and calls an execution dead only when a detector acts on a missed ' +
      'heartbeat: "considered a _dead execution_ after time X" ' +
      '(https://github.com/kagkarlsson/db-scheduler/blob/v16.7.1/README.md)',
  },
  ...nativeOnlyPrimitives('db-scheduler'),
  native: {
    description:
      'db-scheduler Scheduler (threads 1, pollingInterval = poll, heartbeatInterval × ' +
      'missedHeartbeatsLimit = lease, one OneTimeTask with its default failure and ' +
      'dead-execution handlers, task data JSON through its JacksonSerializer), HikariCP pool of 3',
    extendsLease: true,
    program: () => javaNativeProgram(DB_SCHEDULER_PROGRAM),
    sweep: {
      description:
        "db-scheduler's dead-execution detection, in every scheduler, every 2 × " +
        'heartbeatInterval (fixed delay), revives an execution whose last_heartbeat is older ' +
        'than heartbeatInterval × missedHeartbeatsLimit on its own JVM clock, to run at once: ' +
        'the allowance is one detection interval plus one poll to pick it',
      intervalMs: (lease) => {
        const { heartbeatMs } = dbSchedulerMapping(lease);
        return Math.round(2 * heartbeatMs + lease.pollMs);
      },
    },
  },

  leaseTerms(requested: LeaseSettings) {
    const { heartbeatMs, missedHeartbeatsLimit, k } = dbSchedulerMapping(requested);
    const rescaled: RescaledConstant[] = COMPRESSED.map(({ constant, ms: library, where }) => ({
      constant,
      library: `${String(library)} ms`,
      run: `${ms(Math.max(1, library * k))} (× ${String(k)}, the run's poll / db-scheduler's default poll of 10 s)`,
      statement: where,
    }));
    const notes = [
      'db-scheduler 16.7.1, native mode: its own Scheduler, polling, heartbeats, ' +
        'dead-execution detection and completion',
      `heartbeatInterval ${ms(heartbeatMs)} × missedHeartbeatsLimit ${String(missedHeartbeatsLimit)} ` +
        `= the lease of ${String(requested.durationMs)} ms: db-scheduler takes an execution for ` +
        'dead once its last_heartbeat is older than that on the JVM clock of the scheduler that ' +
        'looks (every 2 × heartbeatInterval); the limit is at least 4 (SchedulerBuilder refuses less)',
      'every time db-scheduler writes (last_heartbeat, execution_time, last_failure) and every ' +
        "due or dead check reads its JVM's wall clock (Instant.now()), not the database's",
      'no handler is stopped when its heartbeats fail: db-scheduler fences the completion by ' +
        'version, not the handler (interrupted only by a shutdown that outlasts its wait)',
      'a failed attempt is retried later without limit (OneTimeTask default): a job spec’s ' +
        'maxAttempts is not applied',
      'threads 1: a scheduler runs one execution at a time (its poll fetches up to 3 due rows, ' +
        'picking each by version when the thread is free)',
      "pgjdbc's connect and socket timeouts are the run's statement bound, in whole seconds",
    ];
    if (Math.abs(heartbeatMs - requested.heartbeatMs) > 0.5) {
      notes.push(
        `the scenario's heartbeat of ${String(requested.heartbeatMs)} ms becomes ` +
          `${ms(heartbeatMs)} (lease / ${String(missedHeartbeatsLimit)} missed heartbeats)`,
      );
    }
    return {
      lease: {
        durationMs: requested.durationMs,
        heartbeatMs,
        extendByMs: requested.durationMs,
        pollMs: requested.pollMs,
      },
      notes,
      rescaled,
    };
  },

  async setup(db, ctx) {
    const { install } = await dbSchedulerSql();
    await db.query(install);
    const lease = ctx?.lease ?? {
      durationMs: 30_000,
      heartbeatMs: 7_500,
      extendByMs: 30_000,
      pollMs: 1_000,
    };
    const { retryDelayMs } = dbSchedulerMapping(lease);
    await db.query(
      `CREATE TABLE ${TERMS_TABLE} (dead_after interval NOT NULL, revive_window interval NOT NULL);
       INSERT INTO ${TERMS_TABLE} VALUES (interval '${String(lease.durationMs)} milliseconds',
         interval '${String(retryDelayMs / 2)} milliseconds');
       CREATE SEQUENCE ${ID_SEQUENCE}`,
    );
  },

  async teardown(db) {
    await db.query(
      `DROP TABLE IF EXISTS scheduled_tasks, ${TERMS_TABLE} CASCADE;
       DROP SEQUENCE IF EXISTS ${ID_SEQUENCE}`,
    );
  },

  async enqueue(db: SqlClient, jobs) {
    const { taskName } = await dbSchedulerSql();
    // The row db-scheduler's own SchedulerClient.schedule writes for a one-time task due now
    // (JdbcTaskRepository.createIfNotExists: picked false, version 1), its task_data the
    // payload as JSON — what its JacksonSerializer writes and reads. execution_time is the
    // database's now(): the controller has no JVM clock to read.
    const { rows } = await db.query<{ task_instance: string }>(
      `INSERT INTO scheduled_tasks (task_name, task_instance, task_data, execution_time, picked, version)
       SELECT $1, nextval('${ID_SEQUENCE}')::text, convert_to(d, 'UTF8'), now(), false, 1
       FROM unnest($2::text[]) WITH ORDINALITY AS t(d, n)
       ORDER BY n
       RETURNING task_instance`,
      [taskName, jobs.map((job) => JSON.stringify(job.payload))],
    );
    return rows.map((row) => row.task_instance);
  },
};
