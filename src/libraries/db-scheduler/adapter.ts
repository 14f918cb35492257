/**
 * db-scheduler 16.12.0 (Java) under test in native mode: its own `Scheduler` is the worker — its
 * polling (its default FETCH strategy, fetch-and-lock-on-execute: due rows `picked = false AND execution_time <= ?`, then
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
 *
 * Its settings are its own (`settings.ts`), compressed by the run's one time factor: the
 * scenario's lease is heartbeatInterval × missedHeartbeatsLimit (30 min by default).
 */
import { AdapterError } from '../../queue/adapter-error.js';
import {
  settingValue,
  settleSettings,
  type SettledSettings,
} from '../../queue/library-settings.js';
import { nativeOnlyPrimitives } from '../../queue/native-only.js';
import type { LeaseSettings, QueueAdapter, SqlClient } from '../../queue/types.js';
import { javaNativeProgram, javaProgramJson } from '../program/java-native.js';
import { programClockLimits } from '../program/program-clock.js';
import { dbSchedulerSettings } from './settings.js';

/** The db-scheduler release the Java client's pom pins (`clients/java/pom.xml`). */
export const DB_SCHEDULER_VERSION = '16.12.0';

/** The jar whose main class runs db-scheduler's Scheduler as a native worker. */
export const DB_SCHEDULER_PROGRAM = 'leaseproof-java';

// The run's dead-execution age and retry delay, read by the audit's expressions.
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

/** The run's db-scheduler settings, as its builder and its one-time task take them (run ms). */
export interface DbSchedulerMapping {
  heartbeatMs: number;
  missedHeartbeatsLimit: number;
  /** heartbeatInterval × missedHeartbeatsLimit: the age of last_heartbeat at which it is dead. */
  deadAfterMs: number;
  /** Every 2 × heartbeatInterval, hard-coded (Scheduler.java:103). */
  detectionIntervalMs: number;
  pollingMs: number;
  threads: number;
  shutdownMaxWaitMs: number;
  retryDelayMs: number;
}

/**
 * The run's db-scheduler settings: its own, settled by the run's one time factor (k = the
 * scenario's lease ÷ heartbeatInterval × missedHeartbeatsLimit), or its defaults so settled
 * when none are given. The Java side (`LeaseMapping.java`) configures db-scheduler with these
 * same values, handed to it in the worker config's `settings`.
 */
export function dbSchedulerMapping(
  lease: LeaseSettings,
  settings: SettledSettings = settleSettings(dbSchedulerSettings, lease),
): DbSchedulerMapping {
  const value = (name: string) => settingValue(settings, name);
  const heartbeatMs = value('heartbeatInterval');
  const missedHeartbeatsLimit = value('missedHeartbeatsLimit');
  return {
    heartbeatMs,
    missedHeartbeatsLimit,
    deadAfterMs: heartbeatMs * missedHeartbeatsLimit,
    detectionIntervalMs: value('deadExecutionDetectionInterval'),
    pollingMs: value('pollingInterval'),
    threads: value('threads'),
    shutdownMaxWaitMs: value('shutdownMaxWait'),
    retryDelayMs: value('OnFailureRetryLater'),
  };
}

const ms = (value: number) => `${String(Math.round(value * 1000) / 1000)} ms`;

/** The db-scheduler native adapter. */
export const dbSchedulerQueue: QueueAdapter = {
  name: 'db-scheduler',
  description:
    `db-scheduler ${DB_SCHEDULER_VERSION} (Java) through its own Scheduler: its polling, version-fenced pick, ` +
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
    // own, too, when its heartbeats failed): ReviveDeadExecution reschedules to its JVM's
    // Instant.now() and records as last_failure the now that detection read before it queried
    // the dead executions (Scheduler.java:384-401), so execution_time is last_failure + however
    // long the query and the revives before it took — tens of ms under load, more for a
    // skewed detector that revives every other scheduler's execution at once. A failed
    // attempt's reschedule (OnFailureRetryLater) sets execution_time = last_failure + the retry
    // delay exactly, to the µs both are stored in: any other gap is a revive.
    sweep: `o.picked AND NOT r.picked
      AND abs(extract(epoch FROM r.execution_time - r.last_failure)
        - extract(epoch FROM (SELECT retry_delay FROM ${TERMS_TABLE}))) > 0.001`,
  },
  retries: true,
  settings: dbSchedulerSettings,
  get limits() {
    return programClockLimits();
  },
  contract: {
    fencedOnly:
      'db-scheduler fences the holder by its version column (pick, heartbeat and remove all ' +
      'compare version) and calls an execution dead only when a detector acts on a missed ' +
      'heartbeat: "considered a _dead execution_ after time X" ' +
      '(https://github.com/kagkarlsson/db-scheduler/blob/v16.12.0/README.md)',
    // last_heartbeat is the JVM's Instant.now(), read before the statement that writes it: a
    // deadline some ms short of statement time + lease, within what db-scheduler promises.
    leaseTolerance: {
      ms: (settings, lease) => dbSchedulerMapping(lease, settings).heartbeatMs,
      why:
        'one heartbeatInterval: db-scheduler counts its lease in heartbeats (dead after ' +
        'heartbeatInterval × missedHeartbeatsLimit) and its own detector looks only every 2 × ' +
        'heartbeatInterval, and it stamps last_heartbeat with its JVM clock read before the ' +
        'statement, so a deadline off by less than one heartbeat is within the precision it ' +
        'promises — at its defaults 5 minutes of a 30-minute lease; clock skews of minutes to ' +
        'hours stay far outside it (https://github.com/kagkarlsson/db-scheduler/issues/433)',
    },
  },
  ...nativeOnlyPrimitives('db-scheduler'),
  native: {
    description:
      "db-scheduler Scheduler (its own settings by the run's time factor: heartbeatInterval × " +
      'missedHeartbeatsLimit = lease, pollingInterval, threads 1, shutdownMaxWait; one OneTimeTask with its default failure and ' +
      'dead-execution handlers, task data JSON through its JacksonSerializer), HikariCP pool of 3',
    extendsLease: true,
    program: () => javaNativeProgram(DB_SCHEDULER_PROGRAM),
    sweep: {
      description:
        "db-scheduler's dead-execution detection, in every scheduler, every 2 × " +
        'heartbeatInterval (fixed delay), revives an execution whose last_heartbeat is older ' +
        'than heartbeatInterval × missedHeartbeatsLimit on its own JVM clock, to run at once: ' +
        'the allowance is one detection interval plus one poll to pick it',
      intervalMs: (lease, settings) => {
        const { detectionIntervalMs, pollingMs } = dbSchedulerMapping(lease, settings);
        return Math.round(detectionIntervalMs + pollingMs);
      },
    },
  },

  leaseTerms(requested: LeaseSettings, settings?: SettledSettings) {
    const m = dbSchedulerMapping(requested, settings);
    if (m.threads !== 1) {
      throw new AdapterError(
        `db-scheduler: threads ${String(m.threads)} is not supported yet: leaseproof runs one ` +
          'execution per worker process (threads 1) until it runs N jobs per process',
      );
    }
    const notes = [
      `db-scheduler ${DB_SCHEDULER_VERSION}, native mode: its own Scheduler, polling, heartbeats, ` +
        'dead-execution detection and completion',
      `the scenario's lease of ${ms(requested.durationMs)} is db-scheduler's heartbeatInterval ` +
        `${ms(m.heartbeatMs)} × missedHeartbeatsLimit ${String(m.missedHeartbeatsLimit)}` +
        (Math.abs(m.deadAfterMs - requested.durationMs) > 0.001
          ? ` = ${ms(m.deadAfterMs)} (heartbeatInterval held at its floor)`
          : '') +
        ': db-scheduler takes an execution for dead once its last_heartbeat is older than that ' +
        `on the JVM clock of the scheduler that looks, every ${ms(m.detectionIntervalMs)} ` +
        '(2 × heartbeatInterval)',
      `the scenario's heartbeat (${ms(requested.heartbeatMs)}) and poll ` +
        `(${ms(requested.pollMs)}) are not used: db-scheduler heartbeats every heartbeatInterval ` +
        `and polls every pollingInterval (${ms(m.pollingMs)})`,
      'every time db-scheduler writes (last_heartbeat, execution_time, last_failure) and every ' +
        "due or dead check reads its JVM's wall clock (Instant.now()), not the database's",
      'no handler is stopped when its heartbeats fail: db-scheduler fences the completion by ' +
        'version, not the handler (interrupted only by a shutdown that outlasts shutdownMaxWait)',
      'a failed attempt is retried after OnFailureRetryLater without limit (the one-time ' +
        'task default): a job spec’s maxAttempts is not applied',
      'threads 1: a scheduler runs one execution at a time (its poll fetches up to 3 due rows, ' +
        'picking each by version when the thread is free)',
      "Scheduler.stop()'s own waits for its polling and heartbeat threads to end (1 s before " +
        'interrupting them, 5 s after: Scheduler.java:203, package-private) are not compressed; ' +
        'only a statement hung in those threads at a stop waits for them',
      "pgjdbc's connect and socket timeouts are the run's statement bound, in whole seconds",
    ];
    return {
      lease: {
        durationMs: m.deadAfterMs,
        heartbeatMs: m.heartbeatMs,
        extendByMs: m.deadAfterMs,
        pollMs: m.pollingMs,
      },
      notes,
      rescaled: [],
    };
  },

  async setup(db, ctx) {
    const { install } = await dbSchedulerSql();
    await db.query(install);
    const lease = ctx?.lease ?? {
      durationMs: 30_000,
      heartbeatMs: 5_000,
      extendByMs: 30_000,
      pollMs: 1_000,
    };
    const { deadAfterMs, retryDelayMs } = dbSchedulerMapping(lease, ctx?.settings);
    await db.query(
      `CREATE TABLE ${TERMS_TABLE} (dead_after interval NOT NULL, retry_delay interval NOT NULL);
       INSERT INTO ${TERMS_TABLE} VALUES (interval '${String(deadAfterMs)} milliseconds',
         interval '${String(retryDelayMs)} milliseconds');
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
