import { ConfigError } from '../errors.js';

/** The parts of a PostgreSQL connection URL that the harness needs. */
export interface DatabaseUrlParts {
  /** Host name or address. */
  host: string;
  /** TCP port. */
  port: number;
  /** User name. */
  user: string;
  /** Password, empty when none. */
  password: string;
  /** Database name. */
  database: string;
}

/**
 * Parses a `postgres://` URL, or throws a `ConfigError` that names `source` (e.g. `DATABASE_URL`)
 * and shows the expected shape. The message never contains the password.
 */
export function parseDatabaseUrl(url: string, source: string): DatabaseUrlParts {
  const expected = `expected postgres://user:password@host:5432/database`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`${source} is not a URL (${expected}); got "${redactUrl(url)}"`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new ConfigError(
      `${source} must use the postgres:// scheme (${expected}); got "${parsed.protocol}//…"`,
    );
  }
  if (parsed.hostname === '') {
    throw new ConfigError(`${source} has no host (${expected})`);
  }
  const port = parsed.port === '' ? 5432 : Number(parsed.port);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port,
    user: decodeURIComponent(parsed.username) || 'postgres',
    password: decodeURIComponent(parsed.password),
    database: database === '' ? 'postgres' : database,
  };
}

/** Builds a `postgres://` URL from its parts. */
export function formatDatabaseUrl(parts: DatabaseUrlParts): string {
  const auth =
    parts.password === ''
      ? encodeURIComponent(parts.user)
      : `${encodeURIComponent(parts.user)}:${encodeURIComponent(parts.password)}`;
  const host = parts.host.includes(':') ? `[${parts.host}]` : parts.host;
  return `postgres://${auth}@${host}:${parts.port}/${encodeURIComponent(parts.database)}`;
}

/** The same URL with another database, host or port. */
export function withDatabaseUrl(
  url: string,
  changes: Partial<DatabaseUrlParts>,
  source = 'database URL',
): string {
  return formatDatabaseUrl({ ...parseDatabaseUrl(url, source), ...changes });
}

/**
 * Replaces the password in any URL-looking text with `***`, so a URL can be logged, printed or
 * written into a report. Works on text that does not parse as a URL too.
 */
export function redactUrl(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*:)([^@\s]*)@/gi, '$1***@');
}
