import { randomBytes } from 'node:crypto';
import type { StartedTestContainer } from 'testcontainers';
import type { EnvironmentProvider, StartedEnvironment } from './types.js';
import type { ProxyPlacement } from './database-proxy.js';
import { ProxiedEnvironment } from './proxied-environment.js';
import { formatDatabaseUrl, redactUrl } from './database-url.js';
import { probeDockerEngine } from './docker-engine.js';
import { RunDatabases } from './run-databases.js';
import { newRunId } from './run-id.js';
import { EnvironmentError } from '../errors.js';

/** The PostgreSQL image the containers provider starts; docker-compose.yml pins the same. */
export const POSTGRES_IMAGE = 'postgres:17-alpine';

/** The Toxiproxy image; its tag is the release `toxiproxy-install.ts` builds (v2.5.0). */
export const TOXIPROXY_IMAGE = 'ghcr.io/shopify/toxiproxy:2.5.0';

/** The name Toxiproxy uses to reach PostgreSQL on the containers' network. */
export const POSTGRES_NETWORK_ALIAS = 'postgres';

/**
 * The proxy ports the `@testcontainers/toxiproxy` container publishes: 8666 and the 31 after it.
 * A proxy must listen on one of them, or no client outside the container could reach it.
 */
export const TOXIPROXY_PROXY_PORTS: readonly number[] = Array.from(
  { length: 32 },
  (_, i) => 8666 + i,
);

/** Label on every container of a run, so that leftovers can be found by run id. */
export const RUN_ID_LABEL = 'leaseproof.run-id';

const POSTGRES_PORT = 5432;
const TOXIPROXY_API_PORT = 8474;

/**
 * The same trade as the embedded server: durability for speed (nothing here must survive a
 * power cut), and connections for many workers, each with a heartbeat connection, plus
 * Toxiproxy's half-open ones.
 */
const POSTGRES_SETTINGS: Record<string, string> = {
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  max_connections: '300',
};

/** Options of the containers provider. */
export interface ContainersEnvironmentOptions {
  /** PostgreSQL image (default `POSTGRES_IMAGE`). */
  postgresImage?: string;
  /** Toxiproxy image (default `TOXIPROXY_IMAGE`). */
  toxiproxyImage?: string;
  /** Run id (default: a new one). */
  runId?: string;
  /** Progress lines for a person; never given a password. */
  log?: (line: string) => void;
}

/**
 * PostgreSQL and Toxiproxy in Docker containers on one network, started with testcontainers.
 * testcontainers' reaper removes the containers even when this process is killed before
 * `stop()`, so a SIGKILLed run leaves nothing behind either.
 */
export class ContainersEnvironmentProvider implements EnvironmentProvider {
  readonly name = 'containers' as const;

  constructor(private readonly options: ContainersEnvironmentOptions = {}) {}

  async start(): Promise<StartedEnvironment> {
    const postgresImage = this.options.postgresImage ?? POSTGRES_IMAGE;
    const toxiproxyImage = this.options.toxiproxyImage ?? TOXIPROXY_IMAGE;
    const runId = this.options.runId ?? newRunId();
    const log = this.options.log ?? (() => undefined);

    // Asked first, so that the common failure gets a one-line answer instead of whatever the
    // first Docker call happens to throw.
    const engine = await probeDockerEngine();
    if (!engine.available) {
      throw new EnvironmentError(
        `--env containers needs a Docker engine, and ${engine.reason}. Install and start ` +
          `Docker (check with "docker info"), or run with --env embedded, which needs no Docker.`,
      );
    }

    const releasers: (() => Promise<void>)[] = [];
    try {
      // Loaded here, not at the top: the other providers must not load testcontainers.
      const { Network } = await import('testcontainers');
      const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
      const { ToxiProxyContainer } = await import('@testcontainers/toxiproxy');

      const network = await new Network().start();
      releasers.push(() => release('network', network, runId));

      log(`starting ${postgresImage}`);
      // Random, not the module's "test": the server is reachable from the host while it runs.
      const password = randomBytes(18).toString('base64url');
      const postgres = await new PostgreSqlContainer(postgresImage)
        .withDatabase('postgres')
        .withUsername('postgres')
        .withPassword(password)
        .withCommand([
          'postgres',
          ...Object.entries(POSTGRES_SETTINGS).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
        ])
        // Nothing in a run's databases outlives the run; memory is faster than the overlay fs.
        .withTmpFs({ '/var/lib/postgresql/data': 'rw' })
        .withNetwork(network)
        .withNetworkAliases(POSTGRES_NETWORK_ALIAS)
        .withLabels({ [RUN_ID_LABEL]: runId })
        .start();
      releasers.push(() => release('PostgreSQL container', postgres, runId));
      const adminUrl = formatDatabaseUrl({
        host: postgres.getHost(),
        port: postgres.getPort(),
        user: 'postgres',
        password,
        database: 'postgres',
      });
      log(`PostgreSQL ready at ${redactUrl(adminUrl)}`);

      log(`starting ${toxiproxyImage}`);
      const toxiproxy = await new ToxiProxyContainer(toxiproxyImage)
        .withNetwork(network)
        .withLabels({ [RUN_ID_LABEL]: runId })
        .start();
      releasers.push(() => release('Toxiproxy container', toxiproxy, runId));
      const apiHost = urlHost(toxiproxy.getHost());
      const toxiproxyUrl = `http://${apiHost}:${toxiproxy.getMappedPort(TOXIPROXY_API_PORT)}`;
      log(`Toxiproxy ready at ${toxiproxyUrl}`);

      return new ProxiedEnvironment({
        provider: 'containers',
        runId,
        adminUrl,
        toxiproxyUrl,
        upstream: `${POSTGRES_NETWORK_ALIAS}:${POSTGRES_PORT}`,
        placeProxy: (index) => placeProxy(toxiproxy, index),
        databases: new RunDatabases({ adminUrl, runId }),
        releasers,
      });
    } catch (error) {
      for (const releaser of releasers.reverse()) await releaser().catch(() => undefined);
      throw new EnvironmentError(
        `could not start the containers environment (${postgresImage}, ${toxiproxyImage}): ` +
          `${redactUrl(error instanceof Error ? error.message : String(error))}. Check that ` +
          `Docker is running and can pull these images ("docker pull ${postgresImage}"), or ` +
          `run with --env embedded, which needs no Docker.`,
        { cause: error },
      );
    }
  }
}

/**
 * The n-th proxy gets the n-th published port. Counting is enough, with no need to ask which
 * ports are free: this Toxiproxy container belongs to this environment alone.
 */
function placeProxy(toxiproxy: StartedTestContainer, index: number): ProxyPlacement {
  const port = TOXIPROXY_PROXY_PORTS[index];
  if (port === undefined) {
    throw new EnvironmentError(
      `all ${TOXIPROXY_PROXY_PORTS.length} proxy ports the Toxiproxy container publishes are ` +
        `in use; run fewer workers with --env containers, or use --env embedded, which has ` +
        `no such limit.`,
    );
  }
  // 0.0.0.0, not loopback: Docker forwards a published port to the container's network
  // interface, where a proxy bound to 127.0.0.1 would never see the connection.
  return {
    listen: `0.0.0.0:${port}`,
    reach: () => ({ host: toxiproxy.getHost(), port: toxiproxy.getMappedPort(port) }),
  };
}

async function release(
  what: string,
  resource: { stop(): Promise<unknown> },
  runId: string,
): Promise<void> {
  try {
    await resource.stop();
  } catch (error) {
    throw new EnvironmentError(
      `could not remove the ${what} of run ${runId}; remove leftovers with ` +
        `docker rm -f $(docker ps -aq --filter label=${RUN_ID_LABEL}=${runId})`,
      { cause: error },
    );
  }
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
