import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { EnvironmentError } from '../errors.js';
import { runTool } from './run-tool.js';

/** Options for installing npm packages into a folder of `.tools/`. */
export interface NpmToolsOptions {
  /** Project root holding `.tools/` (default: the current directory). */
  projectRoot?: string;
  /** Progress lines for a person. */
  log?: (line: string) => void;
  /** The npm command (default `LEASEPROOF_NPM`, else `npm` on PATH). */
  npm?: string;
}

// Written into the folder once its packages are in: a half-made one has none.
const STAMP = 'leaseproof-packages.txt';

/**
 * Installs exact npm packages (`name@version`) into `<root>/<dir>/node_modules` with the ordinary
 * npm client, on first need, never into the project's own node_modules: a library version the
 * project does not depend on (pg-boss 12, which needs Node 22) or a tool binary (Node 22 itself,
 * from the registry's `node-<platform>-<arch>` packages). Install scripts are not run and not
 * needed (npm 11 does not run them unless approved). Instant once made; made again when the
 * package list changes. Two processes making it at once each install a private copy and the first
 * rename wins, as for the Python environment. Returns the folder.
 */
export async function ensureNpmTools(
  dir: string,
  packages: readonly string[],
  options: NpmToolsOptions = {},
): Promise<string> {
  const target = resolve(options.projectRoot ?? '.', dir);
  const wanted = `${packages.join('\n')}\n`;
  const stamp = (): Promise<string | undefined> =>
    readFile(join(target, STAMP), 'utf8').catch(() => undefined);
  if ((await stamp()) === wanted) return target;

  const log = options.log ?? (() => undefined);
  const npm = options.npm ?? process.env.LEASEPROOF_NPM ?? 'npm';
  const stage = `${target}.stage-${process.pid}`;
  log(`installing ${packages.join(', ')} from the npm registry into ${target}`);
  try {
    await rm(stage, { recursive: true, force: true });
    await mkdir(stage, { recursive: true });
    // Run inside the stage, so that no .npmrc or workspace of the project changes what lands.
    await runTool(
      npm,
      [
        'install',
        '--prefix',
        stage,
        '--no-save',
        '--no-package-lock',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        ...packages,
      ],
      { cwd: stage, tailLines: 8 },
    ).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new EnvironmentError(
          `installing ${packages.join(', ')} needs npm, and "${npm}" could not be started ` +
            '(put npm on PATH, or set LEASEPROOF_NPM to its path)',
        );
      }
      throw error;
    });
    await writeFile(join(stage, STAMP), wanted);
    // Programs may be running from a current folder: it is never replaced, only a stale one.
    if ((await stamp()) === wanted) return target;
    await rm(target, { recursive: true, force: true });
    await rename(stage, target).catch(async (error: unknown) => {
      if ((await stamp()) !== wanted) throw error;
    });
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
  log(`  installed ${target}`);
  return target;
}
