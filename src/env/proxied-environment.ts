import { Toxiproxy } from 'toxiproxy-node-client';
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  DatabaseProxy,
  DatabaseRestart,
  EnvironmentDescription,
  ProviderName,
  RestartDatabaseOptions,
  RunDatabase,
  StartedEnvironment,
} from './types.js';
import { ToxiproxyDatabaseProxy, type ProxyPlacement } from './database-proxy.js';
import { RunDatabases, withAdminClient } from './run-databases.js';
import { redactUrl } from './database-url.js';
import { EnvironmentError } from '../errors.js';

/** Everything a provider has found or started, handed to `ProxiedEnvironment`. */
export interface ProxiedEnvironmentParts {
  /** Which provider. */
  provider: ProviderName;
  /** The run id. */
  runId: string;
  /** Superuser/owner URL of a maintenance database. */
  adminUrl: string;
  /** Toxiproxy API URL. */
  toxiproxyUrl: string;
  /** How Toxiproxy reaches PostgreSQL (`host:port`, from Toxiproxy's side). */
  upstream: string;
  /** Where the n-th proxy listens and how clients reach it. */
  placeProxy: (index: number) => ProxyPlacement;
  /** The run's databases. */
  databases: RunDatabases;
  /** Stops what the provider started, last started first; run after proxies and databases. */
  releasers: (() => Promise<void>)[];
  /**
   * Stops the server, waits `downMs`, starts it again on the same data; returns the
   * postmaster's pid before and after. Only a provider that owns the server process has it.
   */
  restartServer?: (downMs: number) => Promise<{ before?: number; after?: number }>;
}

/**
 * The started environment every provider returns: the providers differ only in how they got a
 * server and a proxy server, not in how databases and proxies are made and cleaned up.
 */
export class ProxiedEnvironment implements StartedEnvironment {
  readonly provider: ProviderName;
  readonly runId: string;
  readonly adminUrl: string;
  readonly toxiproxyUrl: string;
  private readonly toxiproxy: Toxiproxy;
  private readonly proxies: DatabaseProxy[] = [];
  /**
   * Placement slots (the n-th published port) and names of the proxies alive now. Runs side by
   * side (`--parallel`) each ask for `w1`…; a removed proxy gives its slot and name back, so a
   * long suite never runs out of a container's 32 published ports.
   */
  private readonly slotsInUse = new Set<number>();
  private readonly namesInUse = new Set<string>();
  private stopping: Promise<void> | undefined;
  /** Names of the databases handed out, for the db-restart fault's `terminate` mode. */
  private readonly databaseNames = new Set<string>();

  constructor(private readonly parts: ProxiedEnvironmentParts) {
    this.provider = parts.provider;
    this.runId = parts.runId;
    this.adminUrl = parts.adminUrl;
    this.toxiproxyUrl = parts.toxiproxyUrl;
    this.toxiproxy = new Toxiproxy(parts.toxiproxyUrl);
  }

  async describe(): Promise<EnvironmentDescription> {
    const postgresVersion = await withAdminClient(this.adminUrl, async (client) => {
      const result = await client.query<{ server_version: string }>('SHOW server_version');
      return result.rows[0]?.server_version ?? 'unknown';
    });
    const toxiproxyVersion = await this.toxiproxy.getVersion();
    return {
      provider: this.provider,
      runId: this.runId,
      adminUrl: redactUrl(this.adminUrl),
      toxiproxyUrl: this.toxiproxyUrl,
      postgresVersion,
      toxiproxyVersion: String(toxiproxyVersion).trim(),
    };
  }

  async createDatabase(): Promise<RunDatabase> {
    this.assertRunning();
    const database = await this.parts.databases.create();
    this.databaseNames.add(database.name);
    return database;
  }

  async restartDatabase(options: RestartDatabaseOptions): Promise<DatabaseRestart> {
    this.assertRunning();
    const downMs = Math.max(0, options.downMs ?? 0);
    if (options.mode === 'terminate') {
      const terminated = await terminateBackends(this.adminUrl, [...this.databaseNames], downMs);
      return { mode: 'terminate', terminated };
    }
    if (this.parts.restartServer === undefined) {
      throw new EnvironmentError(
        `db-restart mode 'restart' needs a server leaseproof owns: only the embedded ` +
          `environment (--env embedded) can restart PostgreSQL. The ${this.provider} ` +
          `environment supports mode 'terminate' (every connection dropped, as in a failover).`,
      );
    }
    const { before, after } = await this.parts.restartServer(downMs);
    return { mode: 'restart', serverPid: { before, after } };
  }

  async createProxy(name: string): Promise<DatabaseProxy> {
    this.assertRunning();
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) {
      throw new EnvironmentError(`proxy name "${name}" may hold only letters, digits, _ . -`);
    }
    let slot = 0;
    while (this.slotsInUse.has(slot)) slot += 1;
    const placement = this.parts.placeProxy(slot);
    // `<runId>_w1` while only one run asks for w1; a second one alive at once gets `_w1-2`.
    const base = `${this.runId}_${name}`;
    let unique = base;
    for (let n = 2; this.namesInUse.has(unique); n += 1) unique = `${base}-${n}`;
    this.slotsInUse.add(slot);
    this.namesInUse.add(unique);
    const release = (): void => {
      this.slotsInUse.delete(slot);
      this.namesInUse.delete(unique);
    };
    try {
      const proxy = await ToxiproxyDatabaseProxy.create({
        toxiproxy: this.toxiproxy,
        name: unique,
        upstream: this.parts.upstream,
        placement,
        credentialsUrl: this.adminUrl,
        onRemoved: release,
      });
      this.proxies.push(proxy);
      return proxy;
    } catch (error) {
      release();
      throw error;
    }
  }

  async stop(): Promise<void> {
    this.stopping ??= (async () => {
      // Every step runs even when an earlier one fails: a proxy server that is already gone
      // must not keep the database server running.
      const errors: unknown[] = [];
      const attempt = async (step: () => Promise<void>): Promise<void> => {
        await step().catch((error: unknown) => errors.push(error));
      };
      for (const proxy of this.proxies) await attempt(() => proxy.remove());
      await attempt(() => this.parts.databases.dropAll());
      for (const release of [...this.parts.releasers].reverse()) await attempt(release);
      if (errors.length > 0) {
        throw new EnvironmentError(`stopping the ${this.provider} environment failed`, {
          cause: errors[0],
        });
      }
    })();
    return this.stopping;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  private assertRunning(): void {
    if (this.stopping !== undefined) {
      throw new EnvironmentError(`the ${this.provider} environment ${this.runId} is stopped`);
    }
  }
}

/**
 * Terminates every backend connected to `databases` but the caller's own, keeping the databases
 * closed to new connections for `downMs` first (so a reconnecting client fails until then, as
 * while a replica is promoted). Returns how many backends were terminated. The databases are
 * reopened whatever happens: a database left closed would fail every later run step.
 */
async function terminateBackends(
  adminUrl: string,
  databases: string[],
  downMs: number,
): Promise<number> {
  if (databases.length === 0) return 0;
  const allow = (value: boolean) =>
    withAdminClient(adminUrl, async (client) => {
      for (const name of databases) {
        await client.query(
          `DO $$ BEGIN IF EXISTS (SELECT FROM pg_database WHERE datname = ${literal(name)}) ` +
            `THEN ALTER DATABASE ${identifier(name)} ALLOW_CONNECTIONS ${value}; END IF; END $$`,
        );
      }
    });
  const terminate = () =>
    withAdminClient(adminUrl, async (client) => {
      const result = await client.query<{ n: number }>(
        `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
          WHERE datname = ANY($1) AND pid <> pg_backend_pid()`,
        [databases],
      );
      return result.rows[0]?.n ?? 0;
    });
  if (downMs <= 0) return terminate();
  await allow(false);
  try {
    const terminated = await terminate();
    await sleep(downMs);
    return terminated;
  } finally {
    await allow(true);
  }
}

/** A SQL string literal. */
function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** A quoted SQL identifier (an as-is database may have any name). */
function identifier(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}
