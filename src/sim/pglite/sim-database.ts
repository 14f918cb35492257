/**
 * PostgreSQL in-process for the simulation: PGlite (PostgreSQL compiled to WebAssembly), where
 * a queue adapter's own SQL — its claim predicate, fences, deadlines — and leaseproof's audit
 * trigger run against a real planner and executor, in simulated time: PGlite's `now()` and
 * `clock_timestamp()` read the process's `Date`, which @sinonjs/fake-timers replaces.
 *
 * PGlite is one session. Every simulated connection's statement runs alone, in the order the
 * simulation issues them, each under its own `application_name` and backend pid (set before
 * it, as a real connection's are for its life; `pg_backend_pid()` is shadowed to answer the
 * simulated one), so the audit attributes writes as on a real server. A transaction spread over
 * several statements owns the one session until it ends: every other connection's statements
 * wait for it (exact for the rows it locked, conservative for the rest), and one whose
 * connection goes — a crash, a partition's close — is rolled back, as the server does. Row-lock
 * waits between transactions in flight at once never happen.
 *
 * Determinism: `gen_random_uuid()` is shadowed by a function of a sequence and the run's seed
 * (the search path puts `public` first), and `random()` is seeded (`setseed`), so one seed gives
 * one history.
 */
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { SqlClient } from '../../queue/types.js';
import { inlineParams } from './inline-params.js';
import {
  FINGERPRINT_FUNCTION_DDL,
  LIST_RELATIONS,
  SNAPSHOT_SCHEMA,
  snapshotPlan,
  type Relation,
} from './setup-snapshot.js';

/** What the simulation cannot do with a statement, said as such. */
export class SimulationLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SimulationLimitError';
  }
}

/** A simulated connection: a `SqlClient`, and its end as the server sees it. */
export interface SimConnection extends SqlClient {
  /**
   * A partition closed the connection: its open transaction rolls back. Its next statement is a
   * new connection's (a worker reconnects), under the same name and pid.
   */
  end(): Promise<void>;
  /**
   * Its process is gone (a crash, the run's end): its open transaction rolls back, and so does one
   * that a statement still on its way opens when it arrives.
   */
  close(): Promise<void>;
}

// What a statement queued behind a BEGIN that ran first gets: it waits for that transaction.
const HELD = Symbol("held by another connection's transaction");

/** One PGlite instance, reset between runs. */
export class SimDatabase {
  private tail: Promise<unknown> = Promise.resolve();
  private inFlight = 0;
  private currentConnection: string | undefined;
  /**
   * The connection whose transaction is open, which owns the one session until it ends: every
   * other connection's statement waits for `ended` (see `client`).
   */
  private session: { owner: string; ended: Promise<void>; end: () => void } | undefined;
  /** Connections of this run whose process is gone (see `SimConnection.close`). */
  private readonly closed = new Set<string>();
  /** Why this PGlite was cut off mid-statement (see `cutOff`): it is started afresh before use. */
  private cut: Error | undefined;
  /** Statements of the simulation's connections in flight in PGlite (see `inStatement`). */
  private executing = 0;
  /**
   * What the last setup left, to restore for the next run of the same setup (`key` undefined:
   * the setup did not read what the key stands for, so any key will do).
   */
  private installed:
    { by: object; key: string | undefined; restore: string; fingerprint: string } | undefined;

  private constructor(private db: PGlite) {}

  /** Starts PGlite (seconds: start one and reset it per run). */
  static async start(): Promise<SimDatabase> {
    return new SimDatabase(await createPGlite());
  }

  /**
   * Whether a connection's transaction is open: until it ends, every other connection's
   * statement waits, and what the session reads includes its uncommitted writes.
   */
  transactionOpen(): boolean {
    return this.session !== undefined;
  }

  /**
   * Whether a statement of a simulated connection is in flight in PGlite: the clock reads then
   * are the database's (see `database-time.ts`).
   */
  inStatement(): boolean {
    return this.executing > 0;
  }

  /**
   * Takes this PGlite out of use: a run's bound was passed inside one of its statements, and the
   * exception that ended the statement went through PostgreSQL's stack, which nothing unwound.
   * Every statement from now on fails with `error`, and the next run starts a fresh PGlite.
   */
  cutOff(error: Error): void {
    this.cut ??= error;
  }

  /**
   * A fresh PGlite in place of one cut off (seconds; nothing of the old one is kept); nothing to
   * do otherwise. A run calls it before its clock and its bounds start.
   */
  async renew(): Promise<void> {
    if (this.cut === undefined) return;
    // The old one may be mid-statement for good: it is let go, not waited for.
    const old = this.db;
    void old.close().catch(() => undefined);
    this.db = await createPGlite();
    this.tail = Promise.resolve();
    this.inFlight = 0;
    this.installed = undefined;
    this.cut = undefined;
  }

  /**
   * A fresh database: every schema but the system's dropped, public made again with the
   * deterministic uuid, and the session seeded by `seed`. Nothing of an earlier setup is kept.
   */
  async reset(seed: number): Promise<void> {
    await this.renew();
    this.installed = undefined;
    await this.exclusive(async () => {
      // Every schema a run made goes, not only public: a queue's own (pgboss, graphile_worker)
      // would otherwise carry its jobs, and its types, into the next run.
      await this.db.exec(`
        DO $reset$ DECLARE s text; BEGIN
          FOR s IN SELECT nspname FROM pg_namespace
                   WHERE nspname <> 'information_schema' AND nspname NOT LIKE 'pg\\_%' LOOP
            EXECUTE format('DROP SCHEMA %I CASCADE', s);
          END LOOP;
        END $reset$;
        CREATE SCHEMA public;
        CREATE SEQUENCE public.leaseproof_sim_uuid;
        CREATE FUNCTION public.gen_random_uuid() RETURNS uuid LANGUAGE sql AS $$
          SELECT md5(current_setting('leaseproof.sim_seed') || ':' || nextval('public.leaseproof_sim_uuid'))::uuid
        $$;
        CREATE FUNCTION public.pg_backend_pid() RETURNS integer LANGUAGE sql STABLE AS $$
          SELECT coalesce(nullif(current_setting('leaseproof.sim_pid', true), '')::integer, 0)
        $$;`);
      await this.seedSession(seed);
    });
  }

  /**
   * The database for a run whose setup is `setup`: made fresh and set up, or — when the last
   * setup was `setup.by`'s, with the same `setup.key` unless that setup did not read what the key
   * stands for (`run` says whether it did), and nothing has changed the schema since — brought
   * back to the state that setup left (see `setup-snapshot.ts`). The setup itself always runs
   * under seed 0 and the run under `seed`, so the two ways give the run the same database, byte
   * for byte. Returns whether the setup ran.
   */
  async prepare(
    setup: { by: object; key: string; run: () => Promise<{ readKey: boolean }> },
    seed: number,
  ): Promise<boolean> {
    await this.renew();
    const installed = this.installed;
    if (
      installed !== undefined &&
      installed.by === setup.by &&
      (installed.key === undefined || installed.key === setup.key) &&
      installed.restore !== ''
    ) {
      const restored = await this.exclusive(async () => {
        if ((await this.fingerprint()) !== installed.fingerprint) return false;
        try {
          await this.db.exec(installed.restore);
        } catch {
          // Whatever stood in the way, a fresh database and the setup again are the sure way
          // (the failed script rolled back with its implicit transaction).
          return false;
        }
        await this.seedSession(seed);
        return true;
      });
      if (restored) return false;
    }
    await this.reset(0);
    const { readKey } = await setup.run();
    this.installed = {
      by: setup.by,
      key: readKey ? setup.key : undefined,
      ...(await this.snapshot()),
    };
    await this.exclusive(() => this.seedSession(seed));
    return true;
  }

  /**
   * Copies what the setup left into the snapshot schema and says how to restore it, with the
   * catalog's fingerprint; an empty `restore` when the schema cannot be restored that way.
   */
  private snapshot(): Promise<{ restore: string; fingerprint: string }> {
    return this.exclusive(async () => {
      const relations = (await this.execLast<Relation>(LIST_RELATIONS)).rows;
      const rowsOf = new Map<string, number>();
      const sequences = new Map<string, { lastValue: string; isCalled: boolean }>();
      for (const r of relations) {
        if (r.kind === 'r') {
          const [row] = (
            await this.execLast<{ n: number }>(`SELECT count(*)::int AS n FROM ONLY ${r.name}`)
          ).rows;
          rowsOf.set(r.name, row?.n ?? 0);
        } else if (r.kind === 'S') {
          const [row] = (
            await this.execLast<{ last_value: string; is_called: boolean }>(
              `SELECT last_value::text, is_called FROM ${r.name}`,
            )
          ).rows;
          if (row !== undefined) {
            sequences.set(r.name, { lastValue: row.last_value, isCalled: row.is_called });
          }
        }
      }
      const plan = snapshotPlan(relations, rowsOf, sequences);
      if (plan === undefined) return { restore: '', fingerprint: '' };
      try {
        await this.db.exec(
          `CREATE SCHEMA ${SNAPSHOT_SCHEMA};\n${FINGERPRINT_FUNCTION_DDL};\n${plan.copy}`,
        );
      } catch {
        // A setup's state that cannot be copied is set up afresh before every run instead.
        return { restore: '', fingerprint: '' };
      }
      return { restore: plan.restore, fingerprint: await this.fingerprint() };
    });
  }

  /** The catalog's fingerprint now (see `setup-snapshot.ts`); run it inside `exclusive`. */
  private async fingerprint(): Promise<string> {
    const { rows } = await this.execLast<{ fp: string }>(
      `SELECT ${SNAPSHOT_SCHEMA}.fingerprint() AS fp`,
    );
    return rows[0]?.fp ?? '';
  }

  /**
   * The session as every run starts it, whatever the setup or the last run left in it (on a
   * real server each worker has a connection of its own, which no setup's SET reaches): settings
   * reset, session advisory locks let go, the deterministic uuid restarted under `seed`, and
   * `random()` seeded.
   */
  private async seedSession(seed: number): Promise<void> {
    this.currentConnection = undefined;
    // A transaction the last run left open (it never should: its connections ended with it) goes,
    // and the statements that waited on it are let go of, never run.
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
    this.session = undefined;
    this.closed.clear();
    await this.db.exec(`
      RESET ALL;
      SET search_path = public, pg_catalog;
      SET application_name = 'leaseproof-sim';
      SET leaseproof.sim_seed = '${String(Math.trunc(seed))}';
      SELECT pg_catalog.setval('public.leaseproof_sim_uuid', 1, false);
      SELECT pg_catalog.pg_advisory_unlock_all();`);
    await this.db.query('SELECT setseed($1)', [seedFraction(seed)]);
  }

  /**
   * A connection of the simulation, by its `application_name` (a worker id, the controller,
   * `<worker>:sweep`) and its backend pid (what `pg_backend_pid()`, and so the audit, says of
   * its statements: a real server's connections each have their own, and a worker reports it
   * with its calls). Its statements queue behind every statement issued before them — and, while
   * another connection's transaction is open, behind that transaction's end.
   */
  client(applicationName: string, pid = 0): SimConnection {
    const identity = `${applicationName}\u0000${String(pid)}`;
    const query = async <R extends Record<string, unknown> = Record<string, unknown>>(
      sql: string,
      params?: unknown[],
    ): Promise<{ rows: R[]; rowCount: number }> => {
      for (;;) {
        // Waiting on another's transaction is no statement in flight: the clock runs on (the
        // owner's next statement comes in simulated time), as a real row-lock wait's would.
        while (this.session !== undefined && this.session.owner !== identity) {
          await this.session.ended;
        }
        const answer = await this.exclusive(async () => {
          // Another connection's BEGIN ran first, while this one was queued.
          if (this.session !== undefined && this.session.owner !== identity) return HELD;
          return this.run<R>(identity, applicationName, pid, sql, params);
        });
        if (answer !== HELD) return answer;
      }
    };
    return {
      query,
      end: () => this.end(identity),
      close: () => {
        this.closed.add(identity);
        return this.end(identity);
      },
    };
  }

  /**
   * One statement of connection `identity`, alone on the session. The connection's name and the
   * statement go in one simple-protocol call, the parameters written in as node-postgres sends
   * them (inline-params.ts): a third of the cost of a set_config and an extended-protocol query.
   */
  private async run<R>(
    identity: string,
    applicationName: string,
    pid: number,
    sql: string,
    params: unknown[] | undefined,
  ): Promise<{ rows: R[]; rowCount: number }> {
    const text = params === undefined || params.length === 0 ? sql : inlineParams(sql, params);
    const naming =
      this.currentConnection === identity
        ? ''
        : `SET application_name = ${pg.escapeLiteral(applicationName)};\n` +
          `SET leaseproof.sim_pid = '${String(Math.trunc(pid))}';\n`;
    const owned = this.session?.owner === identity;
    let result: { rows: R[]; affectedRows?: number };
    try {
      result = await this.execLast<R>(naming + text);
    } catch (error) {
      // One implicit transaction: a failed statement took its SET back with it.
      if (naming !== '') this.currentConnection = undefined;
      // A failed script's own transaction ends with it, its error the answer; a transaction the
      // connection opened before stays open, aborted, for its ROLLBACK, as on a server.
      if (!owned && this.cut === undefined && this.db.isInTransaction()) {
        await this.db.exec('ROLLBACK');
      }
      await this.settle(identity);
      throw error;
    }
    this.currentConnection = identity;
    await this.settle(identity);
    // pg's rowCount: the rows a write touched, or the rows a SELECT returned.
    return { rows: result.rows, rowCount: Math.max(result.affectedRows ?? 0, result.rows.length) };
  }

  /**
   * After a statement of `identity`: a transaction left open makes it the session's owner (PGlite
   * is one session, so a transaction open on one simulated connection holds every other's
   * statements until it ends — exact for the rows it locked, conservative for the rest); one
   * ended lets the others go.
   */
  private async settle(identity: string): Promise<void> {
    // A statement that arrives after its process died: the server runs it, then sees the
    // connection gone, and rolls back what it opened.
    if (this.closed.has(identity) && this.cut === undefined && this.db.isInTransaction()) {
      await this.db.exec('ROLLBACK');
      this.currentConnection = undefined;
    }
    const open = this.cut === undefined && this.db.isInTransaction();
    if (open && this.session === undefined) {
      let end!: () => void;
      const ended = new Promise<void>((resolve) => (end = resolve));
      this.session = { owner: identity, ended, end };
    } else if (!open && this.session?.owner === identity) {
      this.release();
    }
  }

  /** Ends the session's ownership: the waiting statements go on. */
  private release(): void {
    const session = this.session;
    if (session === undefined) return;
    this.session = undefined;
    // A SET made inside the transaction went with a ROLLBACK: the next statement names itself.
    this.currentConnection = undefined;
    session.end();
  }

  /**
   * The end of connection `identity` (its process crashed, a partition closed it): the server
   * rolls back the transaction it left open, as PostgreSQL does for a connection that goes.
   */
  private end(identity: string): Promise<void> {
    if (this.session?.owner !== identity) return Promise.resolve();
    return this.exclusive(async () => {
      if (this.session?.owner !== identity) return;
      if (this.cut === undefined && this.db.isInTransaction()) await this.db.exec('ROLLBACK');
      this.release();
    });
  }

  /** Stops PGlite; idempotent. */
  async stop(): Promise<void> {
    if (this.db.closed) return;
    await this.db.close();
  }

  // A statement may be several (a setup script, or the SET before a statement): `exec` runs them
  // all and the last one's result is the statement's.
  private async execLast<R>(sql: string): Promise<{ rows: R[]; affectedRows?: number }> {
    if (this.cut !== undefined) throw this.cut;
    this.executing += 1;
    let results;
    try {
      results = await this.db.exec(sql);
    } finally {
      this.executing -= 1;
    }
    // A statement cut inside PGlite may come back as if it had run: its answer is no answer.
    // (Read again: the await may have cut it, which the narrowing above does not know.)
    const cutMeanwhile = this.cut as Error | undefined;
    if (cutMeanwhile !== undefined) throw cutMeanwhile;
    const last = results[results.length - 1];
    return {
      rows: (last?.rows ?? []) as R[],
      ...(last?.affectedRows !== undefined && { affectedRows: last.affectedRows }),
    };
  }

  /**
   * Resolves once no statement is queued or running, and every continuation of the last one
   * has run: the simulation advances its clock only then, so that a statement's caller sees its
   * answer at the simulated instant it was sent, whatever PGlite's own scheduling.
   */
  async settled(): Promise<void> {
    for (let quiet = 0; quiet < 2 && this.cut === undefined;) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      quiet = this.inFlight === 0 ? quiet + 1 : 0;
      if (this.inFlight > 0) await this.tail;
    }
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    this.inFlight += 1;
    const run = async (): Promise<T> => {
      try {
        return await work();
      } finally {
        this.inFlight -= 1;
      }
    };
    const next = this.tail.then(run, run);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/** A new PGlite instance. */
async function createPGlite(): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  return PGlite.create();
}

/** A seed as `setseed` takes it: a number in [-1, 1]. */
function seedFraction(seed: number): number {
  return ((Math.abs(Math.trunc(seed)) % 2_000_001) - 1_000_000) / 1_000_000;
}
