/**
 * Errors for misuse and bad input. Each has a stable `code` (as vitest's errors do) so a caller
 * or a test can branch on the kind of failure without parsing the message, and a message that
 * says what was wrong, where, and what to do about it.
 */

/** Base class of every error leaseproof throws on purpose. */
export class LeaseproofError extends Error {
  /** Stable, machine-readable error code, e.g. `LEASEPROOF_BAD_DATABASE_URL`. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A setting (environment variable, flag or option) has a value that cannot be used. */
export class ConfigError extends LeaseproofError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('LEASEPROOF_CONFIG', message, options);
  }
}

/**
 * The command line itself is wrong: an unknown command or option, a missing argument or value.
 * Nothing was started; the message is one line with a hint (a "did you mean", or `--help`).
 */
export class UsageError extends LeaseproofError {
  constructor(message: string) {
    super('LEASEPROOF_USAGE', message);
  }
}

/** An environment (database, proxy server) could not be started or reached. */
export class EnvironmentError extends LeaseproofError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('LEASEPROOF_ENVIRONMENT', message, options);
  }
}

/** The harness was asked to touch a database it does not own. */
export class UnsafeDatabaseError extends LeaseproofError {
  constructor(message: string) {
    super('LEASEPROOF_UNSAFE_DATABASE', message);
  }
}

/** Renders an error for a person: the message, then each `cause` on its own line. */
export function describeError(error: unknown): string {
  const lines: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 5; depth += 1) {
    if (current instanceof Error) {
      lines.push(depth === 0 ? current.message : `  caused by: ${current.message}`);
      current = current.cause;
    } else {
      const text = typeof current === 'string' ? current : JSON.stringify(current);
      lines.push(depth === 0 ? text : `  caused by: ${text}`);
      current = undefined;
    }
  }
  return lines.join('\n');
}
