/**
 * I1 no-stale-ack: no write of a claim — its ack, and also an extension, a checkpoint or a fail —
 * commits for a claim that has expired (`strict`, the default) or that another claim has replaced
 * (`fenced`). Judged from the audit, so an ack whose reply was lost (an `info` outcome for the
 * worker) counts exactly as it committed. An extension that commits after the deadline is a
 * resurrected lease: the queue handed the job's lease back to a holder that had lost it, in the
 * window before anybody else re-claimed it.
 *
 * A queue that promises only the fenced contract (`queueTerms.fencedOnly`: db-scheduler's
 * version column, pg-boss's maintenance — a claim dead only when a detector acts) is judged by that promise; what the strict
 * contract would add — writes after the deadline with nobody re-claiming — is counted
 * (`strictOnly`) and warned of with its evidence, told apart from the verdict.
 */
import { deriveHistory } from '../history/derive.js';
import type { DerivedClaim, DerivedCompletion, DerivedJob } from '../history/derive-types.js';
import type { AuditEvent } from '../history/types.js';
import { fenceT } from '../history/fence-time.js';
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
import { claimWrites, type ClaimWrite } from './stale-writes.js';
import type { Checker, Evidence } from './types.js';

const META = { name: 'no-stale-ack', id: 'I1' } as const;

/** I1: no ack commits for an expired (strict) or replaced (fenced) claim. */
export const noStaleAck: Checker = {
  ...META,
  description:
    'No write of a claim (ack, extend, checkpoint, fail) commits after the claim expired ' +
    '(strict) or after another claim replaced it (fenced).',
  check(history, partial) {
    const options = resolveOptions(partial);
    const derived = deriveHistory(history);
    const violations = new EvidenceLog(options.maxEvidence);
    // A queue that promises the fenced contract only is judged by it; the strict lease contract's
    // findings are still counted and told, as warnings (`strictOnly`).
    const fencedOnly = history.header.queueTerms?.fencedOnly;
    const strict = options.staleAck === 'strict';
    const strictOnly = new EvidenceLog(options.maxEvidence);
    const counts = {
      acks: 0,
      stale: 0,
      afterExpiry: 0,
      afterReplacement: 0,
      byNonHolder: 0,
      writes: 0,
      staleExtends: 0,
      staleCheckpoints: 0,
      staleFails: 0,
      strictOnly: 0,
      // Releases of already-expired claims, judged as sweeps (I8), not as anybody's writes.
      sweeps: derived.sweeps.size,
    };
    for (const job of derived.jobs.values()) {
      for (const completion of job.completions) {
        const ack = history.events[completion.index] as AuditEvent;
        // A harness app completing a row is bookkeeping, not a worker's acknowledgement.
        if (!derived.workers.has(ack.app)) continue;
        counts.acks += 1;
        const by = completion.by;
        const replacedBy = by === null ? undefined : replacement(job, by, completion.index);
        const expiredAt = by === null ? NaN : expiryBefore(by, fenceT(ack));
        const fenced = by === null || replacedBy !== undefined;
        const stale = fenced || (strict && !Number.isNaN(expiredAt));
        if (!stale) continue;
        if (!fenced && fencedOnly !== undefined) {
          counts.strictOnly += 1;
          if (strictOnly.take())
            strictOnly.add(evidence(job, completion, ack, by, replacedBy, expiredAt));
          continue;
        }
        counts.stale += 1;
        if (by === null) counts.byNonHolder += 1;
        else if (replacedBy !== undefined) counts.afterReplacement += 1;
        else counts.afterExpiry += 1;
        if (!violations.take()) continue;
        violations.add(evidence(job, completion, ack, by, replacedBy, expiredAt));
      }
    }

    for (const write of claimWrites(derived)) {
      counts.writes += 1;
      const fenced = write.claim === null || write.replacedBy !== undefined;
      const stale = fenced || (strict && !Number.isNaN(write.expiredAt));
      if (!stale) continue;
      if (!fenced && fencedOnly !== undefined) {
        counts.strictOnly += 1;
        if (strictOnly.take()) strictOnly.add(writeEvidence(write));
        continue;
      }
      counts.stale += 1;
      if (write.kind === 'extend') counts.staleExtends += 1;
      else if (write.kind === 'checkpoint') counts.staleCheckpoints += 1;
      else counts.staleFails += 1;
      if (violations.take()) violations.add(writeEvidence(write));
    }

    function writeEvidence(w: ClaimWrite): Evidence {
      const e = w.event;
      const what =
        w.kind === 'checkpoint' ? 'checkpoint (or an extension that left the deadline)' : w.kind;
      const writeRef = eventRef(derived, w.index, `${w.kind} committed by ${e.app} (xid ${e.xid})`);
      if (w.claim === null) {
        return {
          job: w.job.id,
          message: `${what} committed by ${e.app} at ${at(derived, e.stmtT)} (xid ${e.xid}), which never held a claim on the job`,
          claims: w.job.claims.map(claimRef),
          events: [writeRef],
          faults: faultsDuring(derived, [e.app], e.stmtT, e.t),
        };
      }
      const reasons: string[] = [];
      if (!Number.isNaN(w.expiredAt)) {
        reasons.push(
          `${round(e.stmtT - w.expiredAt)}ms after its claim expired at ${at(derived, w.expiredAt)}`,
        );
      }
      if (w.replacedBy !== undefined) {
        reasons.push(
          `after ${w.replacedBy.worker} re-claimed the job at ${at(derived, w.replacedBy.grantT)}`,
        );
      } else if (e.new?.state === 'held') {
        // The row is held for the stale holder again: the queue gave back a lease it had lost.
        reasons.push('with nobody re-claiming — a resurrected lease');
      } else if (w.kind === 'fail') {
        reasons.push(`with nobody re-claiming: it released a lease it no longer held`);
      } else {
        reasons.push(`with nobody re-claiming; the row stayed ${e.new?.state ?? 'deleted'}`);
      }
      const events = [...claimEvents(derived, w.claim)];
      if (w.replacedBy !== undefined) events.push(...claimEvents(derived, w.replacedBy));
      if (!events.some((x) => x.index === w.index)) events.push(writeRef);
      const from = Number.isNaN(w.expiredAt) ? w.claim.grantT : w.expiredAt;
      return {
        job: w.job.id,
        message: `${what} by ${w.claim.worker} (claim ${w.claim.attempt}) committed at ${at(derived, e.stmtT)} (xid ${e.xid}), ${reasons.join(', ')}`,
        claims:
          w.replacedBy === undefined
            ? [claimRef(w.claim)]
            : [claimRef(w.claim), claimRef(w.replacedBy)],
        events: events.sort((a, b) => a.index - b.index),
        faults: faultsDuring(derived, [w.claim.worker], from, e.t),
      };
    }

    function evidence(
      job: DerivedJob,
      completion: DerivedCompletion,
      ack: AuditEvent,
      by: DerivedClaim | null,
      replacedBy: DerivedClaim | undefined,
      expiredAt: number,
    ): Evidence {
      const ackRef = eventRef(derived, completion.index, `ack committed by ${ack.app}`);
      if (by === null) {
        return {
          job: job.id,
          message: `ack committed by ${ack.app} at ${at(derived, ack.stmtT)}, which never held a claim on the job`,
          claims: job.claims.map(claimRef),
          events: [ackRef],
          faults: faultsDuring(derived, [ack.app], ack.stmtT, ack.t),
        };
      }
      const reasons: string[] = [];
      if (!Number.isNaN(expiredAt)) {
        reasons.push(
          `${round(ack.stmtT - expiredAt)}ms after its claim expired at ${at(derived, expiredAt)}`,
        );
      }
      if (replacedBy !== undefined) {
        reasons.push(
          `after ${replacedBy.worker} re-claimed the job at ${at(derived, replacedBy.grantT)}`,
        );
      } else reasons.push('with nobody re-claiming');
      const events = [...claimEvents(derived, by)];
      if (replacedBy !== undefined) events.push(...claimEvents(derived, replacedBy));
      events.push(ackRef);
      const from = Number.isNaN(expiredAt) ? by.grantT : expiredAt;
      return {
        job: job.id,
        message: `ack by ${by.worker} (claim ${by.attempt}) committed at ${at(derived, ack.stmtT)}, ${reasons.join(', ')}`,
        claims: replacedBy === undefined ? [claimRef(by)] : [claimRef(by), claimRef(replacedBy)],
        events: events.sort((a, b) => a.index - b.index),
        faults: faultsDuring(derived, [by.worker], from, ack.t),
      };
    }

    const strictWarnings =
      counts.strictOnly > 0
        ? [
            `the strict lease contract, which this queue does not promise: ${counts.strictOnly} ` +
              'write(s) committed after their claim expired with nobody re-claiming — judged ' +
              `by its own contract instead (fenced): ${fencedOnly}`,
          ]
        : [];
    return toResult(META, options, {
      violations,
      counts,
      warnings: [...strictWarnings, ...historyWarnings(derived)],
      ...(violations.count === 0 && strictOnly.count > 0 && { warningEvidence: strictOnly }),
    });
  },
};

/** The first claim of the job granted after `claim` and before audit event `index`, if any. */
function replacement(
  job: DerivedJob,
  claim: DerivedClaim,
  index: number,
): DerivedClaim | undefined {
  const next = job.claims[claim.attempt];
  return next !== undefined && next.grant < index ? next : undefined;
}

/** When `claim` expired, if it did before `t` (its deadline as the row had it), else NaN. */
function expiryBefore(claim: DerivedClaim, t: number): number {
  if (!Number.isNaN(claim.expiredAt)) return claim.expiredAt < t ? claim.expiredAt : NaN;
  return t > claim.expiresAt ? claim.expiresAt : NaN;
}
