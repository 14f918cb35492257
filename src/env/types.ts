/**
 * The environment contract: where the database and the proxy server come from.
 *
 * A provider's `start()` returns a started environment (testcontainers' shape: a `start()` that
 * returns a started thing whose `stop()` is idempotent and is also `[Symbol.asyncDispose]`), so a
 * caller writes `await using env = await provider.start()`. A started environment owns every
 * server, database and proxy it made and removes them on `stop()`, also after a failure.
 */

/** The three ways to get a PostgreSQL server and a Toxiproxy server. */
export type ProviderName = 'embedded' | 'external' | 'containers';

/** Something that can start an environment. */
export interface EnvironmentProvider {
  /** Which provider this is. */
  readonly name: ProviderName;
  /** Starts (or connects to) the servers; throws an `EnvironmentError` that says how to fix it. */
  start(): Promise<StartedEnvironment>;
}

/** A running environment: a PostgreSQL server reachable directly and through Toxiproxy. */
export interface StartedEnvironment extends AsyncDisposable {
  /** Which provider started it. */
  readonly provider: ProviderName;
  /** Identifies this run; databases and proxies it creates are named after it. */
  readonly runId: string;
  /**
   * Connection URL of the server's maintenance database, as a superuser or owner. It holds the
   * password: print it only through `redactUrl`.
   */
  readonly adminUrl: string;
  /** The Toxiproxy HTTP API, e.g. `http://127.0.0.1:8474`. */
  readonly toxiproxyUrl: string;
  /** Versions and redacted addresses, for history headers, `env status` and logs. */
  describe(): Promise<EnvironmentDescription>;
  /**
   * Creates a fresh database named `leaseproof_<runId>_<n>` that this environment owns and drops
   * on `stop()`. Where the environment was given a database to use as is
   * (`--i-own-this-database`), returns that one instead and never drops it.
   */
  createDatabase(): Promise<RunDatabase>;
  /**
   * Creates a Toxiproxy proxy in front of PostgreSQL, named `<runId>_<name>`: one per worker, so
   * a fault can cut one worker off while the others carry on. Removed on `stop()`.
   */
  createProxy(name: string): Promise<DatabaseProxy>;
  /**
   * The db-restart fault: restarts the PostgreSQL server (`restart`, embedded only: the data
   * survives, the postmaster is a new process), or terminates every backend of this
   * environment's databases (`terminate`, every provider: a failover as clients see it). The
   * database stays unreachable for `downMs` either way. Throws an `EnvironmentError` naming the
   * providers that support a mode this one does not.
   */
  restartDatabase?(options: RestartDatabaseOptions): Promise<DatabaseRestart>;
  /** Stops everything this environment started; safe to call more than once. */
  stop(): Promise<void>;
}

/** How to restart the database (see `StartedEnvironment.restartDatabase`). */
export interface RestartDatabaseOptions {
  /** `restart`: stop and start the server; `terminate`: drop every connection to the run databases. */
  mode: 'restart' | 'terminate';
  /**
   * How long the database stays unreachable (default 0). `restart`: the server stays stopped
   * this long. `terminate`: the run databases refuse new connections this long
   * (`ALLOW_CONNECTIONS false`), as while a replica is being promoted.
   */
  downMs?: number;
}

/** What a database restart did. */
export interface DatabaseRestart {
  /** The mode it ran in. */
  mode: 'restart' | 'terminate';
  /** How many backends were terminated (`terminate`). */
  terminated?: number;
  /** The postmaster's pid before and after (`restart`, where the provider knows it). */
  serverPid?: { before: number | undefined; after: number | undefined };
}

/** Versions and redacted addresses of a started environment. */
export interface EnvironmentDescription {
  /** Which provider started it. */
  provider: ProviderName;
  /** The run id. */
  runId: string;
  /** `adminUrl` with the password replaced by `***`. */
  adminUrl: string;
  /** The Toxiproxy API URL. */
  toxiproxyUrl: string;
  /** `SHOW server_version`. */
  postgresVersion: string;
  /** `GET /version` of the Toxiproxy API. */
  toxiproxyVersion: string;
}

/** A database that a run uses. */
export interface RunDatabase {
  /** The database name. */
  readonly name: string;
  /** Direct connection URL (not through a proxy). Holds the password. */
  readonly url: string;
  /** Whether this environment created it and will drop it. */
  readonly owned: boolean;
  /** Drops it if this environment owns it; idempotent. */
  drop(): Promise<void>;
}

/** Which direction of a proxied connection a toxic acts on. */
export type ToxicStream = 'upstream' | 'downstream';

/** The toxic types Toxiproxy implements. */
export type ToxicType =
  'latency' | 'bandwidth' | 'slow_close' | 'timeout' | 'reset_peer' | 'slicer' | 'limit_data';

/** A toxic to add to a proxy, in Toxiproxy's own terms. */
export interface ToxicSpec {
  /** Unique name on the proxy; used to remove it. */
  name: string;
  /** The toxic type. */
  type: ToxicType;
  /** `upstream` acts on client→server bytes, `downstream` on server→client bytes. */
  stream: ToxicStream;
  /** Probability the toxic applies to a connection, 0..1 (default 1). */
  toxicity?: number;
  /** Type-specific attributes, e.g. `{ timeout: 0 }` or `{ latency: 100, jitter: 10 }`. */
  attributes: Record<string, number>;
}

/** One Toxiproxy proxy in front of PostgreSQL. */
export interface DatabaseProxy {
  /** The proxy's name on the Toxiproxy server. */
  readonly name: string;
  /** Host a client uses to reach the proxy's listening port. */
  readonly host: string;
  /** Port a client uses to reach the proxy. */
  readonly port: number;
  /** The connection URL for `database` through this proxy (holds the password). */
  urlFor(database: RunDatabase | string): string;
  /** Adds a toxic. */
  addToxic(toxic: ToxicSpec): Promise<void>;
  /** Removes a toxic by name; removing one that is not there is not an error. */
  removeToxic(name: string): Promise<void>;
  /** Enables or disables the proxy; a disabled proxy refuses connections and drops open ones. */
  setEnabled(enabled: boolean): Promise<void>;
  /** Removes every toxic and re-enables the proxy: "heal everything". */
  heal(): Promise<void>;
  /** Deletes the proxy from the server; idempotent. */
  remove(): Promise<void>;
}
