import { selectEnvironment } from '../env/select-env.js';
import type { StartedEnvironment } from '../env/types.js';
import { onShutdown } from './shutdown.js';

/**
 * Starts the environment `--env` names (or the one chosen for this machine), runs `work` in it,
 * and stops it afterwards — also on failure and on Ctrl-C.
 */
export async function withEnvironment<T>(
  explicit: string | undefined,
  log: (line: string) => void,
  work: (env: StartedEnvironment) => Promise<T>,
): Promise<T> {
  const provider = await selectEnvironment({ explicit, log });
  log(`starting the ${provider.name} environment…`);
  const env = await provider.start();
  const unregister = onShutdown(() => env.stop());
  try {
    return await work(env);
  } finally {
    unregister();
    await env.stop();
  }
}
