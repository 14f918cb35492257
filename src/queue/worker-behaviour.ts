import type { QueueAdapter, WorkerBehaviour } from './types.js';

/**
 * The correct behaviour: heartbeats on their own thread, a lost claim aborts the handler, and a
 * graceful stop heartbeats the job it finishes.
 */
export const REFERENCE_WORKER_BEHAVIOUR: Readonly<WorkerBehaviour> = Object.freeze({
  heartbeat: 'thread',
  watchdog: true,
  shutdown: 'keeps-heartbeat',
});

/**
 * How a worker process must run `adapter`: its `worker` settings over the reference behaviour.
 * Kept here, beside the contract, so that the worker and the reports fill in the defaults the
 * same way.
 */
export function workerBehaviourOf(adapter: Pick<QueueAdapter, 'worker'>): WorkerBehaviour {
  return { ...REFERENCE_WORKER_BEHAVIOUR, ...adapter.worker };
}
