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
