/**
 * The writes of a claim other than its ack — extensions, checkpoints, fails — read off the audit,
 * and which of them committed for a claim that was no longer held: the "resurrected lease" half of
 * I1. A write is attributed to the latest claim of its job granted to the writing worker before
 * it; that claim expired when the clock passed its deadline (strict), or was replaced when a later
 * claim of the job was granted before the write (fenced, and always). A sweep — a release of a
 * claim already expired, made by no fail call (`DerivedHistory.sweeps`) — is nobody's write.
 */
import type { DerivedClaim, DerivedHistory, DerivedJob } from '../history/derive-types.js';
import type { AuditEvent } from '../history/types.js';
import { fenceT } from '../history/fence-time.js';

/** What a write did, as the audit shows it. */
export type WriteKind = 'extend' | 'checkpoint' | 'fail';

/** One committed non-ack write by a worker on a job's row. */
export interface ClaimWrite {
  /** Its audit event's index. */
  index: number;
  /** The audit event. */
  event: AuditEvent;
  /** What it did. */
  kind: WriteKind;
  /** The job. */
  job: DerivedJob;
  /** The writer's claim, or null when the worker never held one on the job. */
  claim: DerivedClaim | null;
  /** The claim granted after `claim` and before the write, if any. */
  replacedBy: DerivedClaim | undefined;
  /** When `claim` expired, if before the write's fence time (`fenceT`); else NaN. */
  expiredAt: number;
}

/**
 * Every committed write on a job's row by a worker that is neither a grant nor a completion:
 * an extension (the deadline moved), a checkpoint (nothing the audit sees changed — or an
 * extension that left the deadline where it was) or a fail (the row went to another state
 * than `held`).
 */
export function claimWrites(derived: DerivedHistory): ClaimWrite[] {
  const grants = new Set(derived.claims.map((c) => c.grant));
  // A liveness record (a heartbeat in another table) is a write only where it extended a claim
  // its holder still had; one the history did not apply was read in a stale snapshot.
  const applied = new Set(derived.claims.flatMap((c) => c.extensions));
  const writes: ClaimWrite[] = [];
  const { events } = derived.history;
  for (let i = 0; i < events.length; i += 1) {
    const e = events[i]!;
    if (e.type !== 'audit' || e.op !== 'update' || grants.has(i) || derived.sweeps.has(i)) continue;
    if (e.liveness === true && !applied.has(i)) continue;
    // Any state before: a fail by job id can re-open a completed row, which is a write too.
    if (e.old === null || e.new === null || e.new.state === 'completed') continue;
    if (!derived.workers.has(e.app)) continue;
    const job = derived.jobs.get(e.job);
    if (job === undefined) continue;
    // A write that leaves a row that is not held in the state it was (a stale holder's
    // checkpoint on a row a sweep returned to pending) released nothing: it is no fail.
    const kind: WriteKind =
      e.new.state !== 'held'
        ? e.old.state === e.new.state
          ? 'checkpoint'
          : 'fail'
        : e.old.state === 'held' && e.new.deadline !== e.old.deadline
          ? 'extend'
          : 'checkpoint';
    let claim: DerivedClaim | null = null;
    for (const c of job.claims) if (c.worker === e.app && c.grant < i) claim = c;
    const next = claim === null ? undefined : job.claims[claim.attempt];
    const replacedBy = next !== undefined && next.grant < i ? next : undefined;
    const expiredAt =
      claim !== null && !Number.isNaN(claim.expiredAt) && claim.expiredAt < fenceT(e)
        ? claim.expiredAt
        : NaN;
    writes.push({ index: i, event: e, kind, job, claim, replacedBy, expiredAt });
  }
  return writes;
}
