import { selectEnvironment } from '../env/select-env.js';
import type { StartedEnvironment } from '../env/types.js';
import { inEnvironment } from '../run/environment-scope.js';
import { withShutdownSignal } from './shutdown.js';

/**
 * Starts the environment `--env` names (or the one chosen for this machine), runs `work` in it,
 * and stops it afterwards — also on failure, and at once on Ctrl-C, which then exits.
 */
export async function withEnvironment<T>(
  explicit: string | undefined,
  log: (line: string) => void,
  work: (env: StartedEnvironment) => Promise<T>,
): Promise<T> {
  const provider = await selectEnvironment({ explicit, log });
  return untilShutdown((signal) => inEnvironment(provider, work, { log, signal }));
}

/**
 * `withShutdownSignal` for work that Ctrl-C abandons rather than finishes (an environment scope
 * given the signal): once the work has given up, the shutdown handler exits 130 or 143, and the
 * command stays silent until then instead of printing the abort as its error.
 */
export async function untilShutdown<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  let shutdown: AbortSignal | undefined;
  try {
    return await withShutdownSignal((signal) => work((shutdown = signal)));
  } catch (error) {
    if (shutdown?.aborted === true) return new Promise<never>(() => undefined);
    throw error;
  }
}
