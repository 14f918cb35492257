import { parse as parseConnectionString } from 'pg-connection-string';
import { ConfigError } from '../errors.js';

/** The parts of a PostgreSQL connection URL that the harness needs. */
export interface DatabaseUrlParts {
  /** Host name or address, or a Unix socket directory such as `/var/run/postgresql`. */
  host: string;
  /** TCP port (or the socket file's port number). */
  port: number;
  /** User name. */
  user: string;
  /** Password, empty when none. */
  password: string;
  /** Database name. */
  database: string;
}

/** What `withDatabaseUrl` may change: the database, and the host and port (to go via a proxy). */
export type DatabaseUrlChanges = Partial<Pick<DatabaseUrlParts, 'database' | 'host' | 'port'>>;

const EXPECTED =
  'expected postgres://user:password@host:5432/database, optionally with ?sslmode=… and other ' +
  'parameters, or a socket host such as postgres://user@%2Fvar%2Frun%2Fpostgresql/database';

// pg, like libpq, lets these query parameters override the host and port in the authority, so a
// URL moved onto a proxy must lose them or its clients would bypass the proxy.
const HOST_AND_PORT_PARAMETERS = ['host', 'hostaddr', 'port'];

// Stands in for an empty host (`postgres://user@/db?host=/tmp`), which pg accepts and the WHATWG
// URL parser does not; the same trick pg-connection-string uses.
const EMPTY_HOST = 'leaseproof-empty-host.invalid';

/**
 * Parses a `postgres://` URL as node-postgres reads it (`pg-connection-string`), so what this
 * returns is what a client connects to: a `?host=` parameter wins over the authority and a
 * `%2F`-encoded host is a socket directory. Throws a `ConfigError` that names `source`
 * (e.g. `DATABASE_URL`) and shows the expected shape; the message never contains the password.
 */
export function parseDatabaseUrl(url: string, source: string): DatabaseUrlParts {
  checkScheme(url, source);
  let parsed: ReturnType<typeof parseConnectionString>;
  try {
    parsed = parseConnectionString(url);
  } catch (error) {
    // Also reached when an sslcert/sslkey/sslrootcert file it names cannot be read.
    throw new ConfigError(
      `${source} cannot be read as a PostgreSQL URL (${EXPECTED}): ` +
        redactUrl(error instanceof Error ? error.message : String(error)),
      { cause: error },
    );
  }
  const host = parsed.host ?? '';
  if (host === '') throw new ConfigError(`${source} has no host (${EXPECTED})`);
  const portText = parsed.port ?? '';
  const port = portText === '' ? 5432 : Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new ConfigError(`${source} has port "${portText}"; expected a number from 1 to 65535`);
  }
  return {
    host,
    port,
    user: parsed.user || 'postgres',
    password: parsed.password ?? '',
    database: parsed.database || 'postgres',
  };
}

/** Builds a `postgres://` URL from its parts. */
export function formatDatabaseUrl(parts: DatabaseUrlParts): string {
  const auth =
    parts.password === ''
      ? encodeURIComponent(parts.user)
      : `${encodeURIComponent(parts.user)}:${encodeURIComponent(parts.password)}`;
  const host = parts.host.startsWith('/')
    ? encodeURIComponent(parts.host)
    : parts.host.includes(':')
      ? `[${parts.host}]`
      : parts.host;
  return `postgres://${auth}@${host}:${parts.port}/${encodeURIComponent(parts.database)}`;
}

/**
 * The same URL with another database (and, for a proxy, another host and port). Everything else
 * is kept as the user wrote it: user, password with its percent-encoding, socket host, and every
 * query parameter (`sslmode=require`, `application_name`, `options`, …).
 */
export function withDatabaseUrl(
  url: string,
  changes: DatabaseUrlChanges,
  source = 'database URL',
): string {
  // Parsing first gives the same checks and messages as everywhere else.
  parseDatabaseUrl(url, source);
  const { parsed, emptyHost } = toWhatwgUrl(url, source);
  if (changes.database !== undefined) {
    parsed.pathname = `/${encodeURIComponent(changes.database)}`;
  }
  if (changes.host !== undefined || changes.port !== undefined) {
    for (const name of HOST_AND_PORT_PARAMETERS) {
      // Touching searchParams re-serialises the whole query, so only when there is one to drop.
      if (parsed.searchParams.has(name)) parsed.searchParams.delete(name);
    }
  }
  if (changes.host !== undefined) {
    parsed.hostname = changes.host.includes(':') ? `[${changes.host}]` : changes.host;
  }
  if (changes.port !== undefined) parsed.port = String(changes.port);
  const text = parsed.href;
  return emptyHost && parsed.hostname === EMPTY_HOST ? text.replace(`@${EMPTY_HOST}`, '@') : text;
}

/**
 * Replaces the password in any URL-looking text with `***`, so a URL can be logged, printed or
 * written into a report. Works on text that does not parse as a URL too.
 */
export function redactUrl(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*:)([^@\s]*)@/gi, '$1***@');
}

function checkScheme(url: string, source: string): void {
  // pg-connection-string resolves anything against postgres://base, so "not a url" would parse.
  if (/^postgres(?:ql)?:\/\//i.test(url)) return;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
  if (scheme === undefined) {
    throw new ConfigError(`${source} is not a URL (${EXPECTED}); got "${redactUrl(url)}"`);
  }
  throw new ConfigError(
    `${source} must use the postgres:// scheme (${EXPECTED}); got "${scheme}://…"`,
  );
}

function toWhatwgUrl(url: string, source: string): { parsed: URL; emptyHost: boolean } {
  const atEmptyHost = /^([a-z]+:\/\/[^/?#]*@)(?=[/?#]|$)/i;
  const emptyHost = atEmptyHost.test(url);
  const text = emptyHost ? url.replace(atEmptyHost, `$1${EMPTY_HOST}`) : url;
  try {
    return { parsed: new URL(text), emptyHost };
  } catch (error) {
    throw new ConfigError(`${source} is not a URL (${EXPECTED}); got "${redactUrl(url)}"`, {
      cause: error,
    });
  }
}
