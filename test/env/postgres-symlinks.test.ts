import { chmod, mkdir, mkdtemp, readlink, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hydratePostgresSymlinks } from '../../src/env/postgres-symlinks.js';
import { EnvironmentError } from '../../src/errors.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) {
    await chmod(join(dir, 'native', 'lib'), 0o755).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
  dir = undefined;
});

/** A platform package as npm unpacks it: the libraries, their links only listed. */
async function unpackedPackage(): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'leaseproof-pgpkg-'));
  await mkdir(join(dir, 'native', 'lib'), { recursive: true });
  await writeFile(join(dir, 'native', 'lib', 'libpq.so.5.18'), 'library');
  await writeFile(
    join(dir, 'native', 'pg-symlinks.json'),
    JSON.stringify([
      { source: 'native/lib/libpq.so.5.18', target: 'native/lib/libpq.so.5' },
      { source: 'native/lib/libpq.so.5.18', target: 'native/lib/libpq.so' },
    ]),
  );
  return dir;
}

describe('hydratePostgresSymlinks', () => {
  it('makes the links the install script would have, relative, once', async () => {
    const pkg = await unpackedPackage();
    expect(await hydratePostgresSymlinks(pkg)).toBe(2);
    expect(await readlink(join(pkg, 'native', 'lib', 'libpq.so.5'))).toBe('libpq.so.5.18');
    expect(await readFile(join(pkg, 'native', 'lib', 'libpq.so'), 'utf8')).toBe('library');
    expect(await hydratePostgresSymlinks(pkg)).toBe(0);
  });

  it('does nothing for a package without the list', async () => {
    dir = await mkdtemp(join(tmpdir(), 'leaseproof-pgpkg-'));
    expect(await hydratePostgresSymlinks(dir)).toBe(0);
  });

  it.skipIf(process.getuid?.() === 0)(
    'says what to do when the install cannot be written (root ignores modes: skipped)',
    async () => {
      const pkg = await unpackedPackage();
      await chmod(join(pkg, 'native', 'lib'), 0o555);
      const error = await hydratePostgresSymlinks(pkg).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EnvironmentError);
      expect((error as Error).message).toMatch(/libpq\.so\.5 is missing and cannot be made/);
    },
  );
});
