/**
 * pgqueuer (Python) in primitives mode: leaseproof's own worker loop — its heartbeat on a thread
 * of its own, its watchdog — driving the statements pgqueuer's `QueryQueueBuilder` renders (the
 * dequeue, the heartbeat, the status log), run by `leaseproof_client.targets.pgqueuer_primitives`.
 * Setup, enqueue and the audit are the native adapter's.
 */
import { statementsQueue } from '../program/statements-queue.js';
import { pgqueuerQueue } from './adapter.js';

/** pgqueuer 1.x's statements under leaseproof's loop. */
export const pgqueuerStatementsQueue = statementsQueue({
  name: 'pgqueuer-statements',
  description:
    "pgqueuer 1.6's own statements (dequeue, heartbeat, status log) driven by leaseproof's " +
    'worker loop (heartbeat thread, watchdog); the lease is its heartbeat timeout.',
  module: 'leaseproof_client.targets.pgqueuer_primitives',
  base: pgqueuerQueue,
  leaseTerms: (requested) => ({
    lease: { ...requested, extendByMs: requested.durationMs },
    notes: [
      "pgqueuer 1.6, primitives mode: leaseproof's worker loop with pgqueuer's own statements",
      `the lease is the heartbeat timeout; leaseproof heartbeats every ${requested.heartbeatMs} ms ` +
        "with pgqueuer's heartbeat statement, which sets heartbeat = NOW()",
      'no retries: a failed job is held as failed, as on_failure="hold"',
    ],
    rescaled: [],
  }),
});
