import { basename } from 'node:path';
import { ConfigError } from '../errors.js';
import { closest } from '../suggest.js';
import { SHIPPED_SCENARIOS, exists, shownPath, yamlFiles } from './scenario-folder.js';

/**
 * The scenario files `run` was given, each a file or the name of a scenario (`pause-past-lease`)
 * of the project's `./scenarios` or, failing that, of the ones shipped with leaseproof.
 * Anything else fails here, before anything starts, with a did-you-mean when a file or a
 * name is close.
 */
export async function resolveScenarioArgs(
  args: readonly string[],
  log: (line: string) => void,
): Promise<string[]> {
  const files: string[] = [];
  const shipped: string[] = [];
  for (const arg of args) {
    if (await exists(arg)) files.push(arg);
    else if (/[\\/]/.test(arg) || /\.ya?ml$/.test(arg)) throw await noSuchFile(arg);
    else {
      const file = await scenarioNamed(arg);
      files.push(file);
      if (file.startsWith(SHIPPED_SCENARIOS)) shipped.push(arg);
    }
  }
  if (shipped.length > 0) {
    log(
      `using ${shipped.join(', ')} as shipped with leaseproof at ${shownPath(SHIPPED_SCENARIOS)}`,
    );
  }
  return files;
}

/** The scenarios `run` knows by name, each with its file: the project's first, then the shipped. */
async function namedScenarios(): Promise<{ folders: string[]; files: Map<string, string> }> {
  const folders = (await exists('scenarios'))
    ? ['scenarios', SHIPPED_SCENARIOS]
    : [SHIPPED_SCENARIOS];
  const files = new Map<string, string>();
  for (const dir of folders) {
    for (const file of await yamlFiles(dir).catch(() => [])) {
      const name = basename(file).replace(/\.ya?ml$/, '');
      if (!files.has(name)) files.set(name, file);
    }
  }
  return { folders, files };
}

async function scenarioNamed(name: string): Promise<string> {
  const { folders, files } = await namedScenarios();
  const file = files.get(name);
  if (file !== undefined) return file;
  const guess = closest(name, [...files.keys()]);
  throw new ConfigError(
    `no scenario file or scenario named "${name}"` +
      (guess === undefined
        ? ` (leaseproof list names the scenarios in ${folders.map(shownPath).join(' and ')})`
        : `; did you mean ${guess}?`),
  );
}

/**
 * A path to no file: a did-you-mean for a YAML file beside it (`.yml` for `.yaml`), else for a
 * scenario of that name (`./pause-past-lease.yaml` in a project that has only the shipped one).
 */
async function noSuchFile(path: string): Promise<ConfigError> {
  const name = basename(path);
  const dir = path.slice(0, path.length - name.length);
  const siblings = (await yamlFiles(dir === '' ? '.' : dir).catch(() => [])).map((f) =>
    basename(f),
  );
  const sibling = closest(name, siblings);
  const named =
    sibling === undefined
      ? closest(name.replace(/\.ya?ml$/, ''), [...(await namedScenarios()).files.keys()])
      : undefined;
  const hint =
    sibling !== undefined
      ? `; did you mean ${dir}${sibling}?`
      : named !== undefined
        ? `; did you mean the scenario ${named} (leaseproof run ${named})?`
        : '';
  return new ConfigError(`no scenario file at ${path}${hint}`);
}
