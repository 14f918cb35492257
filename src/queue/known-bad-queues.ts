/**
 * The known-bad variants: the reference queue with exactly one realistic part changed, each a
 * failure the seed text warns about or a bug real queues have shipped. They are the harness's
 * proof that it can tell: run the same scenario on `reference` and on a variant, and only the
 * variant may be judged invalid — by the invariant that names its bug (`KNOWN_BAD_VARIANTS`).
 */
import type { ExtendingQueueAdapter } from './types.js';
import { createReferenceQueue, REFERENCE_CLAIM } from './reference-queue.js';
import { workerClockDeadline, type DeadlineRule } from './lease-deadline.js';
import { graceFence, jobAndStateFence, jobIdOnlyFence, tokenAndStateFence } from './claim-fence.js';
import { REFERENCE_TABLE } from './reference-schema.js';

/** Acknowledges by job id alone, so a stale holder's late ack commits (violates no-stale-ack). */
export const unconditionalAckQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'unconditional-ack',
  description:
    'Known bad: acknowledges by job id only, so the ack of an expired or replaced claim commits.',
  ackFence: jobIdOnlyFence,
});

/**
 * Fences every write on token and state but not on the deadline, the way several popular queues
 * acknowledge: correct while somebody re-claims at once, wrong in the window where the lease has
 * expired and nobody has taken the job yet (violates no-stale-ack, strict).
 */
export const fenceWithoutDeadlineQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'fence-without-deadline',
  description:
    'Known bad: extend, ack, fail and checkpoint check the token and the state but not the ' +
    'deadline, so an expired claim that nobody re-claimed yet can still write (a resurrected lease).',
  fence: tokenAndStateFence,
});

/**
 * A claim keeps the token the row already has, so the stale holder's token is the new claim's
 * too and the fence cannot tell them apart (violates no-stale-ack).
 */
export const reusedTokenQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'reused-token',
  description:
    'Known bad: a re-claim reuses the previous claim token (coalesce(claim_token, …)), so the ' +
    "expired holder's writes pass the fence of the worker that took the job over.",
  claim: { ...REFERENCE_CLAIM, token: 'coalesce(claim_token, gen_random_uuid())' },
});

/**
 * The reclaim half of the claim predicate forgets the state: a completed job whose old deadline
 * has passed is claimed and run again (violates single-completion).
 */
export const reclaimIgnoresStateQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'reclaim-ignores-state',
  description:
    "Known bad: the claim predicate's reclaim term is `lease_expires_at < now()` without " +
    "`status = 'claimed'`, so finished jobs whose old deadline passed are claimed again.",
  claim: {
    ...REFERENCE_CLAIM,
    reclaimable: "(status = 'pending' AND available_at <= now()) OR lease_expires_at < now()",
  },
});

/**
 * Finds a job with a plain SELECT and takes it with a second statement: two workers that look at
 * once both take the same job (violates exclusive-claim).
 */
export const selectThenUpdateQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'select-then-update',
  description:
    'Known bad: the claim is a SELECT without FOR UPDATE SKIP LOCKED, then an UPDATE by id that ' +
    'does not re-check the predicate, so workers polling together claim the same job.',
  claim: { ...REFERENCE_CLAIM, locking: 'select-then-update' },
});

/**
 * Picks the row to claim with a subquery of the claim's UPDATE but without FOR UPDATE SKIP
 * LOCKED: two claims in flight at once find the same job, the second waits for the first's row
 * lock and, re-checking only the id once it commits, takes the job too (violates
 * exclusive-claim). A race between concurrent transactions: the simulation, one statement at a
 * time, cannot show it.
 */
export const unlockedClaimQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'unlocked-claim',
  description:
    "Known bad: the claim's UPDATE finds its row with a subquery without FOR UPDATE SKIP LOCKED " +
    'and re-checks only the id, so two claims in flight at once both take the job (the second ' +
    "once the first's row lock is released).",
  claim: { ...REFERENCE_CLAIM, locking: 'unlocked-subquery' },
});

/** Extends from the claim's grant time instead of from now (violates lease-honored). */
export const extendFromClaimTimeQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'extend-from-claim-time',
  description:
    'Known bad: an extension sets the deadline to claimed_at + extendBy, so a heartbeat reports ' +
    'success while the deadline never moves past the first lease.',
  extendDeadline: (params, ms) =>
    `claimed_at + ${params.add(ms)}::double precision * interval '1 millisecond'`,
});

/** Millisecond lease settings read as seconds (violates lease-honored). */
const secondsDeadline: DeadlineRule = (params, ms) =>
  `now() + ${params.add(ms)}::double precision * interval '1 second'`;

/** Takes the lease in milliseconds for a number of seconds: leases a thousand times too long. */
export const leaseInSecondsQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'lease-in-seconds',
  description:
    'Known bad: the lease is given in milliseconds but multiplied by interval 1 second, so every ' +
    'lease is a thousand times too long and a crashed worker holds its job for good.',
  deadline: secondsDeadline,
});

/** Computes deadlines from the worker's `Date` and sends them (violates lease-honored). */
export const workerClockLeaseQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'worker-clock-lease',
  description:
    "Known bad: claim and extend compute the deadline from the worker's own clock and send it " +
    'as a timestamp, so a skewed worker clock moves the lease.',
  deadline: workerClockDeadline,
});

/**
 * Fails by job id alone: the late fail of a worker whose claim was lost re-enqueues a job that
 * another worker has completed, and it runs and completes again (violates single-completion).
 */
export const failByIdQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'fail-by-id',
  description:
    'Known bad: fail updates the row by job id only, so the late fail of a lost claim puts a ' +
    'job another worker already completed back to pending.',
  failFence: jobIdOnlyFence,
});

/**
 * Releases a failed attempt by job and state, not by the claim's token: the error path of a
 * worker whose claim was lost, running late, lands while another worker holds the job, and
 * returns that worker's live claim to pending — it is served again while its holder still works
 * (violates exclusive-claim, as an early revocation, and no-stale-ack).
 */
export const failWithoutTokenQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'fail-without-token',
  description:
    "Known bad: fail is fenced on the job, the state and the deadline but not the claim's " +
    "token, so a lost claim's late error path releases the job from the worker that took it over.",
  failFence: jobAndStateFence,
});

/**
 * Schedules a retry from the worker's `Date`: a worker clock running ahead parks the job far in
 * the future (violates no-lost-job).
 */
export const retryOnWorkerClockQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'retry-on-worker-clock',
  description:
    "Known bad: a failed attempt's retry time is the worker's own clock plus the backoff, so a " +
    'worker whose clock runs ahead parks the job until long after the run.',
  retryAt: (params, delayMs, ctx) =>
    `${params.add(new Date(ctx.workerNow()).toISOString())}::timestamptz + ${delayMs} * interval '1 millisecond'`,
});

/** Heartbeats from a timer on the handler's event loop, which a blocked loop silences. */
export const mainThreadHeartbeatQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'main-thread-heartbeat',
  description:
    "Known bad: heartbeats run as timers on the handler's event loop, so synchronous work " +
    'stops them and the lease expires while the worker is busiest.',
  worker: { heartbeat: 'event-loop' },
});

/** Keeps running the handler after its claim is lost (violates bounded-zombie). */
export const noWatchdogQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'no-watchdog',
  description:
    'Known bad: a lost claim does not abort the handler, which keeps performing effects as a ' +
    'zombie until it finishes.',
  worker: { watchdog: false },
});

/** Looks at a lost claim only once the handler is done (violates bounded-zombie). */
export const watchdogBetweenJobsQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'watchdog-between-jobs',
  description:
    'Known bad: the worker checks whether its claim was lost only between jobs (it then skips ' +
    'the ack), so the handler runs on and keeps performing effects as a zombie.',
  worker: { watchdog: 'between-jobs' },
});

/**
 * A sweep that returns claimed jobs to pending, meant to give a late holder a grace of half a
 * lease after its deadline (`lease_expires_at + grace < now()`) but written with the sign
 * turned: every lease whose heartbeat falls silent is revoked half a lease *before* its
 * deadline, and another worker is served the job while the holder still holds a lease it was
 * promised (violates exclusive-claim, as an early revocation).
 */
export const earlySweepQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'early-sweep',
  description:
    'Known bad: a background sweep returns claimed jobs to pending when ' +
    '`lease_expires_at - grace < now()` (the grace meant to follow the deadline precedes it), ' +
    'so a lease whose heartbeats stop is revoked half a lease early.',
  maintenance: {
    description:
      'returns claimed jobs to pending half a lease before their deadline (a sign error in its ' +
      'grace)',
    intervalMs: (lease) => Math.max(10, Math.round(lease.durationMs / 8)),
    async run(db, ctx) {
      await db.query(
        `UPDATE ${REFERENCE_TABLE} SET status = 'pending', available_at = now()
         WHERE status = 'claimed'
           AND lease_expires_at - $1::double precision * interval '1 millisecond' < now()`,
        [ctx.lease.durationMs / 2],
      );
    },
  },
});

/** The grace of `grace-after-deadline`: a constant, as such settings are in the wild. */
export const GRACE_MS = 500;

/**
 * Tolerates lateness: a write is accepted up to `GRACE_MS` after the deadline, and an expired
 * job is re-offered only once that grace is over too. After every deadline there is a window
 * where the old holder's late write commits while a free worker waits (violates no-stale-ack,
 * strict).
 */
export const graceAfterDeadlineQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'grace-after-deadline',
  description:
    `Known bad: writes are fenced with a grace of ${GRACE_MS}ms after the deadline ` +
    '(`lease_expires_at + grace >= now()`) and expired jobs are re-offered only after it, so a ' +
    "holder's write that arrives just after its deadline still commits.",
  fence: graceFence(GRACE_MS),
  claim: {
    ...REFERENCE_CLAIM,
    reclaimable:
      "(status = 'pending' AND available_at <= now()) OR (status = 'claimed' AND " +
      `lease_expires_at + interval '${GRACE_MS} milliseconds' < now())`,
  },
});

/**
 * Extends by job and state without the claim's token: the old holder's heartbeat that reaches
 * the database after another worker's takeover renews the new holder's lease, and the old holder
 * is told it still holds (violates no-stale-ack: a write of a lost claim commits).
 */
export const extendWithoutTokenQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'extend-without-token',
  description:
    "Known bad: an extension is fenced on the job, the state and the deadline but not the claim's " +
    'token, so a stale heartbeat arriving after a takeover extends the new holder and reports ' +
    'success to the old one.',
  extendFence: jobAndStateFence,
});

/**
 * Checks the fence with a SELECT, then writes by job id in a second statement: right unless the
 * deadline passes between the two, which a slow link makes happen (violates no-stale-ack).
 */
export const checkThenWriteQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'check-then-write',
  description:
    'Known bad: extend, ack, fail and checkpoint first SELECT the row under the full fence, then ' +
    'UPDATE it by job id, so a deadline that passes between the two statements is not seen.',
  fencing: 'check-then-write',
});

/**
 * Stops the heartbeat when a graceful stop begins, then lets the running handler finish, as
 * db-scheduler did (#365): a handler longer than what is left of the lease finishes on an
 * expired claim, with no fault to explain the expiry — another worker takes the job and both run
 * it (violates explained-expiry, strict causes; its effects also outlive the lease).
 */
export const shutdownStopsHeartbeatQueue: ExtendingQueueAdapter = createReferenceQueue({
  name: 'shutdown-stops-heartbeat',
  description:
    'Known bad: on SIGTERM the worker stops its heartbeat first, then lets the running handler ' +
    'finish, so the lease of the job it is finishing expires and another worker runs it too ' +
    '(db-scheduler #365).',
  worker: { shutdown: 'stops-heartbeat' },
});

const reference = createReferenceQueue();
const ackById = createReferenceQueue({ ackFence: jobIdOnlyFence });

/**
 * Keeps the work of a handler its worker cancelled but that finished anyway (one that ignores
 * its context): "the work is done, record it" — an ack by job id. The ack of a claim that was
 * lost, and that another worker may have taken and completed, commits (violates no-stale-ack).
 * Only a handler that ignores its cancellation, or a loss during the last unit, reaches it.
 */
export const ackAfterCancelQueue: ExtendingQueueAdapter = {
  ...createReferenceQueue({
    name: 'ack-after-cancel',
    description:
      'Known bad: when a handler its worker cancelled (a lost claim) finishes anyway, the ' +
      'worker keeps the result with an ack by job id, so the late ack of a lost claim commits.',
  }),
  ack(db, claim, ctx) {
    // The bug: a cancelled handler that finished is taken for a job done, whoever holds it now.
    return (ctx.handlerCancelled === true ? ackById : reference).ack(db, claim, ctx);
  },
};

/**
 * A heartbeat that swallows errors: an extension whose statement throws (a reset connection, a
 * refused one) is reported as held, so the watchdog never fires while the database is out of
 * reach and the handler runs on past its lease (violates bounded-zombie).
 */
export const heartbeatIgnoresErrorsQueue: ExtendingQueueAdapter = {
  ...createReferenceQueue({
    name: 'heartbeat-ignores-errors',
    description:
      'Known bad: an extension whose statement throws is reported as held (`catch { return ' +
      'true }`), so a worker cut off from the database keeps working as a zombie past its lease.',
  }),
  async extend(db, claim, ctx) {
    try {
      return await reference.extend(db, claim, ctx);
    } catch {
      // The bug: "the heartbeat is best effort" — an error is taken for a held lease.
      return true;
    }
  },
};

/** A known-bad variant and the invariant that must catch it. */
export interface KnownBadVariant {
  /** The variant. */
  readonly queue: ExtendingQueueAdapter;
  /** The checker whose invariant names its bug (`no-stale-ack`, …). */
  readonly catches: string;
  /** The one part that differs from the reference, in a few words. */
  readonly change: string;
}

/**
 * Every known-bad variant with the checker that must catch it: the mutation matrix of
 * `leaseproof mutants`. Caught by any other checker alone, a variant counts as mis-attributed.
 */
export const KNOWN_BAD_VARIANTS: readonly KnownBadVariant[] = Object.freeze([
  { queue: unconditionalAckQueue, catches: 'no-stale-ack', change: 'ack by id only' },
  {
    queue: fenceWithoutDeadlineQueue,
    catches: 'no-stale-ack',
    change: 'write fences without the deadline term',
  },
  { queue: reusedTokenQueue, catches: 'no-stale-ack', change: 'claim reuses the previous token' },
  {
    queue: reclaimIgnoresStateQueue,
    catches: 'single-completion',
    change: 'reclaim predicate without the state term',
  },
  {
    queue: selectThenUpdateQueue,
    catches: 'exclusive-claim',
    change: 'claim as SELECT then UPDATE, no lock',
  },
  {
    queue: unlockedClaimQueue,
    catches: 'exclusive-claim',
    change: 'claim subquery without FOR UPDATE SKIP LOCKED',
  },
  {
    queue: extendFromClaimTimeQueue,
    catches: 'lease-honored',
    change: 'extension from the claim time',
  },
  { queue: leaseInSecondsQueue, catches: 'lease-honored', change: 'deadline in the wrong unit' },
  {
    queue: workerClockLeaseQueue,
    catches: 'lease-honored',
    change: 'deadline on the worker clock',
  },
  {
    queue: failByIdQueue,
    catches: 'single-completion',
    change: 'fail re-enqueues a completed job',
  },
  {
    queue: failWithoutTokenQueue,
    catches: 'exclusive-claim',
    change: 'fail fenced without the token',
  },
  {
    queue: retryOnWorkerClockQueue,
    catches: 'no-lost-job',
    change: 'retry delay on the worker clock',
  },
  {
    queue: mainThreadHeartbeatQueue,
    catches: 'explained-expiry',
    change: 'heartbeat on the event loop',
  },
  { queue: noWatchdogQueue, catches: 'bounded-zombie', change: 'no watchdog' },
  {
    queue: watchdogBetweenJobsQueue,
    catches: 'bounded-zombie',
    change: 'watchdog checks only between jobs',
  },
  {
    queue: earlySweepQueue,
    catches: 'exclusive-claim',
    change: 'sweep revokes leases half a lease early',
  },
  {
    queue: graceAfterDeadlineQueue,
    catches: 'no-stale-ack',
    change: `writes accepted ${GRACE_MS}ms past the deadline`,
  },
  {
    queue: extendWithoutTokenQueue,
    catches: 'no-stale-ack',
    change: 'extension fenced without the token',
  },
  {
    queue: checkThenWriteQueue,
    catches: 'no-stale-ack',
    change: 'fence checked by a SELECT, then write by id',
  },
  {
    queue: heartbeatIgnoresErrorsQueue,
    catches: 'bounded-zombie',
    change: 'extension error reported as held',
  },
  {
    queue: shutdownStopsHeartbeatQueue,
    catches: 'explained-expiry',
    change: 'heartbeat stopped when a graceful stop begins',
  },
  {
    queue: ackAfterCancelQueue,
    catches: 'no-stale-ack',
    change: 'a cancelled handler that finished is acked by id',
  },
]);
