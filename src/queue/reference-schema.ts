import type { AuditDescription } from './types.js';

/** The reference queue's table; the known-bad variants share it, so their tables are identical. */
export const REFERENCE_TABLE = 'leaseproof_jobs';

/** Attempts before a job is dead-lettered when its `JobSpec` does not say. */
export const REFERENCE_DEFAULT_MAX_ATTEMPTS = 5;

/**
 * The jobs table. `status` is one of:
 * - `pending`: waiting to be claimed once `available_at` has passed (new, or retrying after a
 *   failed attempt);
 * - `claimed`: held by the claim whose token is `claim_token` until `lease_expires_at` — or no
 *   longer held, if that moment is past: expiry is never written, it is read off the clock;
 * - `completed`: acknowledged;
 * - `dead`: failed on its last attempt (dead-lettered).
 *
 * `claim_token`, `claimed_by`, `claimed_at` and `lease_expires_at` always describe the job's latest claim and
 * are left in place when the job is acknowledged or fails, so the row still says which claim
 * finished it; only `status = 'claimed'` means "held". `attempts` counts claims, including the
 * ones that expired.
 */
export const REFERENCE_SETUP_SQL = `
CREATE TABLE ${REFERENCE_TABLE} (
  id bigserial PRIMARY KEY,
  status text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'claimed', 'completed', 'dead')),
  payload jsonb NOT NULL,
  available_at timestamptz NOT NULL DEFAULT now(),
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT ${REFERENCE_DEFAULT_MAX_ATTEMPTS}
    CHECK (max_attempts >= 1),
  claim_token uuid,
  claimed_by text,
  claimed_at timestamptz,
  lease_expires_at timestamptz,
  last_error text,
  cursor text,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- The claim walks this index in id order and stops at the first row it can lock; finished rows
-- are not in it, so a long run does not slow the claim down.
CREATE INDEX ${REFERENCE_TABLE}_claimable ON ${REFERENCE_TABLE} (id)
  WHERE status IN ('pending', 'claimed');
`;

/** Drops the jobs table. */
export const REFERENCE_TEARDOWN_SQL = `DROP TABLE IF EXISTS ${REFERENCE_TABLE}`;

/**
 * Where the lease lives, for the audit trigger. The holder and deadline are NULL unless the row
 * is claimed, because the lease columns outlive the claim (see `REFERENCE_SETUP_SQL`). A retry
 * waiting for its backoff is `pending` again — the held → pending transition is the failed
 * attempt — and a job out of attempts is `dead`; the reference never reports `failed`.
 */
export const REFERENCE_AUDIT: AuditDescription = {
  table: REFERENCE_TABLE,
  expressions: {
    jobId: 'r.id::text',
    holder: "CASE WHEN r.status = 'claimed' THEN r.claim_token::text END",
    deadline: "CASE WHEN r.status = 'claimed' THEN r.lease_expires_at END",
    state:
      "CASE r.status WHEN 'pending' THEN 'pending' WHEN 'claimed' THEN 'held' " +
      "WHEN 'completed' THEN 'completed' WHEN 'dead' THEN 'dead' END",
  },
  completion: 'update',
};
