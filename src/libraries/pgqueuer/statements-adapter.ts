/**
 * pgqueuer (Python) in primitives mode: leaseproof's own worker loop — its heartbeat on a thread
 * of its own, its watchdog — driving the statements pgqueuer's `QueryQueueBuilder` renders (the
 * dequeue, the heartbeat, the status log), run by `leaseproof_client.targets.pgqueuer_primitives`.
 * Setup, enqueue and the audit are the native adapter's.
 */
import { statementsQueue } from '../program/statements-queue.js';
import { pgqueuerQueue } from './adapter.js';
import { PGQUEUER_SETTINGS, pgqueuerLeaseNote, pgqueuerValue } from './settings.js';

/** pgqueuer 1.x's statements under leaseproof's loop. */
export const pgqueuerStatementsQueue = statementsQueue({
  name: 'pgqueuer-statements',
  description:
    "pgqueuer 1.6's own statements (dequeue, heartbeat, status log) driven by leaseproof's " +
    'worker loop (heartbeat thread, watchdog); the lease is its heartbeat timeout.',
  module: 'leaseproof_client.targets.pgqueuer_primitives',
  base: pgqueuerQueue,
  settings: PGQUEUER_SETTINGS,
  // pgqueuer's cadences, settled: the lease is heartbeat_timeout, a heartbeat every half of it
  // (as pgqueuer's own Heartbeat task), an idle poll of dequeue_timeout.
  leaseTerms: (requested, settings) => {
    const timeoutMs = pgqueuerValue('heartbeat_timeout', requested, settings);
    const dequeueMs = pgqueuerValue('dequeue_timeout', requested, settings);
    return {
      lease: {
        durationMs: timeoutMs,
        heartbeatMs: timeoutMs / 2,
        extendByMs: timeoutMs,
        pollMs: dequeueMs,
      },
      notes: [
        "pgqueuer 1.6, primitives mode: leaseproof's worker loop with pgqueuer's own statements",
        pgqueuerLeaseNote(requested, settings),
        `leaseproof heartbeats every heartbeat_timeout / 2 (${String(timeoutMs / 2)} ms), as ` +
          "pgqueuer's Heartbeat task does, with pgqueuer's heartbeat statement (heartbeat = NOW())",
        `an idle worker polls every dequeue_timeout (${String(dequeueMs)} ms), not the ` +
          `scenario's ${String(requested.pollMs)} ms`,
        'no retries: a failed job is held as failed, as on_failure="hold"',
      ],
      rescaled: [],
    };
  },
});
