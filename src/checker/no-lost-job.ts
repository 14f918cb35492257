/**
 * I3 no-lost-job: after faults heal and the queue drains, every enqueued job is completed — or
 * dead-lettered, when the scenario allows it (`header.allowDeadLetter`). It needs the whole
 * history: a cut history says `unknown`, and so does a lost job while a fault never healed,
 * since the invariant only speaks of a queue whose faults have healed.
 *
 * A job claimed again and again without completing is often a job whose claims were left too
 * little of their lease to finish (a claim in a transaction begun long before its write, over a
 * slow link): its evidence then says how little, and why (`short-leases`), since I6 — which
 * accepts such a deadline — only warns.
 *
 * A queue that declares no lease extension cannot complete a job whose work outlasts one lease:
 * such a job is not lost but out of the queue's promise, and when only such jobs are not done
 * the verdict is `n/a`, with the reason. Any other job not done is still a violation.
 */
import { deriveHistory } from '../history/derive.js';
import type { DerivedJob } from '../history/derive-types.js';
import type { DerivedClaim, DerivedHistory } from '../history/derive-types.js';
import { EvidenceLog, at, claimRef, eventRef, faultsDuring } from './evidence.js';
import { controllerTolerance, resolveOptions } from './options.js';
import { isShort, leasesLeft, type LeaseLeft } from './short-leases.js';
import { shortClaimsClause } from './short-lease-text.js';
import { toResult } from './result.js';
import type { Checker, EvidenceEvent } from './types.js';

const META = { name: 'no-lost-job', id: 'I3' } as const;

/** I3: every enqueued job is completed (or dead-lettered where allowed) by the end. */
export const noLostJob: Checker = {
  ...META,
  description:
    'After faults heal and the queue drains, every enqueued job is completed (or ' +
    'dead-lettered after its attempts, where the scenario allows).',
  check(history, partial) {
    const options = resolveOptions(partial);
    const derived = deriveHistory(history);
    const violations = new EvidenceLog(options.maxEvidence);
    const allowDead = history.header.allowDeadLetter === true;
    // A queue that declares no retries cannot complete a job whose first attempts fail by plan:
    // such a job ending failed is what the scenario asked of a queue it does not fit, not a loss.
    const needsRetries = lacksRetries(history);
    let shortGrants: Map<DerivedClaim, LeaseLeft> | undefined;
    // A queue that declares no lease extension promises nothing for a job whose work outlasts
    // its lease: each claim expires under it (pg-boss 10, graphile-worker say so) — or outlasts
    // the limit it puts on one attempt, where that is shorter (River's JobTimeout cuts each
    // attempt long before RescueStuckJobsAfter lets another worker take the job).
    const terms = history.header.queueTerms;
    const leaseMs = terms?.attemptLimitMs ?? history.header.lease.durationMs;
    const limitWords =
      terms?.attemptLimitMs === undefined ? 'lease' : 'attempt limit (the library cuts it)';
    const noExtension = terms?.extendsLease === false;
    const outlastsLease = (job: DerivedJob): boolean => noExtension && job.totalMs > leaseMs;
    const counts = {
      jobs: 0,
      completed: 0,
      deadLettered: 0,
      failedWithoutRetries: 0,
      needsExtension: 0,
      lost: 0,
    };
    let longest = 0;
    if (derived.endIndex < 0) {
      return toResult(META, options, {
        violations,
        counts,
        unknownWhy: `the history was cut at ${at(derived, derived.endT)} (no end event): a job may still have completed`,
      });
    }
    for (const job of derived.jobs.values()) {
      if (job.insert < 0 && job.plan < 0) continue;
      counts.jobs += 1;
      if (job.completed) {
        counts.completed += 1;
        continue;
      }
      const dead = job.state === 'dead' || job.state === 'failed';
      if (dead && allowDead) {
        counts.deadLettered += 1;
        continue;
      }
      if (dead && needsRetries !== undefined) {
        counts.failedWithoutRetries += 1;
        continue;
      }
      if (outlastsLease(job)) {
        counts.needsExtension += 1;
        longest = Math.max(longest, job.totalMs);
        continue;
      }
      counts.lost += 1;
      if (!violations.take()) continue;
      shortGrants ??= shortGrantsOf(
        derived,
        options.epsilonMs,
        controllerTolerance(history, options),
      );
      violations.add({
        job: job.id,
        message:
          `${describe(job, dead)} when the run ended at ${at(derived, derived.endT)}` +
          shortClaims(job, shortGrants),
        claims: job.claims.slice(-3).map(claimRef),
        events: lastEvents(job),
        faults: faultsDuring(
          derived,
          job.claims.slice(-1).map((c) => c.worker),
          derived.endT,
          derived.endT,
        ),
      });
    }
    // A skewed clock is not a fault a correct queue has to heal from, and is often left on.
    const unhealed = derived.faults.filter((f) => f.end > derived.endT && f.fault !== 'clock');
    const warnings =
      derived.drained || counts.lost > 0
        ? []
        : ['the run reported it did not drain, yet every job is done by the audit'];
    if (counts.lost > 0 && unhealed.length > 0) {
      return toResult(META, options, {
        violations: new EvidenceLog(0),
        warningEvidence: violations,
        counts,
        warnings,
        unknownWhy:
          `${counts.lost} job(s) not done, but fault(s) ${unhealed.map((f) => `${f.fault}@${f.target}`).join(', ')} ` +
          'had not healed when the run ended',
      });
    }
    if (counts.lost === 0 && counts.failedWithoutRetries > 0 && needsRetries !== undefined) {
      return toResult(META, options, {
        violations,
        counts,
        warnings,
        // The queue declares it does not retry: a property it does not promise, like a lease
        // extension it lacks — not a history the checker could not judge.
        naWhy: `${counts.failedWithoutRetries} job(s) ended failed: ${needsRetries}`,
      });
    }
    if (counts.lost === 0 && counts.needsExtension > 0) {
      return toResult(META, options, {
        violations,
        counts,
        warnings,
        naWhy:
          `queue "${history.header.queue}" declares no lease extension, and the ` +
          `${counts.needsExtension} job(s) not done need more than one ${leaseMs}ms ${limitWords} of work ` +
          `(the longest ${Math.round(longest)}ms): every ${terms?.attemptLimitMs === undefined ? 'claim of such a job expires' : 'attempt of such a job is cut'} under it, ` +
          'by the queue’s design; the scenario asks for what it does not promise',
      });
    }
    return toResult(META, options, { violations, counts, warnings });

    function lastEvents(job: DerivedJob): EvidenceEvent[] {
      const events: EvidenceEvent[] = [];
      if (job.insert >= 0) events.push(eventRef(derived, job.insert, 'enqueued'));
      else events.push(eventRef(derived, job.plan, 'planned (no insert in the audit)'));
      const last = job.claims[job.claims.length - 1];
      if (last !== undefined) {
        events.push(eventRef(derived, last.grant, `last grant, to ${last.worker}`));
        if (last.closeIndex >= 0)
          events.push(eventRef(derived, last.closeIndex, `closed (${last.closedBy})`));
      }
      const release = job.releases[job.releases.length - 1];
      if (release !== undefined && !events.some((e) => e.index === release)) {
        events.push(eventRef(derived, release, 'last release'));
      }
      return events.sort((a, b) => a.index - b.index);
    }
  },
};

/** The grants that left their holder short of the lease, by claim (computed once per check). */
function shortGrantsOf(
  derived: DerivedHistory,
  epsilonMs: number,
  tolerance: number,
): Map<DerivedClaim, LeaseLeft> {
  const short = leasesLeft(derived, epsilonMs, tolerance).filter(
    (l) => l.what === 'grant' && isShort(l, epsilonMs),
  );
  return new Map(short.map((l) => [l.claim, l]));
}

/** `: each of its 9 claims was left …` when the job's claims were left short leases, else ''. */
function shortClaims(job: DerivedJob, short: Map<DerivedClaim, LeaseLeft>): string {
  const these = job.claims.flatMap((c) => short.get(c) ?? []);
  return these.length === 0 ? '' : `: ${shortClaimsClause(these, job.claims.length)}`;
}

/**
 * Why a failed job is not judged, when the scenario fails early attempts by plan and the queue
 * declares no retries; undefined otherwise.
 */
function lacksRetries(history: Parameters<Checker['check']>[0]): string | undefined {
  const failAttempts = history.header.failAttempts ?? 0;
  if (failAttempts <= 0 || history.header.queueTerms?.retries !== false) return undefined;
  return (
    `scenario "${history.header.scenario}" fails the first ${failAttempts} attempt(s) of every ` +
    `job and needs retries to complete them; queue "${history.header.queue}" has none ` +
    '(retries: false)'
  );
}

function describe(job: DerivedJob, dead: boolean): string {
  if (dead) return `dead-lettered (${job.state}), which this scenario does not allow,`;
  if (job.claims.length === 0) return `never claimed (state ${job.state ?? 'unknown'})`;
  return `not completed after ${job.claims.length} claim(s) (state ${job.state ?? 'unknown'})`;
}
