import { Toxiproxy } from 'toxiproxy-node-client';
import type { EnvironmentProvider, StartedEnvironment } from './types.js';
import type { ProxyPlacement } from './database-proxy.js';
import { ProxiedEnvironment } from './proxied-environment.js';
import { RunDatabases, withAdminClient } from './run-databases.js';
import { newRunId } from './run-id.js';
import { parseDatabaseUrl, redactUrl } from './database-url.js';
import { ConfigError, EnvironmentError } from '../errors.js';

/** The settings of the external provider, normally read from the environment variables. */
export interface ExternalEnvironmentOptions {
  /** `DATABASE_URL`: a server on which leaseproof may create databases. */
  databaseUrl: string;
  /** `TOXIPROXY_URL`: the Toxiproxy API, e.g. `http://127.0.0.1:8474`. */
  toxiproxyUrl: string;
  /**
   * `TOXIPROXY_UPSTREAM`: how Toxiproxy reaches PostgreSQL, when that differs from
   * `DATABASE_URL`'s host and port (Toxiproxy in a container: `postgres:5432`).
   */
  upstream?: string | undefined;
  /** `TOXIPROXY_LISTEN_HOST`: where clients reach proxy ports (default: TOXIPROXY_URL's host). */
  listenHost?: string | undefined;
  /**
   * `TOXIPROXY_LISTEN_PORTS`: a range like `8666-8697` of ports Toxiproxy may listen on and
   * that are published to the harness (containers). Unset: Toxiproxy picks free ports itself.
   */
  listenPorts?: string | undefined;
  /** `--i-own-this-database`: run inside the database named in `databaseUrl`, never drop it. */
  iOwnThisDatabase?: boolean | undefined;
  /** Run id (default: a new one). */
  runId?: string | undefined;
}

/** Reads the external provider's settings from environment variables, if `DATABASE_URL` and `TOXIPROXY_URL` are both set. */
export function externalOptionsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): ExternalEnvironmentOptions | undefined {
  const databaseUrl = env.DATABASE_URL;
  const toxiproxyUrl = env.TOXIPROXY_URL;
  if (!databaseUrl || !toxiproxyUrl) return undefined;
  return {
    databaseUrl,
    toxiproxyUrl,
    upstream: env.TOXIPROXY_UPSTREAM || undefined,
    listenHost: env.TOXIPROXY_LISTEN_HOST || undefined,
    listenPorts: env.TOXIPROXY_LISTEN_PORTS || undefined,
  };
}

/** Parses `8666-8697` (or a single port) into the list of ports. */
export function parsePortRange(text: string, source = 'TOXIPROXY_LISTEN_PORTS'): number[] {
  const match = /^\s*(\d+)\s*(?:-\s*(\d+))?\s*$/.exec(text);
  const first = Number(match?.[1]);
  const last = Number(match?.[2] ?? match?.[1]);
  if (match === null || first < 1 || last > 65535 || last < first) {
    throw new ConfigError(`${source} must be a port or a range like 8666-8697; got "${text}"`);
  }
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

/**
 * Servers someone else runs (docker compose, a CI service, a staging box). leaseproof creates
 * its own `leaseproof_<run id>` databases there and its own proxies, and removes only those.
 */
export class ExternalEnvironmentProvider implements EnvironmentProvider {
  readonly name = 'external' as const;

  constructor(private readonly options: ExternalEnvironmentOptions) {}

  async start(): Promise<StartedEnvironment> {
    const { options } = this;
    const runId = options.runId ?? newRunId();
    const db = parseDatabaseUrl(options.databaseUrl, 'DATABASE_URL');
    const toxiproxyUrl = parseToxiproxyUrl(options.toxiproxyUrl);
    const ports =
      options.listenPorts === undefined ? undefined : parsePortRange(options.listenPorts);
    const listenHost = options.listenHost ?? new URL(toxiproxyUrl).hostname;
    if (options.upstream === undefined && db.host.startsWith('/')) {
      // Toxiproxy proxies TCP only; a socket directory cannot be its upstream.
      throw new ConfigError(
        `DATABASE_URL reaches PostgreSQL through the Unix socket in ${db.host}, which Toxiproxy ` +
          `cannot proxy; set TOXIPROXY_UPSTREAM=host:port to the same server's TCP address`,
      );
    }
    const upstream = options.upstream ?? `${db.host}:${db.port}`;
    if (!/^[^:\s]+:\d+$/.test(upstream)) {
      throw new ConfigError(`TOXIPROXY_UPSTREAM must be host:port; got "${upstream}"`);
    }

    // Both are checked before anything is created, so a typo fails fast and leaves nothing.
    await withAdminClient(options.databaseUrl, (client) => client.query('SELECT 1'));
    try {
      await new Toxiproxy(toxiproxyUrl).getVersion();
    } catch (error) {
      throw new EnvironmentError(
        `TOXIPROXY_URL=${toxiproxyUrl} does not answer (GET /version failed). Is toxiproxy-server ` +
          `running there? (\`docker compose up -d\` starts one; unset DATABASE_URL and ` +
          `TOXIPROXY_URL to use the embedded servers instead)`,
        { cause: error },
      );
    }

    const useAsIs = options.iOwnThisDatabase === true ? db.database : undefined;
    const placeProxy = (index: number): ProxyPlacement => {
      if (ports === undefined) {
        return { listen: `${listenHost}:0`, reach: (address) => address };
      }
      const port = ports[index];
      if (port === undefined) {
        throw new EnvironmentError(
          `all ${ports.length} proxy ports of TOXIPROXY_LISTEN_PORTS=${options.listenPorts} are in use; publish a wider range`,
        );
      }
      return { listen: `0.0.0.0:${port}`, reach: () => ({ host: listenHost, port }) };
    };
    return new ProxiedEnvironment({
      provider: 'external',
      runId,
      adminUrl: options.databaseUrl,
      toxiproxyUrl,
      upstream,
      placeProxy,
      databases: new RunDatabases({
        adminUrl: options.databaseUrl,
        runId,
        useAsIs,
        iOwnThisDatabase: options.iOwnThisDatabase,
      }),
      releasers: [],
    });
  }
}

function parseToxiproxyUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(
      `TOXIPROXY_URL is not a URL (expected http://host:8474); got "${redactUrl(text)}"`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`TOXIPROXY_URL must be http:// or https://; got "${url.protocol}//…"`);
  }
  return `${url.protocol}//${url.host}`;
}
