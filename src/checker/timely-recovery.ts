/**
 * I8 timely-recovery: an expired claim is re-claimed within the poll interval + ε when a worker
 * is free (see `free-workers.ts` for what "free" means), and a crash stalls its job at most
 * lease + poll. The stall of every expired claim — expiry to re-claim (or to the ack or
 * extension that took the job back first) — is reported as a distribution, crash stalls apart.
 *
 * Freedom is read off worker and nemesis events, on the controller's clock, so ε' = ε + the
 * clock-offset uncertainty applies.
 *
 * A free spell that the free worker's unexplained starvation accounts for (without the time it
 * waited for a CPU, it would have been short enough) is not judged: see `starvation.ts`.
 *
 * A queue that recovers through a harness-run sweep is judged only from the end of the first
 * pass after the expiry, and a late pass's lateness is the harness's: see `sweep-cadence.ts`.
 */
import { deriveHistory } from '../history/derive.js';
import type { DerivedClaim, DerivedHistory } from '../history/derive-types.js';
import type { AuditEvent, FaultKind } from '../history/types.js';
import {
  EvidenceLog,
  at,
  claimEvents,
  claimRef,
  historyWarnings,
  eventRef,
  faultsDuring,
} from './evidence.js';
import { faultsOn } from './fault-windows.js';
import { freeIntervals, freeWindow, type FreeIntervals, type FreeWindow } from './free-workers.js';
import { controllerTolerance, resolveOptions } from './options.js';
import { toResult } from './result.js';
import { StarvedVerdicts, starvationOn } from './starvation.js';
import { distribution, round } from './stats.js';
import { sweepLatenessIn, sweepOf, sweptBy } from './sweep-cadence.js';
import type { Checker, Evidence } from './types.js';

const META = { name: 'timely-recovery', id: 'I8' } as const;
const CRASH: ReadonlySet<FaultKind> = new Set(['crash']);

/** I8: expired claims are re-claimed within poll + ε while a worker is free. */
export const timelyRecovery: Checker = {
  ...META,
  description:
    'An expired claim is re-claimed within the poll interval + ε when a worker is free; a ' +
    'crash stalls its job at most lease + poll.',
  check(history, partial) {
    const options = resolveOptions(partial);
    const derived = deriveHistory(history);
    const { durationMs, extendByMs, pollMs } = history.header.lease;
    const tolerance = controllerTolerance(history, options);
    const violations = new EvidenceLog(options.maxEvidence);
    const counts = {
      expired: 0,
      recovered: 0,
      slow: 0,
      unrecovered: 0,
      starved: 0,
    };
    // Reported only for a queue with a sweep: waits its passes account for, and late ones.
    const sweepCounts = { sweepWait: 0, sweepLate: 0 };
    const sweep = sweepOf(derived);
    const starved = new StarvedVerdicts(derived);
    const stalls: number[] = [];
    const crashStalls: number[] = [];
    let free: Map<string, FreeIntervals> | undefined;
    let undecided = 0;
    for (const claim of derived.claims) {
      const x = claim.expiredAt;
      if (!(x < derived.endT)) continue;
      counts.expired += 1;
      const recovered = recoveryOf(derived, claim);
      const until = Number.isNaN(recovered) ? derived.endT : recovered;
      free ??= freeIntervals(derived);
      let window = freeWindow(free, x, until, pollMs + tolerance);
      const crash = faultsOn(derived, claim.worker, CRASH, claim.lastConfirmT, x)[0];
      if (Number.isNaN(recovered)) counts.unrecovered += 1;
      else {
        counts.recovered += 1;
        stalls.push(recovered - x);
        if (crash !== undefined) crashStalls.push(recovered - crash.start);
      }
      if (window === undefined) {
        if (Number.isNaN(recovered) && derived.endIndex < 0) undecided += 1;
        continue;
      }
      if (sweep !== undefined) {
        // Up to the end of the first pass after the expiry, the job waited for the sweep.
        const swept = sweptBy(sweep, x, tolerance);
        window = freeWindow(free, Math.max(x, swept.t), until, pollMs + tolerance);
        if (window === undefined) {
          sweepCounts.sweepWait += 1;
          if (swept.lateMs > 0) sweepCounts.sweepLate += 1;
          continue;
        }
        const late = sweepLatenessIn(sweep, window.from, window.to);
        const spell = window.to - window.from;
        if (late.worst !== undefined && late.ms >= (spell - pollMs - tolerance) / 2) {
          counts.starved += 1;
          starved.excuseWith(
            `harness starved: the sweep ran ${round(late.worst.lateMs)} ms late at ` +
              `${at(derived, late.worst.start)}`,
            `the ${round(spell)}ms that ${window.worker} was free without claiming`,
          );
          continue;
        }
      }
      const spell = window.to - window.from;
      const starvation = starvationOn(derived, window.worker, window.from, window.to);
      if (starvation.worst !== undefined && spell - starvation.ms <= pollMs + tolerance) {
        counts.starved += 1;
        starved.excuse(
          starvation.worst,
          `the ${round(spell)}ms that ${window.worker} was free without claiming`,
        );
        continue;
      }
      counts.slow += 1;
      if (violations.take()) {
        const crashNote =
          crash === undefined
            ? ''
            : `; its holder crashed at ${at(derived, crash.start)}, a stall of ` +
              `${round(until - crash.start)}ms against lease + poll = ${Math.max(durationMs, extendByMs) + pollMs}ms`;
        violations.add(evidence(derived, claim, recovered, window, pollMs, crashNote));
      }
    }
    const unknownWhy =
      [cutWhy(undecided, counts.expired, derived), starved.why()]
        .filter((why) => why !== undefined)
        .join('; ') || undefined;
    return toResult(META, options, {
      violations,
      counts: sweep === undefined ? counts : { ...counts, ...sweepCounts },
      stats: { stallMs: distribution(stalls), crashStallMs: distribution(crashStalls) },
      warnings: historyWarnings(derived),
      ...(unknownWhy !== undefined && { unknownWhy }),
    });
  },
};

/** Why recovery cannot be judged from this history at all, or undefined. */
function cutWhy(undecided: number, expired: number, derived: DerivedHistory): string | undefined {
  const noWorkerSpoke = [...derived.workers.values()].every((w) => Number.isNaN(w.firstT));
  return undecided > 0
    ? `${undecided} expired claim(s) were not re-claimed before the history was cut`
    : expired > 0 && noWorkerSpoke
      ? 'the history has no worker events, so when a worker was free cannot be told'
      : undefined;
}

/**
 * When the job stopped being stalled on an expired claim: the next grant, or — first — a late
 * ack or extension that took it back (a weakly fenced queue allows those), or a completion of
 * the job after a sweeper had already released the claim (graphile-worker's late delete after
 * its resetLockedAt: the job is done, nothing waits for a re-claim), or the job given up for good.
 * NaN if never.
 */
function recoveryOf(derived: DerivedHistory, claim: DerivedClaim): number {
  const events = derived.history.events;
  let t = NaN;
  const next = claim.job.claims[claim.attempt];
  if (next !== undefined) t = next.grantStmtT;
  if (claim.closedBy === 'ack') t = min(t, (events[claim.closeIndex] as AuditEvent).stmtT);
  for (const completion of claim.job.completions) {
    const stmtT = (events[completion.index] as AuditEvent).stmtT;
    if (stmtT > claim.grantStmtT) {
      t = min(t, stmtT);
      break;
    }
  }
  // A sweeper that gives the job up for good on its expiry (pg-boss's expire() once the retries
  // are spent) leaves nothing to re-claim: I3 judges whether that is allowed, not I8.
  for (const index of claim.job.releases) {
    const e = events[index] as AuditEvent;
    const terminal = e.new?.state === 'dead' || e.new?.state === 'failed';
    if (terminal && e.stmtT > claim.grantStmtT) {
      t = min(t, e.stmtT);
      break;
    }
  }
  for (const index of claim.extensions) {
    const stmtT = (events[index] as AuditEvent).stmtT;
    if (stmtT > claim.expiredAt) {
      t = min(t, stmtT);
      break;
    }
  }
  return t;
}

const min = (a: number, b: number): number => (Number.isNaN(a) || b < a ? b : a);

function evidence(
  derived: DerivedHistory,
  claim: DerivedClaim,
  recovered: number,
  window: FreeWindow,
  pollMs: number,
  crashNote: string,
): Evidence {
  const x = claim.expiredAt;
  const next = claim.job.claims[claim.attempt];
  const events = claimEvents(derived, claim);
  if (next !== undefined && !Number.isNaN(recovered)) {
    events.push(eventRef(derived, next.grant, `re-claim by ${next.worker}`));
  }
  const stalled = Number.isNaN(recovered)
    ? `was never re-claimed (run ended ${at(derived, derived.endT)})`
    : `was re-claimed only at ${at(derived, recovered)}, ${round(recovered - x)}ms later`;
  return {
    job: claim.job.id,
    message:
      `claim ${claim.attempt} of ${claim.worker} expired at ${at(derived, x)} and ${stalled}, ` +
      `while ${window.worker} was free from ${at(derived, window.from)} to ` +
      `${at(derived, window.to)} (${round(window.to - window.from)}ms > poll ${pollMs}ms + ε')${crashNote}`,
    claims: next === undefined ? [claimRef(claim)] : [claimRef(claim), claimRef(next)],
    events,
    faults: faultsDuring(derived, [claim.worker, window.worker], x, window.to),
  };
}
