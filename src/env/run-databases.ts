import pg from 'pg';
import type { RunDatabase } from './types.js';
import { OWNED_DATABASE_PREFIX } from './run-id.js';
import { withDatabaseUrl, parseDatabaseUrl } from './database-url.js';
import { EnvironmentError, UnsafeDatabaseError } from '../errors.js';

/** How a run's databases come about on one server. */
export interface RunDatabasesOptions {
  /** Connection URL with rights to CREATE and DROP DATABASE. */
  adminUrl: string;
  /** The run id; databases are `leaseproof_<runId>_<n>`. */
  runId: string;
  /**
   * A database to use as is instead of creating one. Only honoured with `iOwnThisDatabase`
   * unless it carries the `leaseproof_` prefix; never dropped.
   */
  useAsIs?: string | undefined;
  /** The user's explicit permission to run in `useAsIs` (`--i-own-this-database`). */
  iOwnThisDatabase?: boolean | undefined;
}

/**
 * Creates and drops the databases of one run. It drops only what it created itself, and every
 * name it creates carries the `leaseproof_` prefix, so a typo in a URL can never cost a user a
 * database.
 */
export class RunDatabases {
  private readonly created = new Map<string, RunDatabase>();
  private counter = 0;

  constructor(private readonly options: RunDatabasesOptions) {
    const { useAsIs, iOwnThisDatabase } = options;
    if (
      useAsIs !== undefined &&
      !useAsIs.startsWith(OWNED_DATABASE_PREFIX) &&
      iOwnThisDatabase !== true
    ) {
      throw new UnsafeDatabaseError(
        `refusing to use database "${useAsIs}": leaseproof creates its own databases ` +
          `(${OWNED_DATABASE_PREFIX}<run id>) and touches no other. Point DATABASE_URL at a ` +
          `maintenance database (e.g. /postgres) on a server where it may create databases, or ` +
          `pass --i-own-this-database to run inside "${useAsIs}" (it is never dropped).`,
      );
    }
  }

  /** Creates a fresh database (or hands out the one to use as is). */
  async create(): Promise<RunDatabase> {
    const { useAsIs, adminUrl } = this.options;
    if (useAsIs !== undefined) {
      return {
        name: useAsIs,
        url: withDatabaseUrl(adminUrl, { database: useAsIs }),
        owned: false,
        drop: () => Promise.resolve(),
      };
    }
    this.counter += 1;
    const name = `${OWNED_DATABASE_PREFIX}${this.options.runId}_${this.counter}`;
    await withAdminClient(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
    let dropped = false;
    const database: RunDatabase = {
      name,
      url: withDatabaseUrl(adminUrl, { database: name }),
      owned: true,
      drop: async () => {
        if (dropped) return;
        dropped = true;
        this.created.delete(name);
        await dropOwnedDatabase(adminUrl, name);
      },
    };
    this.created.set(name, database);
    return database;
  }

  /** Drops every database this object created; the first error is rethrown after trying all. */
  async dropAll(): Promise<void> {
    const errors: unknown[] = [];
    for (const database of [...this.created.values()]) {
      await database.drop().catch((error: unknown) => errors.push(error));
    }
    if (errors.length > 0) throw errors[0];
  }
}

/**
 * Drops a database the harness created, disconnecting its sessions first (a SIGKILLed worker's
 * backend may linger). Refuses any name without the `leaseproof_` prefix.
 */
export async function dropOwnedDatabase(adminUrl: string, name: string): Promise<void> {
  if (!name.startsWith(OWNED_DATABASE_PREFIX) || !/^[a-z0-9_]+$/.test(name)) {
    throw new UnsafeDatabaseError(`refusing to drop "${name}": leaseproof did not create it`);
  }
  await withAdminClient(adminUrl, (client) =>
    client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  );
}

/** Lists databases with the `leaseproof_` prefix: leftovers of runs that were killed. */
export async function listOwnedDatabases(adminUrl: string): Promise<string[]> {
  const result = await withAdminClient(adminUrl, (client) =>
    client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1 ORDER BY datname`,
      [`${OWNED_DATABASE_PREFIX.replace('_', '\\_')}%`],
    ),
  );
  return result.rows.map((row) => row.datname);
}

/**
 * How long each attempt to connect as admin may take. Under load (three CI jobs on two cores)
 * a connection's start-up was seen to outlast 10 s: the server's new backend and this event
 * loop both wait for a CPU. A timeout is the machine's doing, not the server's answer, so it is
 * tried again with more time; a refusal or a rejected password is an answer and is not.
 */
export const ADMIN_CONNECT_TIMEOUTS_MS: readonly number[] = [10_000, 20_000, 30_000];

/** Runs `work` on a short-lived connection to the admin URL; always closes it. */
export async function withAdminClient<T>(
  adminUrl: string,
  work: (client: pg.Client) => Promise<T>,
  timeoutsMs: readonly number[] = ADMIN_CONNECT_TIMEOUTS_MS,
): Promise<T> {
  const parts = parseDatabaseUrl(adminUrl, 'admin URL');
  const client = await connectAdmin(adminUrl, timeoutsMs).catch((error: unknown) => {
    const tries = timeoutsMs.length;
    const waited = isConnectTimeout(error)
      ? ` (${tries} ${tries === 1 ? 'try' : 'tries'} timed out, ` +
        `${timeoutsMs.reduce((a, b) => a + b, 0) / 1000} s in all)`
      : '';
    throw new EnvironmentError(
      `cannot connect to PostgreSQL at ${parts.host}:${parts.port} as "${parts.user}"${waited}`,
      { cause: error },
    );
  });
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A connected admin client: one attempt per entry of `timeoutsMs`, again only on a timeout. */
async function connectAdmin(adminUrl: string, timeoutsMs: readonly number[]): Promise<pg.Client> {
  for (let attempt = 0; ; attempt += 1) {
    const client = new pg.Client({
      connectionString: adminUrl,
      application_name: 'leaseproof-admin',
      connectionTimeoutMillis: timeoutsMs[attempt],
    });
    // A server that goes away mid-query emits 'error' on the client; without a listener that
    // would crash the controller instead of failing this one call.
    client.on('error', () => undefined);
    try {
      await client.connect();
      return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (!isConnectTimeout(error) || attempt + 1 >= timeoutsMs.length) throw error;
    }
  }
}

/** Whether a connect failed by node-postgres' own `connectionTimeoutMillis`, not an answer. */
function isConnectTimeout(error: unknown): boolean {
  return error instanceof Error && /timeout expired|connection timeout/i.test(error.message);
}
