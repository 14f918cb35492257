import { readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.js';

/**
 * The scenarios shipped in the package: `scenarios/` at its root, which package.json's `files`
 * publishes. Two levels up from this module both as source (`src/cli/`) and compiled
 * (`dist/cli/`), so it is found wherever the package is installed.
 */
export const SHIPPED_SCENARIOS: string = fileURLToPath(new URL('../../scenarios', import.meta.url));

/** Where a command's scenarios come from. */
export interface ScenarioFolder {
  /** The folder. */
  dir: string;
  /** Given on the command line, the project's `./scenarios`, or the ones shipped with leaseproof. */
  source: 'given' | 'project' | 'shipped';
}

/**
 * The folder a command reads scenarios from: the one given (it must exist); else the
 * project's `./scenarios`; else, in a project without one, the scenarios shipped with
 * leaseproof — so that `npx leaseproof suite` runs something in a project that has none yet.
 */
export async function scenarioFolder(given: string | undefined): Promise<ScenarioFolder> {
  if (given !== undefined) return { dir: given, source: 'given' };
  return (await exists('scenarios'))
    ? { dir: 'scenarios', source: 'project' }
    : { dir: SHIPPED_SCENARIOS, source: 'shipped' };
}

/**
 * The YAML files of a folder, sorted (possibly none); a folder that does not exist is a
 * `ConfigError` naming it.
 */
export async function yamlFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => {
    throw new ConfigError(`no scenario folder at ${resolve(dir)}`);
  });
  return names
    .filter((n) => /\.ya?ml$/.test(n))
    .sort()
    .map((n) => join(dir, n));
}

/** The YAML files of a folder, sorted: the suite. A folder without any is a `ConfigError`. */
export async function scenarioFiles(dir: string): Promise<string[]> {
  const files = await yamlFiles(dir);
  if (files.length === 0) throw new ConfigError(`no .yaml scenario files in ${resolve(dir)}`);
  return files;
}

/**
 * The line that says the shipped scenarios are in use, and how to use one's own instead:
 * `using the 19 scenarios shipped with leaseproof at node_modules/leaseproof/scenarios; add
 * ./scenarios or --scenarios DIR for your own`.
 */
export function shippedNote(count: number, ownFolderHint: string): string {
  return (
    `using the ${count} scenarios shipped with leaseproof at ${shownPath(SHIPPED_SCENARIOS)}; ` +
    `add ./scenarios or ${ownFolderHint} for your own`
  );
}

/**
 * The scenario files of the folder given, or of the default one (see `scenarioFolder`); when
 * that is the shipped one, `log` says so and how to use one's own (`ownFolderHint`).
 */
export async function defaultScenarioFiles(
  given: string | undefined,
  ownFolderHint: string,
  log: (line: string) => void,
): Promise<string[]> {
  const folder = await scenarioFolder(given);
  const files = await scenarioFiles(folder.dir);
  if (folder.source === 'shipped') log(shippedNote(files.length, ownFolderHint));
  return files;
}

/** A path as it is best read: relative to the working directory when under it. */
export function shownPath(path: string): string {
  const shown = relative(process.cwd(), path);
  return shown === '' || shown.startsWith('..') || isAbsolute(shown) ? path : shown;
}

/** Whether anything is at `path`. */
export function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
