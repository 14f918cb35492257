/**
 * The environment scope: start the servers, hand them to some work, stop them — once, whatever
 * happens: after the work, when it fails, or at once when the caller's signal aborts. It installs
 * no signal handler; the CLI turns Ctrl-C into the abort.
 */
import type { EnvironmentProvider, StartedEnvironment } from '../env/types.js';

/** How an environment scope reports and ends. */
export interface EnvironmentScopeOptions {
  /** Told `starting the … environment…` before the servers start. */
  log?: ((line: string) => void) | undefined;
  /**
   * Aborting it stops the environment at once, without waiting for the work: the work is
   * abandoned (what it does with servers that are gone is ignored) and the scope rejects with the
   * signal's reason once they have stopped. For work that cannot be cut short cleanly; work that
   * can (the suite, which judges its cut runs) takes the signal itself and leaves this unset.
   */
  signal?: AbortSignal | undefined;
  /**
   * A stop that fails is handed here instead of thrown, so that what the work produced is kept
   * (the suite's verdicts are in: a server that would not stop cleanly costs none of them).
   */
  onStopError?: ((error: unknown) => void) | undefined;
}

/**
 * Starts an environment of `provider`, runs `work` in it and stops it: after the work, when the
 * work throws, and when `options.signal` aborts (see there). An abort before the start starts
 * nothing; one during the start stops the servers as soon as they are up.
 */
export async function inEnvironment<T>(
  provider: EnvironmentProvider,
  work: (env: StartedEnvironment) => Promise<T>,
  options: EnvironmentScopeOptions = {},
): Promise<T> {
  const { log, signal, onStopError } = options;
  signal?.throwIfAborted();
  log?.(`starting the ${provider.name} environment…`);
  const env = await provider.start();
  try {
    signal?.throwIfAborted();
    return await (signal === undefined ? work(env) : untilAborted(work(env), signal));
  } finally {
    await env.stop().catch((error: unknown) => {
      if (onStopError === undefined) throw error;
      onStopError(error);
    });
  }
}

/** `work`'s outcome, or the signal's reason as soon as it aborts (`work` then runs on, unheard). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    // The reason as it is, as `AbortSignal.throwIfAborted` throws it (the CLI's is a signal name).
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    void work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
