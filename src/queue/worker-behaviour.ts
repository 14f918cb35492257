import type { QueueAdapter, WorkerBehaviour } from './types.js';

/** The correct behaviour: heartbeats on their own thread, and a lost claim aborts the handler. */
export const REFERENCE_WORKER_BEHAVIOUR: Readonly<WorkerBehaviour> = Object.freeze({
  heartbeat: 'thread',
  watchdog: true,
});

/**
 * How a worker process must run `adapter`: its `worker` settings over the reference behaviour.
 * Kept here, beside the contract, so that the worker and the reports fill in the defaults the
 * same way.
 */
export function workerBehaviourOf(adapter: Pick<QueueAdapter, 'worker'>): WorkerBehaviour {
  return { ...REFERENCE_WORKER_BEHAVIOUR, ...adapter.worker };
}
