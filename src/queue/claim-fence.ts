import type { Claim } from './types.js';
import type { SqlParams } from './sql-params.js';

/**
 * The WHERE condition that decides whether a statement made on behalf of a claim may touch the
 * job's row. A statement that finds no row under its fence changed nothing, and `rowCount` is how
 * the caller learns the claim was lost.
 */
export type ClaimFence = (params: SqlParams, claim: Claim) => string;

/**
 * The correct fence: this job, this claim's token, still claimed, and the lease not yet past on
 * the server's clock. The last term makes the queue strict: a claim whose lease has expired is
 * lost even if no other worker has reclaimed the job yet, so a late write can never succeed just
 * because the queue happened to be idle.
 */
export const heldClaimFence: ClaimFence = (params, claim) =>
  `id = ${params.add(claim.jobId)}::bigint` +
  ` AND claim_token = ${params.add(claim.token)}::uuid` +
  ` AND status = 'claimed' AND lease_expires_at >= now()`;

/**
 * The known-bad fence of `unconditional-ack`: the job id and nothing else, so an acknowledgement
 * from a worker whose lease expired long ago still commits, even over another worker's claim.
 */
export const jobIdOnlyFence: ClaimFence = (params, claim) =>
  `id = ${params.add(claim.jobId)}::bigint`;

/**
 * The known-bad fence of `fence-without-deadline`: this job, this token, still claimed — but
 * not "the lease not yet past". A claim whose lease ran out stays writable until another worker
 * re-claims the job, so the late write of a paused or slow worker commits in that window.
 */
export const tokenAndStateFence: ClaimFence = (params, claim) =>
  `id = ${params.add(claim.jobId)}::bigint` +
  ` AND claim_token = ${params.add(claim.token)}::uuid AND status = 'claimed'`;

/**
 * The known-bad fence of `grace-after-deadline`: the held-claim fence with a grace of `graceMs`
 * after the deadline, the way queues that "tolerate a little lateness" fence. A write that
 * arrives in that grace commits although the lease it was made under has run out.
 */
export function graceFence(graceMs: number): ClaimFence {
  return (params, claim) =>
    `id = ${params.add(claim.jobId)}::bigint` +
    ` AND claim_token = ${params.add(claim.token)}::uuid AND status = 'claimed'` +
    ` AND lease_expires_at + ${params.add(graceMs)}::double precision * interval '1 millisecond' >= now()`;
}

/**
 * The known-bad fence of `extend-without-token`: this job, still claimed, the lease not past —
 * but any claim's lease. The old holder's late heartbeat, arriving after another worker took
 * the job over, renews the new holder's lease and is told it still holds.
 */
export const jobAndStateFence: ClaimFence = (params, claim) =>
  `id = ${params.add(claim.jobId)}::bigint AND status = 'claimed' AND lease_expires_at >= now()`;
