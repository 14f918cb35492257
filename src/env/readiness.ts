import { setTimeout as sleep } from 'node:timers/promises';
import { EnvironmentError } from '../errors.js';

/**
 * Polls `probe` until it resolves true or `timeoutMs` passes, then fails with a message that
 * says what was awaited and for how long (testcontainers' "Log message … not received after
 * 60000ms"). `describeLast` adds what the server said last, which is usually why.
 */
export async function waitUntil(
  what: string,
  probe: () => Promise<boolean>,
  options: { timeoutMs: number; intervalMs?: number; describeLast?: () => string },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await probe()) return;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) break;
    await sleep(options.intervalMs ?? 25);
  }
  const tail = options.describeLast?.() ?? '';
  throw new EnvironmentError(
    `${what}: not ready after ${options.timeoutMs}ms` +
      (tail === '' ? '' : `; last output:\n${tail}`),
    { cause: lastError },
  );
}
