import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Every file under `dir` whose name `accept` takes, in a stable order (names sorted at each
 * level): what a toolchain build's cache key hashes, so the same sources give the same key.
 */
export async function sourceFiles(
  dir: string,
  accept: (name: string) => boolean = () => true,
): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await sourceFiles(path, accept)));
    else if (accept(entry.name)) files.push(path);
  }
  return files;
}

/** Whether `file` exists (a built program in the cache). */
export async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
