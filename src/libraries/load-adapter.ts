import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { QueueAdapter } from '../queue/types.js';
import { AdapterError } from '../queue/adapter-error.js';
import { adapterDeadline, adapterLoadTimeoutMs } from '../queue/adapter-deadline.js';
import { assertQueueAdapter } from '../queue/validate-adapter.js';
import { builtInQueue, queueNames, versionedQueue } from './registry.js';
import { closest } from '../suggest.js';

/**
 * File types an adapter may be written in, CommonJS or ESM; TypeScript ones need the process to
 * run under tsx's ESM and CommonJS hooks, as the leaseproof CLI and its workers do.
 */
export const ADAPTER_FILE_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'] as const;

// The exports searched for the adapter, in order.
const EXPORT_NAMES = ['default', 'queue', 'adapter'] as const;

/** Options of `loadQueueAdapter`. */
export interface LoadQueueAdapterOptions {
  /** Directory a relative path is resolved against (default `process.cwd()`). */
  cwd?: string;
}

/**
 * Loads the queue under test: a built-in name (`reference`, `unconditional-ack`, …), a library
 * at a version it names (`pg-boss@12`, see `versionedQueue`) or the path
 * of a file whose default export — or export named `queue` or `adapter` — is a `QueueAdapter`
 * or a zero-argument function returning one. Throws an `AdapterError` that names the file and
 * lists everything wrong with it.
 */
export async function loadQueueAdapter(
  nameOrPath: string,
  options: LoadQueueAdapterOptions = {},
): Promise<QueueAdapter> {
  const builtIn = builtInQueue(nameOrPath) ?? versionedQueue(nameOrPath);
  if (builtIn !== undefined) return builtIn;
  if (!looksLikePath(nameOrPath)) {
    const guess = closest(nameOrPath, queueNames());
    throw new AdapterError(
      `unknown queue "${nameOrPath}"${guess === undefined ? '' : ` (did you mean ${guess}?)`}: ` +
        `the built-in queues are ${queueNames().join(', ')}; ` +
        `for your own queue pass the path of an adapter file ` +
        `(${ADAPTER_FILE_EXTENSIONS.join(', ')}), e.g. ./my-queue.ts`,
    );
  }
  const cwd = options.cwd ?? process.cwd();
  const file = resolve(cwd, nameOrPath);
  await checkFile(file, nameOrPath, cwd);
  const module = await adapterDeadline(
    importFile(file),
    adapterLoadTimeoutMs(),
    `importing queue adapter file ${file} (a top-level await that never settles?)`,
  );
  const [exportName, exported] = pickExport(module, file);
  const which = exportName === 'default' ? 'default export' : `export "${exportName}"`;
  const source = `queue adapter file ${file} (${which})`;
  const adapter =
    typeof exported === 'function'
      ? await adapterDeadline(
          callFactory(exported as (...args: unknown[]) => unknown, source),
          adapterLoadTimeoutMs(),
          `the factory of ${source}`,
        )
      : exported;
  assertQueueAdapter(adapter, source);
  return adapter;
}

function looksLikePath(value: string): boolean {
  return isAbsolute(value) || value.startsWith('.') || /[\\/]/.test(value) || extname(value) !== '';
}

async function checkFile(file: string, given: string, cwd: string): Promise<void> {
  const from = given === file ? '' : ` ("${given}" resolved against ${cwd})`;
  const stats = await stat(file).catch(async (error: unknown) => {
    // The message says it all; the system error as its cause would only say it again.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new AdapterError(
        `queue adapter file ${file} does not exist${from}${await nearbyFile(file, given)}`,
      );
    }
    throw new AdapterError(
      `cannot read queue adapter file ${file}${from}: ${(error as Error).message}`,
      { cause: error },
    );
  });
  if (!stats.isFile()) {
    throw new AdapterError(`queue adapter path ${file} is not a file${from}`);
  }
  const extension = extname(file);
  if (!(ADAPTER_FILE_EXTENSIONS as readonly string[]).includes(extension)) {
    throw new AdapterError(
      `queue adapter file ${file} has the extension "${extension}"; expected one of ${ADAPTER_FILE_EXTENSIONS.join(', ')}`,
    );
  }
}

/** `; did you mean ./my-queue.ts?` when an adapter file beside the missing one is a likely typo. */
async function nearbyFile(file: string, given: string): Promise<string> {
  const names = await readdir(dirname(file)).catch(() => []);
  const adapters = names.filter((n) =>
    (ADAPTER_FILE_EXTENSIONS as readonly string[]).includes(extname(n)),
  );
  const guess = closest(basename(file), adapters);
  if (guess === undefined) return '';
  // Said the way it was given: `./queues/my-queue.ts`, not an absolute path.
  return `; did you mean ${given.slice(0, given.length - basename(given).length)}${guess}?`;
}

async function importFile(file: string): Promise<Record<string, unknown>> {
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    const hint =
      code === 'ERR_UNKNOWN_FILE_EXTENSION'
        ? ' (a .ts adapter needs the process to run under tsx, as the leaseproof CLI does; or compile it to .js)'
        : '';
    const message = error instanceof Error ? error.message : String(error);
    throw new AdapterError(`could not import queue adapter file ${file}: ${message}${hint}`, {
      cause: error,
    });
  }
}

function pickExport(module: Record<string, unknown>, file: string): [string, unknown] {
  for (const name of EXPORT_NAMES) {
    if (module[name] !== undefined) return [name, module[name]];
  }
  const found = Object.keys(module);
  throw new AdapterError(
    `queue adapter file ${file} exports no adapter: expected a default export (or an export ` +
      'named "queue" or "adapter") holding a QueueAdapter or a zero-argument function returning ' +
      `one; it exports ${found.length === 0 ? 'nothing' : found.map((n) => `"${n}"`).join(', ')}`,
  );
}

async function callFactory(
  factory: (...args: unknown[]) => unknown,
  source: string,
): Promise<unknown> {
  if (factory.length > 0) {
    throw new AdapterError(
      `${source} is a function of ${factory.length} argument(s); expected a QueueAdapter object ` +
        'or a function of no arguments that returns one',
    );
  }
  try {
    return await factory();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new AdapterError(`${source} threw when called to make the adapter: ${message}`, {
      cause: error,
    });
  }
}

/**
 * Loads the queue under test (`loadQueueAdapter`) and, for a native-mode queue, makes its
 * worker program ready — a toolchain step that may take a minute the first time (a Go build, a
 * Python environment) — before any run starts, so that it is never paid inside a run's
 * set-up deadline or a worker's start-up. What cannot be made is an `EnvironmentError` that
 * says what to install.
 */
export async function prepareQueueAdapter(
  queue: string,
  options: LoadQueueAdapterOptions = {},
): Promise<QueueAdapter> {
  const adapter = await loadQueueAdapter(queue, options);
  await adapter.native?.program();
  return adapter;
}
