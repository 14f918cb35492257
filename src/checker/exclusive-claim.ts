/**
 * I4 exclusive-claim: a claim is its holder's until its deadline. Broken two ways:
 *
 * - **replaced**: another claim is granted while it is unexpired. The row's old image at the
 *   grant is the truth about the claim being replaced: its holder and the deadline it had then.
 * - **revoked early**: someone other than its holder ends it before its deadline — a background
 *   sweep whose predicate releases leases early, another worker's fail or delete — and the job
 *   is then free to be granted again while the holder still works under a lease it was promised.
 *   Only the holder's own ack or fail may end a claim early. A release judged (at its `now()`,
 *   `fenceT`) after the deadline less ε is an expiry, not a revocation: a holder whose extension
 *   lost the race with a sweep had already lost its lease. The harness's own writes
 *   (`leaseproof-controller`) are not the queue's and are not judged.
 *
 * One invariant, not two: both are the same promise — nobody but the holder is served the job,
 * and the holder's work stands, until the deadline — and a revocation early is the first half of
 * a replacement that no single grant shows (the job passes through `pending`).
 */
import { fenceT } from '../history/fence-time.js';
import { deriveHistory } from '../history/derive.js';
import type { DerivedClaim, DerivedHistory } from '../history/derive-types.js';
import type { AuditEvent } from '../history/types.js';
import {
  EvidenceLog,
  at,
  claimEvents,
  claimRef,
  historyWarnings,
  eventRef,
  faultsDuring,
} from './evidence.js';
import { resolveOptions } from './options.js';
import { toResult } from './result.js';
import { round } from './stats.js';
import type { Checker } from './types.js';

const META = { name: 'exclusive-claim', id: 'I4' } as const;

/** `application_name` of the harness's own controller connection (queue setup, purges). */
const HARNESS_APP = 'leaseproof-controller';

/** I4: a claim is its holder's until its deadline: neither replaced nor revoked before it. */
export const exclusiveClaim: Checker = {
  ...META,
  description:
    "A claim is its holder's until its deadline: no other claim is granted over it, and " +
    'nobody but its holder ends it before then.',
  check(history, partial) {
    const options = resolveOptions(partial);
    const derived = deriveHistory(history);
    const violations = new EvidenceLog(options.maxEvidence);
    const counts = { grants: derived.claims.length, overlapping: 0, revokedEarly: 0 };
    for (const claim of derived.claims) {
      const early = revokedEarlyBy(derived, claim, options.epsilonMs);
      if (early !== undefined) {
        counts.revokedEarly += 1;
        if (violations.take()) violations.add(revocationEvidence(derived, claim, early));
      }
      if (claim.end !== 'replaced') continue;
      const next = claim.job.claims[claim.attempt];
      if (next === undefined) continue;
      counts.overlapping += 1;
      if (!violations.take()) continue;
      const grant = history.events[next.grant] as AuditEvent;
      const deadline = grant.old?.deadline ?? claim.deadline;
      violations.add({
        job: claim.job.id,
        message:
          `claim ${next.attempt} granted to ${next.worker} at ${at(derived, grant.stmtT)} while ` +
          `${claim.worker}'s claim ${claim.attempt} was unexpired until ${at(derived, deadline)} ` +
          `(${round(deadline - grant.stmtT)}ms left)`,
        claims: [claimRef(claim), claimRef(next)],
        events: [
          ...claimEvents(derived, claim),
          eventRef(derived, next.grant, `grant to ${next.worker} over an unexpired claim`),
        ],
        faults: faultsDuring(derived, [claim.worker, next.worker], claim.grantT, next.grantT),
      });
    }
    return toResult(META, options, { violations, counts, warnings: historyWarnings(derived) });
  },
};

/** The revoking write of `claim`, when someone else ended it more than `epsilonMs` early. */
function revokedEarlyBy(
  derived: DerivedHistory,
  claim: DerivedClaim,
  epsilonMs: number,
): { write: AuditEvent; leftMs: number } | undefined {
  if (claim.closedBy !== 'reap' || !Number.isNaN(claim.expiredAt)) return undefined;
  const write = derived.history.events[claim.closeIndex] as AuditEvent;
  if (write.app === claim.worker || write.app === HARNESS_APP) return undefined;
  const deadline = write.old?.deadline ?? claim.deadline;
  const leftMs = Math.max(deadline, claim.deadlineSetT) - fenceT(write);
  return leftMs > epsilonMs ? { write, leftMs } : undefined;
}

/** The evidence of an early revocation: who wrote it, in which transaction, how early. */
function revocationEvidence(
  derived: DerivedHistory,
  claim: DerivedClaim,
  { write, leftMs }: { write: AuditEvent; leftMs: number },
) {
  const what =
    write.op === 'delete' ? 'deleted the row' : `set it to ${write.new?.state ?? 'nothing'}`;
  const regrant = claim.job.claims[claim.attempt];
  const deadline = write.old?.deadline ?? claim.deadline;
  return {
    job: claim.job.id,
    message:
      `${claim.worker}'s claim ${claim.attempt} was revoked at ${at(derived, fenceT(write))}, ` +
      `${round(leftMs)}ms before its deadline ${at(derived, deadline)}: ${write.app} ` +
      `(transaction ${write.xid}) ${what}` +
      (regrant === undefined
        ? ''
        : `; ${regrant.worker} was granted the job at ${at(derived, regrant.grantT)}` +
          (regrant.grantT < deadline
            ? `, ${round(deadline - regrant.grantT)}ms before that deadline`
            : '')),
    claims: [claimRef(claim), ...(regrant === undefined ? [] : [claimRef(regrant)])],
    events: [
      ...claimEvents(derived, claim),
      eventRef(
        derived,
        claim.closeIndex,
        `revoked by ${write.app} (transaction ${write.xid}) ${round(leftMs)}ms early`,
      ),
      ...(regrant === undefined
        ? []
        : [eventRef(derived, regrant.grant, `re-grant to ${regrant.worker}`)]),
    ],
    faults: faultsDuring(derived, [claim.worker], claim.grantT, write.t),
  };
}
