/**
 * I7 bounded-zombie: after a claim is lost — its expiry, or the worker's own word (a failed
 * extension, a `lost` event), whichever came first — the effects under it stop within one
 * heartbeat period + the job's longest unit + ε: the watchdog bound. The worker learns of the
 * loss by its next heartbeat at the latest, and a unit already running is allowed to finish.
 *
 * Time the holder could not act at all (paused, its event loop stalled, the database down) is
 * added to the bound: a SIGSTOPped worker's unit finishes when it is continued, and no watchdog
 * can prevent that. A loss known only from a worker event adds the clock-offset uncertainty.
 *
 * An overrun that the holder's unexplained starvation accounts for (it waited at least that long
 * for a CPU in the meantime) is not judged: see `starvation.ts`.
 *
 * A queue without lease extension has no heartbeat to learn of a loss by, but its worker knows
 * the deadline it was given: the bound is then the longest unit + ε from the expiry. River
 * cancels the handler's context at `JobTimeout` and keeps it; pg-boss 10 never stops an expired
 * handler (its issue 555), and this is where that shows.
 *
 * Nor is an effect after the worker cancelled the handler and the handler went on regardless
 * (an `abort-ignored` event of the claim, at or before the effect): the worker kept its side of
 * the watchdog contract, the handler broke its own. Such zombies are a warning naming the
 * handler; a worker that never cancelled (no watchdog, a silenced heartbeat) is still judged.
 */
import { deriveHistory } from '../history/derive.js';
import type { DerivedClaim, DerivedHistory } from '../history/derive-types.js';
import type { EffectEvent, HistoryEvent } from '../history/types.js';
import {
  EvidenceLog,
  at,
  claimEvents,
  claimRef,
  historyWarnings,
  eventRef,
  faultsDuring,
} from './evidence.js';
import { FROZEN_KINDS, coveredMs } from './fault-windows.js';
import { controllerTolerance, resolveOptions } from './options.js';
import { toResult } from './result.js';
import { StarvedVerdicts, starvationOn } from './starvation.js';
import { distribution, round } from './stats.js';
import type { Checker, Evidence } from './types.js';

const META = { name: 'bounded-zombie', id: 'I7' } as const;

/** I7: effects under a lost claim stop within heartbeat + longest unit + ε. */
export const boundedZombie: Checker = {
  ...META,
  description:
    "After a worker's claim is lost, its effects for that job stop within one heartbeat period " +
    '+ one unit duration + ε.',
  check(history, partial) {
    const options = resolveOptions(partial);
    const derived = deriveHistory(history);
    const events = history.events;
    // No lease extension: no heartbeat term, the worker's own deadline is its watchdog.
    const noHeartbeat = history.header.queueTerms?.extendsLease === false;
    const heartbeatMs = noHeartbeat ? 0 : history.header.lease.heartbeatMs;
    const workerTolerance = controllerTolerance(history, options);
    const violations = new EvidenceLog(options.maxEvidence);
    const counts = {
      claimsLost: 0,
      zombies: 0,
      overBound: 0,
      unjudged: 0,
      starved: 0,
      ignoredCancellation: 0,
    };
    const ignoredEvents = history.events.flatMap((e, index) =>
      e.type === 'worker' && e.kind === 'abort-ignored' ? [{ e, index }] : [],
    );
    const ignoring = new EvidenceLog(options.maxEvidence);
    const starved = new StarvedVerdicts(derived);
    const windows: number[] = [];
    for (const claim of derived.claims) {
      const reported = claim.reportedLost >= 0 ? events[claim.reportedLost]!.t : NaN;
      if (Number.isNaN(claim.expiredAt) && Number.isNaN(reported)) continue;
      counts.claimsLost += 1;
      const byWorker = Number.isNaN(claim.expiredAt) || reported < claim.expiredAt;
      const lostAt = byWorker ? reported : claim.expiredAt;
      const tolerance = byWorker ? workerTolerance : options.epsilonMs;
      let lastAfter = NaN;
      let judged = true;
      let flagged = false;
      let excused = false;
      let handlerFault = false;
      const ignored = cancellationIgnored(ignoredEvents, claim);
      for (const index of claim.effects) {
        const t = events[index]!.t;
        if (t <= lostAt) continue;
        lastAfter = t;
        if (flagged || !judged) continue;
        if (t >= ignored.t) {
          if (!handlerFault) {
            handlerFault = true;
            counts.ignoredCancellation += 1;
            if (ignoring.take())
              ignoring.add(ignoredEvidence(derived, claim, ignored.index, lostAt));
          }
          continue;
        }
        if (Number.isNaN(claim.job.maxUnitMs)) {
          judged = false;
          continue;
        }
        const frozen = coveredMs(derived, claim.worker, FROZEN_KINDS, lostAt, t);
        const bound = heartbeatMs + claim.job.maxUnitMs + tolerance + frozen;
        if (t - lostAt <= bound) continue;
        const over = t - lostAt - bound;
        const starvation = starvationOn(derived, claim.worker, lostAt, t);
        if (starvation.worst !== undefined && starvation.ms + tolerance >= over) {
          if (!excused) {
            counts.starved += 1;
            starved.excuse(starvation.worst, `the ${round(over)}ms over the watchdog bound`);
          }
          excused = true;
          continue;
        }
        flagged = true;
        counts.overBound += 1;
        if (violations.take()) {
          violations.add(
            evidence(derived, claim, index, lostAt, byWorker, bound, frozen, noHeartbeat),
          );
        }
      }
      if (Number.isNaN(lastAfter)) continue;
      counts.zombies += 1;
      if (!judged) counts.unjudged += 1;
      windows.push(lastAfter - lostAt);
    }
    const handlerWarnings =
      counts.ignoredCancellation > 0
        ? [
            `${counts.ignoredCancellation} lost claim(s) went on doing effects after their worker ` +
              'cancelled the handler, which ignored its cancellation: the handler broke its ' +
              "contract, not the queue (the late ack is the queue's to reject)",
          ]
        : [];
    return toResult(META, options, {
      violations,
      counts,
      stats: { zombieWindowMs: distribution(windows) },
      warnings: [...handlerWarnings, ...historyWarnings(derived)],
      warningEvidence: ignoring,
      ...(unknownWhyOf(counts.unjudged, starved) ?? {}),
    });
  },
};

/**
 * The first `abort-ignored` event of `claim`: where its worker is known to have cancelled the
 * handler, which went on. From then on, effects are the handler's doing.
 */
function cancellationIgnored(
  ignoredEvents: readonly { e: HistoryEvent; index: number }[],
  claim: DerivedClaim,
): { t: number; index: number } {
  for (const { e, index } of ignoredEvents) {
    if (e.type !== 'worker' || e.job !== claim.job.id || e.worker !== claim.worker) continue;
    // The audit holder is the claim token, or the worker itself for a queue that fences by worker.
    if (e.token !== claim.holder && claim.holder !== claim.worker) continue;
    if (e.t >= claim.grantT) return { t: e.t, index };
  }
  return { t: Infinity, index: -1 };
}

function ignoredEvidence(
  derived: DerivedHistory,
  claim: DerivedClaim,
  ignoredIndex: number,
  lostAt: number,
): Evidence {
  const ignored = derived.history.events[ignoredIndex]!;
  const events = claimEvents(derived, claim);
  if (claim.reportedLost >= 0)
    events.push(eventRef(derived, claim.reportedLost, 'worker learned the claim was lost'));
  events.push(eventRef(derived, ignoredIndex, 'handler ignored its cancellation'));
  const effects = claim.effects.filter((i) => derived.history.events[i]!.t >= ignored.t);
  const last = derived.history.events[effects[effects.length - 1] ?? ignoredIndex]!;
  return {
    job: claim.job.id,
    message:
      `the handler of job ${claim.job.id} on ${claim.worker} ignored its cancellation: its ` +
      `worker cancelled it by ${at(derived, ignored.t)} after claim ${claim.attempt} was lost at ` +
      `${at(derived, lostAt)}, and it did ${effects.length} effect(s) more, the last ` +
      `${round(last.t - lostAt)}ms after the loss`,
    claims: [claimRef(claim)],
    events: events.sort((a, b) => a.index - b.index),
    faults: faultsDuring(derived, [claim.worker], lostAt, last.t),
  };
}

function unknownWhyOf(
  unjudged: number,
  starved: StarvedVerdicts,
): { unknownWhy: string } | undefined {
  const why = starved.why();
  const reasons = [
    ...(unjudged > 0
      ? [
          `${unjudged} lost claim(s) did effects after the loss, but their job has no ` +
            'handler plan (job event with maxUnitMs) to bound them by',
        ]
      : []),
    ...(why === undefined ? [] : [why]),
  ];
  return reasons.length > 0 ? { unknownWhy: reasons.join('; ') } : undefined;
}

function evidence(
  derived: DerivedHistory,
  claim: DerivedClaim,
  effectIndex: number,
  lostAt: number,
  byWorker: boolean,
  bound: number,
  frozen: number,
  noHeartbeat: boolean,
): Evidence {
  const effect = derived.history.events[effectIndex] as EffectEvent;
  const how = byWorker ? 'the worker reported it lost' : 'it expired';
  const events = claimEvents(derived, claim);
  if (claim.reportedLost >= 0)
    events.push(eventRef(derived, claim.reportedLost, 'worker learned the claim was lost'));
  events.push(eventRef(derived, effectIndex, `effect of unit ${effect.unit} after the loss`));
  return {
    job: claim.job.id,
    message:
      `${claim.worker} did the effect of unit ${effect.unit} at ${at(derived, effect.t)}, ` +
      `${round(effect.t - lostAt)}ms after its claim ${claim.attempt} was lost at ` +
      `${at(derived, lostAt)} (${how}); the watchdog bound is ${round(bound)}ms ` +
      `(${noHeartbeat ? 'no heartbeat: from the deadline, ' : 'heartbeat + '}longest unit + ε` +
      `${frozen > 0 ? ` + ${round(frozen)}ms frozen` : ''})`,
    claims: [claimRef(claim)],
    events: events.sort((a, b) => a.index - b.index),
    faults: faultsDuring(derived, [claim.worker], lostAt, effect.t),
  };
}
