import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EnvironmentError } from '../errors.js';
import { runTool, ToolFailedError } from './run-tool.js';

/** leaseproof's Python client (`clients/python`), shipped with the package. */
export const PYTHON_CLIENT_DIR = fileURLToPath(new URL('../../clients/python/', import.meta.url));

/** Where the project's own install puts the virtual environment, relative to the project root. */
export const PYTHON_TOOLS_DIR = join('.tools', 'python');

// Written into the environment once its packages are in: a half-made one has none.
const STAMP = 'leaseproof-requirements.txt';

/** Options for finding or making the Python environment. */
export interface PythonInstallOptions {
  /** Project root holding `.tools/` (default: the current directory). */
  projectRoot?: string;
  /** The Python that makes the environment (default `LEASEPROOF_PYTHON`, else `python3`). */
  python?: string;
  /** Progress lines for a person. */
  log?: (line: string) => void;
}

/**
 * The Python that runs worker programs: a virtual environment in `.tools/python` holding the
 * client's requirements (`clients/python/requirements.txt`, pinned), made on first need with
 * `python3 -m venv` and pip. Instant once made; made again when the requirements change. Two
 * processes making it at once each build a private copy and the first rename wins.
 */
export async function ensurePythonEnvironment(options: PythonInstallOptions = {}): Promise<string> {
  const root = resolve(options.projectRoot ?? '.');
  const target = resolve(root, PYTHON_TOOLS_DIR);
  const python = join(target, 'bin', 'python');
  const requirements = await readFile(join(PYTHON_CLIENT_DIR, 'requirements.txt'), 'utf8');
  const stamp = await readFile(join(target, STAMP), 'utf8').catch(() => undefined);
  if (stamp === requirements) return python;

  const log = options.log ?? (() => undefined);
  const base = options.python ?? process.env.LEASEPROOF_PYTHON ?? 'python3';
  const stage = `${target}.stage-${process.pid}`;
  log(`making the Python environment for worker programs in ${target}`);
  try {
    await rm(stage, { recursive: true, force: true });
    await run(base, ['-m', 'venv', stage], missingPython(base));
    await run(
      join(stage, 'bin', 'python'),
      [
        '-m',
        'pip',
        'install',
        '--quiet',
        '--disable-pip-version-check',
        '-r',
        join(PYTHON_CLIENT_DIR, 'requirements.txt'),
      ],
      undefined,
    );
    await writeFile(join(stage, STAMP), requirements);
    // Another process may have made it meanwhile, and programs may be running from it: a current
    // environment is never replaced, only a stale one.
    if ((await readFile(join(target, STAMP), 'utf8').catch(() => undefined)) === requirements) {
      return python;
    }
    await rm(target, { recursive: true, force: true });
    await rename(stage, target).catch(async (error: unknown) => {
      if ((await readFile(join(target, STAMP), 'utf8').catch(() => undefined)) !== requirements) {
        throw error;
      }
    });
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
  log(`  made ${target}`);
  return python;
}

function missingPython(python: string): EnvironmentError {
  return new EnvironmentError(
    `a Python worker program needs Python 3 with venv, and "${python}" could not make a virtual ` +
      'environment (Debian/Ubuntu: apt-get install python3 python3-venv; or set LEASEPROOF_PYTHON ' +
      'to a Python 3.9+ executable)',
  );
}

async function run(file: string, args: string[], whenMissing: Error | undefined): Promise<void> {
  await runTool(file, args, { tailLines: 8 }).catch((error: unknown) => {
    if (whenMissing === undefined) throw error;
    // Not started at all, or a Python without venv: say what to install.
    if (!(error instanceof ToolFailedError)) throw whenMissing;
    if (/venv|ensurepip/.test(error.stderrTail)) {
      throw new EnvironmentError(`${whenMissing.message}\n${error.stderrTail}`);
    }
    throw error;
  });
}
