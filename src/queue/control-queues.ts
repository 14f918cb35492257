/**
 * Correct queues built differently from the reference: the mutation matrix's controls. A
 * checker that calls one of them invalid judges a design, not a bug, and the matrix says so.
 */
import type { ExtendingQueueAdapter } from './types.js';
import { createReferenceQueue, REAP_ON_POLL_CLAIM } from './reference-queue.js';

/**
 * Recovers expired work on the poll path, as River's rescuer, db-scheduler's dead-execution
 * detection and pgqueuer's re-pick do from inside a worker: before it claims, the worker returns
 * every claim whose lease has passed on the server's clock to `pending`, then claims a pending
 * row. Its reap writes on jobs the worker never held (and on its own lost claims) by whatever
 * connection polls; they release only leases that are already gone, which makes them sweeps.
 */
export const reapOnPollQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'reap-on-poll',
  description:
    'Correct: before claiming, the worker returns claims past their deadline (server clock) to ' +
    'pending in a statement of its own, then claims a pending row.',
  claim: REAP_ON_POLL_CLAIM,
});

/** The correct queues besides the reference: `leaseproof mutants` runs them as controls. */
export const CONTROL_QUEUES: readonly ExtendingQueueAdapter[] = Object.freeze([reapOnPollQueue]);
