/**
 * pg-boss under test, through its own code: every statement a worker sends is one pg-boss builds
 * and runs — `fetch()` (its SKIP LOCKED claim), `complete()`, `fail()` — and a job's lease runs out
 * the way pg-boss's own supervisor ends it, by `expire()` (its `failJobsByTimeout` statement,
 * `(started_on + expire_in) < now()`), which leaseproof's maintenance sweep calls.
 *
 * pg-boss accepts a `db` object (`executeSql(text, values)`) per call, so its statements run over
 * the worker's own connection — through the worker's own Toxiproxy proxy — and pg-boss never opens
 * a pool of its own. Version: pg-boss 10, the last major that installs on Node 20 (11 and later
 * need Node 22).
 *
 * What pg-boss's design fixes, and the adapter states rather than hides:
 * - its settings are its own (`settings.ts`): the scenario's lease is `expireInSeconds` (15 min by
 *   default), and every other duration is compressed by the same factor — at a 1 s lease,
 *   `maintenanceIntervalSeconds` (120 s) and `pollingIntervalSeconds` (2 s) fall below what
 *   pg-boss accepts and are held at its minimums, 1 s and 0.5 s, which the report names;
 * - its lease is whole seconds: the scenario's lease is rounded up;
 * - it has no lease extension (no heartbeat): `extend` is absent;
 * - an expired job is offered again only once the supervisor has run `expire()`, once per
 *   `maintenanceIntervalSeconds`: the harness's sweep runs at that settled interval;
 * - it has no claim token: a claim is named by the job id and pg-boss's `retry_count`, which its
 *   fetch increments on every fetch after the first, so each claim of a job has its own.
 */
import { randomUUID } from 'node:crypto';
import { leaseInWholeUnits } from '../../queue/lease-terms.js';
import type { LeaseSettings, QueueAdapter, SqlClient } from '../../queue/types.js';
import { libraryVersion, requireLibrary, type LibrarySpec } from '../load-library.js';
import { leaseSentence, PG_BOSS_10_SETTINGS, pgBoss10Value, wholeSeconds } from './settings.js';

/** The pg-boss versions this adapter is for. */
export const PG_BOSS: LibrarySpec = { name: 'pg-boss', range: '^10.0.0', tested: '10.4.2' };

/** pg-boss's schema in the run database (its default). */
export const PG_BOSS_SCHEMA = 'pgboss';

/** The pg-boss queue the jobs go to. */
export const PG_BOSS_QUEUE = 'leaseproof';

/** The lease of a caller that gives none (a unit test's setup): one second. */
const DEFAULT_LEASE: LeaseSettings = {
  durationMs: 1_000,
  heartbeatMs: 1_000,
  extendByMs: 1_000,
  pollMs: 500,
};

// pg-boss's `db` option: the one method it runs every statement through.
interface PgBossDb {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount?: number }>;
}

interface FetchedJob {
  id: string;
  data: Record<string, unknown> | null;
  retryCount: number;
}

interface CommandResult {
  affected: number;
}

// The part of pg-boss 10's API the adapter uses (its own types are not needed at run time).
interface PgBossInstance {
  createQueue(name: string, options: Record<string, unknown>): Promise<void>;
  insert(jobs: Record<string, unknown>[], options: { db: PgBossDb }): Promise<unknown>;
  fetch(name: string, options: Record<string, unknown>): Promise<FetchedJob[]>;
  complete(
    name: string,
    id: string,
    data: unknown,
    options: { db: PgBossDb },
  ): Promise<CommandResult>;
  fail(name: string, id: string, data: unknown, options: { db: PgBossDb }): Promise<CommandResult>;
  expire(): Promise<void>;
}

interface PgBossClass {
  new (options: Record<string, unknown>): PgBossInstance;
  getConstructionPlans(schema: string): string;
}

/** pg-boss's `db` over one of leaseproof's connections. */
function bossDb(db: SqlClient): PgBossDb {
  return {
    executeSql: async (text, values) => {
      const result = await db.query(text, values);
      return { rows: result.rows, rowCount: result.rowCount ?? 0 };
    },
  };
}

let shared: PgBossInstance | undefined;

/**
 * The instance a worker's calls go through: `fetch`, `complete`, `fail` and `insert` take the
 * connection per call (`{ db }`), so one instance serves every connection of the process, made on
 * the first call (its constructor builds all of pg-boss's SQL). A call that forgot its `db` would
 * fall back to the instance's own, which refuses.
 */
function perCallBoss(): PgBossInstance {
  shared ??= new (requireLibrary<PgBossClass>(PG_BOSS))({
    db: {
      executeSql: () =>
        Promise.reject(new Error('pg-boss adapter: a statement without the worker connection')),
    },
    schema: PG_BOSS_SCHEMA,
    supervise: false,
    schedule: false,
    migrate: false,
  });
  return shared;
}

/**
 * A pg-boss instance whose own statements (createQueue at setup, expire once per sweep) go over
 * `db`. It is never started: nothing of pg-boss runs in the background except what the harness
 * calls. Its constructor builds SQL strings and opens nothing.
 */
function bossOver(db: SqlClient): PgBossInstance {
  const PgBoss = requireLibrary<PgBossClass>(PG_BOSS);
  return new PgBoss({
    db: bossDb(db),
    schema: PG_BOSS_SCHEMA,
    supervise: false,
    schedule: false,
    migrate: false,
  });
}

/** The pg-boss 10 adapter. */
export const pgBossQueue: QueueAdapter = {
  name: 'pg-boss',
  description:
    'pg-boss 10 through its own fetch / complete / fail and its supervisor’s expire(); lease = ' +
    'expireInSeconds, no lease extension; its settings compressed by one factor.',
  contract: {
    fencedOnly:
      'pg-boss expires an active job only when its maintenance runs: a job "may be in active ' +
      'state … before it is failed because of expiration" ' +
      '(https://github.com/timgit/pg-boss/blob/10.4.0/docs/api/jobs.md); its completion after ' +
      "another worker's fetch is the harm its users report (issue 555)",
  },
  audit: {
    table: `${PG_BOSS_SCHEMA}.job`,
    expressions: {
      jobId: 'r.id::text',
      // pg-boss has no claim token: each fetch after the first increments retry_count.
      holder: "CASE WHEN r.state = 'active' THEN r.id::text || '#' || r.retry_count END",
      deadline: "CASE WHEN r.state = 'active' THEN r.started_on + r.expire_in END",
      // 'failed' in pg-boss is a job whose retries are spent: dead-lettered, in our terms.
      state: `CASE r.state WHEN 'active' THEN 'held' WHEN 'created' THEN 'pending'
        WHEN 'retry' THEN 'pending' WHEN 'completed' THEN 'completed'
        WHEN 'failed' THEN 'dead' ELSE 'failed' END`,
    },
    completion: 'update',
  },

  settings: PG_BOSS_10_SETTINGS,

  leaseTerms(requested, settings) {
    const terms = leaseInWholeUnits(requested, 1_000, 'seconds (pg-boss expireInSeconds)');
    const pollMs = pgBoss10Value('pollingIntervalSeconds', requested, settings);
    return {
      lease: { ...terms.lease, pollMs },
      notes: [
        `pg-boss ${libraryVersion(PG_BOSS)}`,
        leaseSentence(settings, requested.durationMs, 'expireInSeconds'),
        ...terms.notes,
        `the worker polls every ${String(pollMs)} ms (pollingIntervalSeconds), not the ` +
          `scenario's ${String(requested.pollMs)} ms`,
      ],
      rescaled: [],
    };
  },

  maintenance: {
    description:
      "pg-boss's supervisor expire() (failJobsByTimeout: active jobs past started_on + " +
      'expire_in go to retry, or to failed when their retries are spent), every ' +
      'maintenanceIntervalSeconds as the run settled it',
    intervalMs: (lease, settings) => pgBoss10Value('maintenanceIntervalSeconds', lease, settings),
    run: (db) => bossOver(db).expire(),
  },

  async setup(db, ctx) {
    const PgBoss = requireLibrary<PgBossClass>(PG_BOSS);
    await db.query(PgBoss.getConstructionPlans(PG_BOSS_SCHEMA));
    const lease = ctx?.lease ?? DEFAULT_LEASE;
    await bossOver(db).createQueue(PG_BOSS_QUEUE, {
      expireInSeconds: Math.max(1, wholeSeconds(lease.durationMs)),
      retryLimit: pgBoss10Value('retryLimit', lease, ctx?.settings),
      // pg-boss's default: a retry is due at once (see settings.ts).
      retryDelay: 0,
    });
  },

  async teardown(db) {
    await db.query(`DROP SCHEMA IF EXISTS ${PG_BOSS_SCHEMA} CASCADE`);
  },

  async enqueue(db, jobs, ctx) {
    // Ids chosen here, in order: pg-boss's own would come back in no promised order.
    const ids = jobs.map(() => randomUUID());
    const leaseS = Math.max(1, wholeSeconds((ctx?.lease ?? DEFAULT_LEASE).durationMs));
    await perCallBoss().insert(
      jobs.map((job, i) => ({
        id: ids[i],
        name: PG_BOSS_QUEUE,
        data: job.payload,
        expireInSeconds: leaseS,
        ...(job.maxAttempts !== undefined && { retryLimit: Math.max(0, job.maxAttempts - 1) }),
      })),
      { db: bossDb(db) },
    );
    return ids;
  },

  async claim(db) {
    const [job] = await perCallBoss().fetch(PG_BOSS_QUEUE, {
      batchSize: 1,
      includeMetadata: true,
      db: bossDb(db),
    });
    if (job === undefined) return undefined;
    return {
      jobId: job.id,
      token: `${job.id}#${job.retryCount}`,
      attempt: job.retryCount + 1,
      payload: job.data ?? {},
    };
  },

  async ack(db, claim) {
    const result = await perCallBoss().complete(PG_BOSS_QUEUE, claim.jobId, null, {
      db: bossDb(db),
    });
    return result.affected === 1;
  },

  async fail(db, claim, error) {
    const result = await perCallBoss().fail(
      PG_BOSS_QUEUE,
      claim.jobId,
      { message: error },
      { db: bossDb(db) },
    );
    return result.affected === 1;
  },
};
