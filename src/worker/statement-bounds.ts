/**
 * How long a worker lets its queue statements run. Read by the main thread and the heartbeat
 * thread alike, so that a statement and a whole queue call are bounded the same way on both.
 */
import type { WorkerConfig } from './types.js';

/** The client-side bound on one queue statement: as configured, else the lease duration. */
export function statementTimeoutMs(
  config: Pick<WorkerConfig, 'statementTimeoutMs' | 'lease'>,
): number {
  return config.statementTimeoutMs ?? config.lease.durationMs;
}

/**
 * The bound on one whole queue call (claim, extend, ack, fail): two statements' worth and a
 * second. A call that never settles — an adapter awaiting something other than its statement,
 * which the statement timeout bounds — then becomes an `info` outcome naming the call, instead
 * of a worker stuck for the rest of the run.
 */
export function queueCallBoundMs(
  config: Pick<WorkerConfig, 'statementTimeoutMs' | 'lease'>,
): number {
  return 2 * statementTimeoutMs(config) + 1_000;
}
