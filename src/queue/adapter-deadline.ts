import { AdapterError } from './adapter-error.js';

/**
 * How long loading an adapter file, or one setup or enqueue call of it, may take: 15 s, or
 * `LEASEPROOF_ADAPTER_TIMEOUT_MS` (an adapter that connects somewhere slow at import).
 */
export function adapterLoadTimeoutMs(): number {
  const given = Number(process.env.LEASEPROOF_ADAPTER_TIMEOUT_MS);
  return Number.isFinite(given) && given > 0 ? given : 15_000;
}

/**
 * `work`, or an `AdapterError` once `ms` pass without it settling: an adapter whose module has a
 * top-level await that never resolves, or whose `setup` waits on a lock forever, must end a run
 * with a sentence that names it, not hang it. The work itself cannot be cancelled and is left to
 * settle (or not) on its own; the timer never keeps the process alive.
 */
export async function adapterDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AdapterError(`${what} did not settle within ${ms}ms`)), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
