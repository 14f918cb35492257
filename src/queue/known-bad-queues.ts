/**
 * The known-bad variants: the reference queue with exactly one thing wrong, each a failure the
 * seed text warns about. They are the harness's proof that it can tell: run the same scenario on
 * `reference` and on a variant, and only the variant may be judged invalid.
 */
import type { QueueAdapter } from './types.js';
import { createReferenceQueue } from './reference-queue.js';
import { workerClockDeadline } from './lease-deadline.js';
import { jobIdOnlyFence } from './claim-fence.js';

/** Acknowledges by job id alone, so a stale holder's late ack commits (violates no-stale-ack). */
export const unconditionalAckQueue: QueueAdapter = createReferenceQueue({
  name: 'unconditional-ack',
  description:
    'Known bad: acknowledges by job id only, so the ack of an expired or replaced claim commits.',
  ackFence: jobIdOnlyFence,
});

/** Computes deadlines from the worker's `Date` and sends them (violates lease-honored). */
export const workerClockLeaseQueue: QueueAdapter = createReferenceQueue({
  name: 'worker-clock-lease',
  description:
    "Known bad: claim and extend compute the deadline from the worker's own clock and send it " +
    'as a timestamp, so a skewed worker clock moves the lease.',
  deadline: workerClockDeadline,
});

/** Heartbeats from a timer on the handler's event loop, which a blocked loop silences. */
export const mainThreadHeartbeatQueue: QueueAdapter = createReferenceQueue({
  name: 'main-thread-heartbeat',
  description:
    "Known bad: heartbeats run as timers on the handler's event loop, so synchronous work " +
    'stops them and the lease expires while the worker is busiest.',
  worker: { heartbeat: 'event-loop' },
});

/** Keeps running the handler after its claim is lost (violates bounded-zombie). */
export const noWatchdogQueue: QueueAdapter = createReferenceQueue({
  name: 'no-watchdog',
  description:
    'Known bad: a lost claim does not abort the handler, which keeps performing effects as a ' +
    'zombie until it finishes.',
  worker: { watchdog: false },
});
