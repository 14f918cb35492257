/**
 * The reference queue: the lease design of the seed text, done right. One statement claims (the
 * claim predicate, `FOR UPDATE SKIP LOCKED`, a fresh token, `attempts + 1`, deadline = the
 * server's `now()` + lease); extend, ack, fail and checkpoint are conditional on the claim still
 * being held, and `rowCount === 1` is the only answer they trust. No lease arithmetic happens on
 * a worker's clock: `ctx.workerNow()` is never called.
 *
 * The built-in known-bad variants are this queue with one part swapped (see
 * `known-bad-queues.ts`), which is why the statements are assembled from a deadline rule and a
 * fence rather than written out whole.
 */
import type {
  Claim,
  ExtendingQueueAdapter,
  QueueContext,
  QueueMaintenance,
  SqlClient,
  WorkerBehaviour,
} from './types.js';
import { SqlParams } from './sql-params.js';
import { serverClockDeadline, type DeadlineRule } from './lease-deadline.js';
import { heldClaimFence, type ClaimFence } from './claim-fence.js';
import {
  REFERENCE_AUDIT,
  REFERENCE_DEFAULT_MAX_ATTEMPTS,
  REFERENCE_SETUP_SQL,
  REFERENCE_TABLE,
  REFERENCE_TEARDOWN_SQL,
} from './reference-schema.js';

/** Retry backoff of a failed attempt: `least(baseMs * 2^(attempt - 1), capMs)`, in SQL. */
export interface RetryBackoff {
  /** Delay after the first failed attempt. */
  baseMs: number;
  /** Longest delay. */
  capMs: number;
}

/** Backoff of the built-in queues: scaled to leases of seconds, as scenarios are. */
export const REFERENCE_RETRY_BACKOFF: RetryBackoff = { baseMs: 100, capMs: 5_000 };

/** The parts of the reference queue a variant may replace; every other part stays the same. */
export interface ReferenceQueueOptions {
  /** Name in reports (default `reference`). */
  name?: string;
  /** One sentence on what this queue is, or what is wrong with it. */
  description?: string;
  /** How worker processes run it (default: the reference behaviour). */
  worker?: Partial<WorkerBehaviour>;
  /** How grants and extensions compute the deadline (default: the server's clock). */
  deadline?: DeadlineRule;
  /** How extensions compute the deadline (default: `deadline`). */
  extendDeadline?: DeadlineRule;
  /** Which rows extend, fail and checkpoint may touch (default: a held, unexpired claim). */
  fence?: ClaimFence;
  /** Which rows an extension may move (default: `fence`). */
  extendFence?: ClaimFence;
  /** Which rows an acknowledgement may complete (default: `fence`). */
  ackFence?: ClaimFence;
  /** Which rows a fail may release (default: `fence`). */
  failFence?: ClaimFence;
  /** How a claim finds a job (default: `REFERENCE_CLAIM`). */
  claim?: ClaimRule;
  /**
   * How a fenced write checks its fence: in the one UPDATE that writes (`one-statement`, the
   * default and the only correct way), or by a SELECT under the fence followed by an UPDATE by
   * job id (`check-then-write`: the deadline can pass between the two).
   */
  fencing?: 'one-statement' | 'check-then-write';
  /** When a failed attempt may run again (default: the server's clock plus the backoff). */
  retryAt?: RetryRule;
  /** Retry backoff (default `REFERENCE_RETRY_BACKOFF`). */
  retry?: RetryBackoff;
  /**
   * A background sweep the harness runs beside the workers (default: none — the reference's
   * claim predicate re-offers expired jobs itself).
   */
  maintenance?: QueueMaintenance;
}

/**
 * How the claim statement finds and takes a job. `reclaimable` is the claim predicate (which
 * rows may be taken); `token` the SQL expression for the new claim's token; `locking` whether
 * the row is found and taken in one statement under `FOR UPDATE SKIP LOCKED` (correct), found
 * by a plain SELECT and taken by a second statement (a race between workers), or found by a
 * subquery of the one UPDATE without a lock (`unlocked-subquery`: a race between transactions —
 * two claims that found the same row both take it, the second once the first commits).
 */
export interface ClaimRule {
  reclaimable: string;
  token: string;
  locking: 'skip-locked' | 'select-then-update' | 'unlocked-subquery';
  /**
   * Before it claims, the worker returns every claim whose lease has passed on the server's
   * clock to `pending` in a statement of its own (`reap-on-poll`, the way River's rescuer,
   * db-scheduler's dead-execution detection and pgqueuer's re-pick recover work from inside a
   * worker). Default false: the claim predicate re-offers expired claims itself.
   */
  reapFirst?: boolean;
}

/** The reference claim: pending and due, or claimed under a lease already past; a fresh token. */
export const REFERENCE_CLAIM: Readonly<ClaimRule> = Object.freeze({
  reclaimable:
    "(status = 'pending' AND available_at <= now()) OR (status = 'claimed' AND lease_expires_at < now())",
  token: 'gen_random_uuid()',
  locking: 'skip-locked',
});

/**
 * The claim of `reap-on-poll`: expired claims are first returned to the queue by the claiming
 * worker's own statement, then only pending rows are claimed. Correct: the reap releases only
 * leases already past on the server's clock, which nobody holds any more.
 */
export const REAP_ON_POLL_CLAIM: Readonly<ClaimRule> = Object.freeze({
  reclaimable: "status = 'pending' AND available_at <= now()",
  token: 'gen_random_uuid()',
  locking: 'skip-locked',
  reapFirst: true,
});

/** The reap of `REAP_ON_POLL_CLAIM`: every claim past its deadline back to pending, at once. */
const REAP_EXPIRED_SQL = `UPDATE ${REFERENCE_TABLE} SET status = 'pending', available_at = now()
  WHERE status = 'claimed' AND lease_expires_at < now()`;

/**
 * When a failed attempt becomes available again, as a timestamptz SQL expression; `delayMs` is
 * a SQL expression of the backoff in ms (computed by the row itself).
 */
export type RetryRule = (params: SqlParams, delayMs: string, ctx: QueueContext) => string;

/** The reference rule: the server's `now()` plus the backoff. */
export const serverClockRetry: RetryRule = (_params, delayMs) =>
  `now() + ${delayMs} * interval '1 millisecond'`;

interface ClaimRow extends Record<string, unknown> {
  job_id: string;
  token: string;
  attempts: number;
  payload: Record<string, unknown>;
  cursor: string | null;
}

/** Builds the reference queue, or a variant of it that differs only in the given parts. */
export function createReferenceQueue(options: ReferenceQueueOptions = {}): ExtendingQueueAdapter {
  const deadline = options.deadline ?? serverClockDeadline;
  const extendDeadline = options.extendDeadline ?? deadline;
  const fence = options.fence ?? heldClaimFence;
  const extendFence = options.extendFence ?? fence;
  const ackFence = options.ackFence ?? fence;
  const fencing = options.fencing ?? 'one-statement';
  const failFence = options.failFence ?? fence;
  const claimRule = options.claim ?? REFERENCE_CLAIM;
  const retryAt = options.retryAt ?? serverClockRetry;
  const retry = options.retry ?? REFERENCE_RETRY_BACKOFF;

  // `UPDATE … SET <set> WHERE <fence>`: true exactly when one row passed the fence and changed.
  async function fencedUpdate(
    db: SqlClient,
    claim: Claim,
    fence: ClaimFence,
    set: (params: SqlParams) => string,
  ): Promise<boolean> {
    const params = new SqlParams();
    const assignments = set(params);
    if (fencing === 'check-then-write') {
      // Known bad: the fence is checked by one statement and the write made by another, so a
      // deadline that passes between them (a slow link, a pause) lets an expired claim write.
      const checkParams = new SqlParams();
      const check = await db.query(
        `SELECT 1 FROM ${REFERENCE_TABLE} WHERE ${fence(checkParams, claim)}`,
        checkParams.values,
      );
      if (check.rowCount !== 1) return false;
      const byId = `id = ${params.add(claim.jobId)}::bigint`;
      const result = await db.query(
        `UPDATE ${REFERENCE_TABLE} SET ${assignments} WHERE ${byId}`,
        params.values,
      );
      return result.rowCount === 1;
    }
    const sql = `UPDATE ${REFERENCE_TABLE} SET ${assignments} WHERE ${fence(params, claim)}`;
    const result = await db.query(sql, params.values);
    return result.rowCount === 1;
  }

  return {
    name: options.name ?? 'reference',
    description:
      options.description ??
      'The seed design done right: one-statement SKIP LOCKED claim, deadlines on the server ' +
        'clock, strict conditional extend/ack/fail/checkpoint.',
    audit: REFERENCE_AUDIT,
    ...(options.worker && { worker: options.worker }),
    ...(options.maintenance && { maintenance: options.maintenance }),

    async setup(db) {
      await db.query(REFERENCE_SETUP_SQL);
    },

    async teardown(db) {
      await db.query(REFERENCE_TEARDOWN_SQL);
    },

    async enqueue(db, jobs) {
      if (jobs.length === 0) return [];
      const input = jobs.map((job) => ({ payload: job.payload, maxAttempts: job.maxAttempts }));
      const { rows } = await db.query<{ id: string }>(
        `INSERT INTO ${REFERENCE_TABLE} (payload, max_attempts)
         SELECT job -> 'payload',
                coalesce((job ->> 'maxAttempts')::integer, ${REFERENCE_DEFAULT_MAX_ATTEMPTS})
         FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS input (job, n)
         ORDER BY n
         RETURNING id::text AS id`,
        [JSON.stringify(input)],
      );
      // The ids come from one sequence in input order; RETURNING's row order is not promised.
      return rows.map((row) => row.id).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    },

    async claim(db, ctx) {
      if (claimRule.reapFirst === true) await db.query(REAP_EXPIRED_SQL);
      const params = new SqlParams();
      const workerId = params.add(ctx.workerId);
      const leaseEnd = deadline(params, ctx.lease.durationMs, ctx);
      const find = (column: string) =>
        `SELECT ${column} FROM ${REFERENCE_TABLE} WHERE ${claimRule.reclaimable} ORDER BY id LIMIT 1`;
      let target = `(${find('id')} FOR UPDATE SKIP LOCKED)`;
      // Known bad: without the lock, a claim that found the row another claim is taking waits
      // for that one's row lock, and then re-checks only \`id = <the row found>\` on the row as
      // the other left it (PostgreSQL's read-committed recheck): it takes the job too. No
      // statement-at-a-time run can show it; only transactions in flight at once.
      if (claimRule.locking === 'unlocked-subquery') target = `(${find('id')})`;
      if (claimRule.locking === 'select-then-update') {
        // Known bad: the row found here is not locked, so another worker can find the same one
        // before this worker's UPDATE lands, and both take it.
        const { rows: found } = await db.query<{ id: string }>(find('id::text AS id'));
        if (found[0] === undefined) return undefined;
        target = `${params.add(found[0].id)}::bigint`;
      }
      const { rows } = await db.query<ClaimRow>(
        `UPDATE ${REFERENCE_TABLE}
         SET status = 'claimed', claim_token = ${claimRule.token}, claimed_by = ${workerId},
             attempts = attempts + 1, claimed_at = now(), lease_expires_at = ${leaseEnd}
         WHERE id = ${target}
         RETURNING id::text AS job_id, claim_token::text AS token, attempts, payload, cursor`,
        params.values,
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      return {
        jobId: row.job_id,
        token: row.token,
        attempt: row.attempts,
        payload: row.payload,
        cursor: row.cursor,
      };
    },

    extend(db, claim, ctx) {
      return fencedUpdate(db, claim, extendFence, (params) => {
        return `lease_expires_at = ${extendDeadline(params, ctx.lease.extendByMs, ctx)}`;
      });
    },

    ack(db, claim) {
      return fencedUpdate(db, claim, ackFence, () => `status = 'completed'`);
    },

    fail(db, claim, error, ctx) {
      // Both branches are decided by the row itself, in the same statement that checks the
      // fence: a JS-side "attempts < max" would read a value another claim may have changed.
      return fencedUpdate(db, claim, failFence, (params) => {
        const delayMs =
          `least(${params.add(retry.baseMs)}::double precision * power(2, least(attempts - 1, 30)), ` +
          `${params.add(retry.capMs)}::double precision)`;
        return `status = CASE WHEN attempts < max_attempts THEN 'pending' ELSE 'dead' END,
          available_at = CASE WHEN attempts < max_attempts
            THEN ${retryAt(params, delayMs, ctx)} ELSE available_at END,
          last_error = ${params.add(error)}`;
      });
    },

    checkpoint(db, claim, cursor) {
      return fencedUpdate(db, claim, fence, (params) => `cursor = ${params.add(cursor)}`);
    },
  };
}

/** The built-in `reference` queue. */
export const referenceQueue: ExtendingQueueAdapter = createReferenceQueue();
