import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StartedEnvironment } from '../../src/env/types.js';
import type { LeaseSettings, QueueAdapter, QueueContext } from '../../src/queue/types.js';

/** Short leases, so that a test crosses an expiry in a few hundred milliseconds. */
export const LEASE: LeaseSettings = {
  durationMs: 300,
  heartbeatMs: 100,
  extendByMs: 400,
  pollMs: 50,
};

/**
 * A worker's context whose `workerNow` throws: a correct queue never reads the worker's clock,
 * so every test that uses this context also proves that.
 */
export function context(workerId: string, overrides: Partial<QueueContext> = {}): QueueContext {
  return {
    workerId,
    lease: LEASE,
    workerNow: () => {
      throw new Error(`workerNow() called for ${workerId}: lease arithmetic on the worker's clock`);
    },
    ...overrides,
  };
}

/** The same context with a different lease duration. */
export function withLease(ctx: QueueContext, durationMs: number): QueueContext {
  return { ...ctx, lease: { ...ctx.lease, durationMs } };
}

/** Waits until a lease of `ms` granted just now has certainly passed on the server's clock. */
export async function outlive(ms: number): Promise<void> {
  await sleep(ms + 60);
}

/** A job's lease as the database has it, read through the adapter's audit description. */
export interface LeaseRow {
  /** 'pending' | 'held' | 'completed' | 'failed' | 'dead' */
  state: string;
  /** The claim token (or worker) holding it, or null. */
  holder: string | null;
  /** The deadline, or null. */
  deadline: Date | null;
  /**
   * deadline − now() in milliseconds, computed by the server (full microsecond precision).
   * Read inside the transaction that granted or extended the lease, it is exactly the lease
   * that statement set, because now() is the same for both.
   */
  leftMs: number | null;
}

/** Reads a job's lease through the adapter's audit expressions: the harness's view of the truth. */
export async function readLease(
  client: pg.Client,
  adapter: QueueAdapter,
  jobId: string,
): Promise<LeaseRow> {
  const { table, expressions: e } = adapter.audit;
  const { rows } = await client.query<{
    state: string;
    holder: string | null;
    deadline: Date | null;
    left_ms: string | null;
  }>(
    `SELECT ${e.state} AS state, ${e.holder} AS holder, ${e.deadline} AS deadline,
            extract(epoch FROM (${e.deadline}) - now()) * 1000 AS left_ms
     FROM ${table} r WHERE ${e.jobId} = $1`,
    [jobId],
  );
  const row = rows[0];
  if (row === undefined) throw new Error(`job ${jobId} is not in ${table}`);
  const { state, holder, deadline, left_ms } = row;
  return { state, holder, deadline, leftMs: left_ms === null ? null : Number(left_ms) };
}

/** Runs `fn` inside one transaction on `client` (so `now()` is one instant throughout). */
export async function transaction<T>(client: pg.Client, fn: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const value = await fn();
    await client.query('COMMIT');
    return value;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** A fresh database with the adapter's tables, and one connection per worker id. */
export interface QueueDb {
  /** The adapter's tables are set up here. */
  readonly url: string;
  /** The connection of a worker, opened on first use with `application_name` = the id. */
  client(workerId: string): Promise<pg.Client>;
  /** A connection that only observes (`application_name` = `observer`). */
  observer(): Promise<pg.Client>;
  /** Closes every connection and drops the database. */
  close(): Promise<void>;
}

/** Creates a database in `env`, sets `adapter` up in it, and hands out connections. */
export async function openQueueDb(
  env: StartedEnvironment,
  adapter: QueueAdapter,
): Promise<QueueDb> {
  const database = await env.createDatabase();
  const clients = new Map<string, Promise<pg.Client>>();
  const client = (workerId: string): Promise<pg.Client> => {
    let opened = clients.get(workerId);
    if (opened === undefined) {
      opened = connectAs(database.url, workerId);
      clients.set(workerId, opened);
    }
    return opened;
  };
  await adapter.setup(await client('setup'));
  return {
    url: database.url,
    client,
    observer: () => client('observer'),
    async close() {
      for (const opened of clients.values()) {
        await opened.then((c) => c.end()).catch(() => undefined);
      }
      await database.drop();
    },
  };
}

async function connectAs(url: string, workerId: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: workerId });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/**
 * Runs `fn` against a fresh database set up for `adapter` (see `openQueueDb`), handing it the
 * per-worker connections; closes and drops everything afterwards, also when `fn` throws.
 */
export async function withQueueDb<T>(
  env: StartedEnvironment,
  adapter: QueueAdapter,
  fn: (client: (workerId: string) => Promise<pg.Client>) => Promise<T>,
): Promise<T> {
  const queue = await openQueueDb(env, adapter);
  try {
    return await fn((workerId) => queue.client(workerId));
  } finally {
    await queue.close();
  }
}
