/**
 * I9 explained-expiry: every expiry coincides with an injected fault on its holder (or on the
 * database) that can cost a lease — active at some moment between the claim's last confirmed
 * grant or extension and the expiry (± ε'). See `leaseLosingFaultsOn` for which faults count,
 * why a stall or a clock skew does not, and why a graceful stop does only past its shutdown
 * timeout. An unexplained expiry means the heartbeat path is broken or the lease is shorter than
 * the work: a warning by default, invalid under `strictCauses`.
 *
 * A library whose heartbeat shares the handler's event loop and whose documentation rules out
 * blocking it (`queueTerms.blockingLoopContract`: pgqueuer, procrastinate) is not judged by an
 * expiry that followed a blocked loop: that is the usage breaking the contract, a warning that
 * quotes it (counted as `brokeUsageContract`), even under `strictCauses`. I7 still judges the
 * handler that went on after.
 *
 * An expiry that the holder's unexplained starvation accounts for is not judged (see
 * `starvation.ts`): to expire, the heartbeat must have been held off for the slack the lease
 * left it (expiry − last confirmation − one heartbeat period); starvation of at least half that
 * slack excuses it. Half, because the database backend and the proxy an extension goes through
 * are starved by the same load and are not measured.
 */
import { deriveHistory } from '../history/derive.js';
import type { DerivedClaim, DerivedHistory } from '../history/derive-types.js';
import type { FaultKind } from '../history/types.js';
import {
  EvidenceLog,
  at,
  claimEvents,
  claimRef,
  historyWarnings,
  eventRef,
  faultsDuring,
} from './evidence.js';
import { faultsOn, leaseLosingFaultsOn, whyNotLeaseLosing } from './fault-windows.js';
import { noExtensionWhy } from './no-extension.js';
import { controllerTolerance, resolveOptions } from './options.js';
import { toResult } from './result.js';
import { StarvedVerdicts, starvationOn, type Starvation } from './starvation.js';
import { round } from './stats.js';
import type { Checker, Evidence, EvidenceFault } from './types.js';

const META = { name: 'explained-expiry', id: 'I9' } as const;

/** I9: every expiry coincides with a fault on its holder. */
export const explainedExpiry: Checker = {
  ...META,
  description:
    'Every expiry coincides with an injected fault on its holder (crash, pause, partition, ' +
    'database outage); unexplained expiries are warnings, violations under strict-causes.',
  check(history, partial) {
    const options = resolveOptions(partial);
    const derived = deriveHistory(history);
    const tolerance = controllerTolerance(history, options);
    const unexplained = new EvidenceLog(options.maxEvidence);
    const counts: Record<string, number> = {
      expired: 0,
      explained: 0,
      unexplained: 0,
      starved: 0,
    };
    const starved = new StarvedVerdicts(derived);
    const { heartbeatMs } = history.header.lease;
    const contract = history.header.queueTerms?.blockingLoopContract;
    const usage = new EvidenceLog(options.maxEvidence);
    if (contract !== undefined) counts.brokeUsageContract = 0;
    for (const claim of derived.claims) {
      if (Number.isNaN(claim.expiredAt)) continue;
      counts.expired! += 1;
      // A claim never extended is explained from when its worker sent the claim statement: a
      // fault that held that statement back (a latency whose bytes arrive after it healed)
      // delays the grant past the moment the worker's watchdog counts its lease from.
      const from =
        claim.extensions.length === 0 && claim.sentT < claim.lastConfirmT
          ? claim.sentT
          : claim.lastConfirmT;
      const causes = leaseLosingFaultsOn(
        derived,
        claim.worker,
        from - tolerance,
        claim.expiredAt + tolerance,
      );
      if (causes.length > 0) {
        counts.explained! += 1;
        const kind = `by:${causes[0]!.fault}`;
        counts[kind] = (counts[kind] ?? 0) + 1;
        continue;
      }
      const slack = claim.expiredAt - claim.lastConfirmT - heartbeatMs;
      const starvation = starvationOn(derived, claim.worker, claim.lastConfirmT, claim.expiredAt);
      if (starvation.worst !== undefined && starvation.ms + tolerance >= slack / 2) {
        counts.starved! += 1;
        starved.excuse(
          starvation.worst,
          `${round(starvation.ms)}ms of the ${round(Math.max(0, slack))}ms the heartbeat had to ` +
            `miss for claim ${claim.attempt} of ${claim.worker} to expire`,
        );
        continue;
      }
      const gaveUp = starvedGiveUp(derived, claim, history.header.lease);
      if (gaveUp !== undefined && gaveUp.starvation.ms + tolerance >= gaveUp.slack / 2) {
        counts.starved! += 1;
        starved.excuse(
          gaveUp.starvation.worst!,
          `${round(gaveUp.starvation.ms)}ms of the ${round(gaveUp.slack)}ms its heartbeat had to ` +
            `miss before ${claim.worker}'s watchdog gave claim ${claim.attempt} up, at ` +
            `${at(derived, gaveUp.at)}, with an extension on its way`,
        );
        continue;
      }
      if (contract !== undefined && blockedLoop(derived, claim, from - tolerance, tolerance)) {
        // The library rules this usage out: its heartbeat shares the loop the handler blocked.
        counts.brokeUsageContract! += 1;
        if (usage.take()) usage.add(evidence(derived, claim));
        continue;
      }
      counts.unexplained! += 1;
      if (unexplained.take()) unexplained.add(evidence(derived, claim));
    }
    const summary =
      counts.unexplained! > 0
        ? [
            `${counts.unexplained} of ${counts.expired} expiries coincide with no fault on their ` +
              'holder: a broken heartbeat path, or a lease shorter than the work',
          ]
        : [];
    // Said under strict causes too: the usage broke the library's contract, not the library.
    const usageWarnings =
      (counts.brokeUsageContract ?? 0) > 0
        ? [
            `${counts.brokeUsageContract} of ${counts.expired} expiries followed a blocked event ` +
              'loop (a stall, or a synchronous unit) on a holder whose heartbeat shares that loop, ' +
              `which the queue's usage contract rules out: ${contract}`,
          ]
        : [];
    const none = new EvidenceLog(0);
    const starvedWhy = starved.why();
    const noHeartbeat = noExtensionWhy(
      history,
      'a job that outlasts its lease expires by design, so an expiry without a fault says ' +
        `nothing about a heartbeat path; ${counts.unexplained} of ${counts.expired} expiries ` +
        'had no fault on their holder (counted, not judged)',
    );
    if (noHeartbeat !== undefined) {
      return toResult(META, options, {
        violations: none,
        counts,
        warnings: historyWarnings(derived),
        warningEvidence: unexplained,
        naWhy: noHeartbeat,
      });
    }
    return toResult(META, options, {
      violations: options.strictCauses ? unexplained : none,
      counts,
      warnings: [
        ...(options.strictCauses ? [] : summary),
        ...usageWarnings,
        ...(!options.strictCauses && starvedWhy !== undefined ? [starvedWhy] : []),
        ...historyWarnings(derived),
      ],
      warningEvidence: unexplained.count > 0 ? unexplained : usage,
      ...(options.strictCauses && starvedWhy !== undefined && { unknownWhy: starvedWhy }),
    });
  },
};

/**
 * Whether `claim`'s holder had its event loop blocked between `from` and the expiry: a `stall`
 * fault on it, or a synchronous unit in its job's plan.
 */
function blockedLoop(
  derived: DerivedHistory,
  claim: DerivedClaim,
  from: number,
  tolerance: number,
): boolean {
  if (claim.job.blocks) return true;
  return faultsOn(derived, claim.worker, STALL, from, claim.expiredAt + tolerance).length > 0;
}

const STALL: ReadonlySet<FaultKind> = new Set(['stall']);

/**
 * A holder whose watchdog gave its claim up (`lost`) before the database expired it: the lease
 * then ran out because the worker stopped beating, and the extension the database had
 * committed may still have been on its way to it. The worker acted on what had reached it in
 * the lease before it gave up, so that lease is where its starvation is measured: the watchdog
 * fires only after the heartbeat missed a lease less one beat.
 */
function starvedGiveUp(
  derived: DerivedHistory,
  claim: DerivedClaim,
  lease: { durationMs: number; heartbeatMs: number },
): { at: number; slack: number; starvation: Starvation } | undefined {
  if (claim.reportedLost < 0) return undefined;
  const lost = derived.history.events[claim.reportedLost];
  if (lost?.type !== 'worker' || lost.kind !== 'lost' || !(lost.t < claim.expiredAt)) {
    return undefined;
  }
  const starvation = starvationOn(derived, claim.worker, lost.t - lease.durationMs, lost.t);
  if (starvation.worst === undefined) return undefined;
  return {
    at: lost.t,
    slack: Math.max(0, lease.durationMs - lease.heartbeatMs),
    starvation,
  };
}

function evidence(derived: DerivedHistory, claim: DerivedClaim): Evidence {
  const next = claim.job.claims[claim.attempt];
  const events = claimEvents(derived, claim);
  if (next !== undefined)
    events.push(eventRef(derived, next.grant, `next grant, to ${next.worker}`));
  const from = claim.extensions.length > 0 ? 'its last extension' : 'its grant';
  // What was going on anyway: a stall or a clock skew on the holder is the usual suspect.
  const faults = faultsDuring(derived, [claim.worker], claim.lastConfirmT, claim.expiredAt);
  const since = `since ${from} at ${at(derived, claim.lastConfirmT)}`;
  const expired = `claim ${claim.attempt} of ${claim.worker} expired at ${at(derived, claim.expiredAt)}`;
  // A listed fault is never called "no fault": the message says why it does not explain.
  const message =
    faults.length === 0
      ? `${expired} with no fault on ${claim.worker} or the database ${since}`
      : `${expired} with no fault that can cost a lease on ${claim.worker} or the database ${since}; ` +
        faults.map((f) => notACause(derived, f)).join('; ');
  return { job: claim.job.id, message, claims: [claimRef(claim)], events, faults };
}

function notACause(derived: DerivedHistory, f: EvidenceFault): string {
  const until = f.end === null ? 'on' : `to ${at(derived, f.end)}`;
  const why = whyNotLeaseLosing(f.fault) ?? 'it is not a fault that can cost a lease';
  return `the ${f.fault} on ${f.target} (${f.id}) from ${at(derived, f.start)} ${until} does not explain it: ${why}`;
}
