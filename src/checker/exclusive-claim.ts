/**
 * I4 exclusive-claim: a claim is never granted while another unexpired claim on the same job
 * exists. The row's old image at the grant is the truth about the claim being replaced: its
 * holder and the deadline it had at that moment.
 */
import { deriveHistory } from '../history/derive.js';
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

/** I4: no claim is granted while another unexpired claim on the job exists. */
export const exclusiveClaim: Checker = {
  ...META,
  description: 'A claim is never granted while another unexpired claim on the same job exists.',
  check(history, partial) {
    const options = resolveOptions(partial);
    const derived = deriveHistory(history);
    const violations = new EvidenceLog(options.maxEvidence);
    const counts = { grants: derived.claims.length, overlapping: 0 };
    for (const claim of derived.claims) {
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
