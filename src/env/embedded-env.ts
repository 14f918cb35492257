import type { EnvironmentProvider, StartedEnvironment } from './types.js';
import { StartedEmbeddedPostgres } from './embedded-postgres-server.js';
import { StartedToxiproxyServer } from './toxiproxy-server.js';
import { ProxiedEnvironment } from './proxied-environment.js';
import { RunDatabases } from './run-databases.js';
import { newRunId } from './run-id.js';
import { parseDatabaseUrl } from './database-url.js';
import { reapLeftovers } from './process-registry.js';

/** Options for the embedded provider. */
export interface EmbeddedEnvironmentOptions {
  /** Run id (default: a new one). */
  runId?: string;
  /** Progress lines for a person (the Toxiproxy install says what it is doing). */
  log?: (line: string) => void;
  /** Project root holding `.tools/bin` (default: the current directory). */
  projectRoot?: string;
  /** Extra PostgreSQL settings (`-c name=value`), e.g. `{ log_min_messages: 'debug1' }`. */
  postgresSettings?: Record<string, string>;
}

/**
 * The default: PostgreSQL from the `embedded-postgres` package and a local `toxiproxy-server`,
 * both on free loopback ports, both stopped with the environment.
 */
export class EmbeddedEnvironmentProvider implements EnvironmentProvider {
  readonly name = 'embedded' as const;

  constructor(private readonly options: EmbeddedEnvironmentOptions = {}) {}

  async start(): Promise<StartedEnvironment> {
    const runId = this.options.runId ?? newRunId();
    // Servers left by a leaseproof process that was SIGKILLed are stopped before new ones start.
    await reapLeftovers();
    // Started one after the other, not together: on two cores initdb and a Go binary starting
    // side by side gain little, and a failure of the second must stop the first.
    const toxiproxy = await StartedToxiproxyServer.start({
      runId,
      ...(this.options.log && { log: this.options.log }),
      ...(this.options.projectRoot && { projectRoot: this.options.projectRoot }),
    });
    let postgres: StartedEmbeddedPostgres;
    try {
      postgres = await StartedEmbeddedPostgres.start({
        runId,
        ...(this.options.postgresSettings && { settings: this.options.postgresSettings }),
      });
    } catch (error) {
      await toxiproxy.stop();
      throw error;
    }
    const { port } = parseDatabaseUrl(postgres.adminUrl, 'embedded admin URL');
    return new ProxiedEnvironment({
      provider: 'embedded',
      runId,
      adminUrl: postgres.adminUrl,
      toxiproxyUrl: toxiproxy.url,
      upstream: `127.0.0.1:${port}`,
      // Port 0: Toxiproxy binds a free port itself and reports it, so no port race.
      placeProxy: () => ({ listen: '127.0.0.1:0', reach: (address) => address }),
      databases: new RunDatabases({ adminUrl: postgres.adminUrl, runId }),
      releasers: [() => toxiproxy.stop(), () => postgres.stop()],
      // The one provider that owns its server process and its data outright, so the one that
      // can restart it (the db-restart fault's `restart` mode).
      restartServer: (downMs) => postgres.restart(downMs),
    });
  }
}
