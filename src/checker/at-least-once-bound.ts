/**
 * I5 at-least-once-bound: executions of a job ≤ 1 + its released claims, and every execution
 * after the first runs under a claim granted after an earlier claim was released. An execution
 * is a claim under which any work happened (an effect, a unit, an abort); work under a token
 * that is no claim of the job at all is an execution nobody granted.
 *
 * "Released" is design.md's "expired", plus a claim the queue released because the handler
 * failed: a retry after a reported failure is the queue doing its job, not a duplicate. Every
 * execution beyond the first is counted as a duplicate in the stats; only the unexplained ones
 * are violations.
 */
import { deriveHistory } from '../history/derive.js';
import type { DerivedClaim, DerivedHistory, DerivedJob } from '../history/derive-types.js';
import type { EffectEvent, WorkerHistoryEvent } from '../history/types.js';
import { EvidenceLog, at, claimRef, historyWarnings, eventRef, faultsDuring } from './evidence.js';
import { resolveOptions } from './options.js';
import { toResult } from './result.js';
import type { Checker, Evidence, EvidenceEvent } from './types.js';

const META = { name: 'at-least-once-bound', id: 'I5' } as const;

/** I5: executions ≤ 1 + released claims; a re-execution follows a release. */
export const atLeastOnceBound: Checker = {
  ...META,
  description:
    'Executions of a job ≤ 1 + its expired claims; every execution after the first runs under ' +
    'a claim granted after an earlier claim expired.',
  check(history, partial) {
    const options = resolveOptions(partial);
    const derived = deriveHistory(history);
    const violations = new EvidenceLog(options.maxEvidence);
    const counts = {
      jobs: 0,
      executions: 0,
      duplicates: 0,
      jobsWithDuplicates: 0,
      duplicateEffects: 0,
      unexplained: 0,
    };
    let maxExecutions = 0;
    for (const job of derived.jobs.values()) {
      counts.jobs += 1;
      let executions = 0;
      let released = 0;
      const executing: DerivedClaim[] = [];
      for (const claim of job.claims) {
        if (claim.executed) {
          executions += 1;
          executing.push(claim);
          if (executions > 1 + released) {
            counts.unexplained += 1;
            if (violations.take()) violations.add(unexplained(derived, job, executing, released));
          }
        }
        if (claim.end === 'expired' || claim.end === 'failed') released += 1;
      }
      const rogue = rogueTokens(derived, job);
      for (const [token, indices] of rogue) {
        executions += 1;
        counts.unexplained += 1;
        if (violations.take()) violations.add(rogueEvidence(derived, job, token, indices));
      }
      counts.executions += executions;
      if (executions > maxExecutions) maxExecutions = executions;
      if (executions > 1) {
        counts.jobsWithDuplicates += 1;
        counts.duplicates += executions - 1;
        counts.duplicateEffects += duplicateEffects(derived, job);
      }
    }
    return toResult(META, options, {
      violations,
      counts,
      stats: { maxExecutionsPerJob: maxExecutions },
      warnings: historyWarnings(derived),
    });
  },
};

/** Effects of a job done again: (unit) pairs recorded more than once, counted beyond the first. */
function duplicateEffects(derived: DerivedHistory, job: DerivedJob): number {
  const seen = new Set<number>();
  let again = 0;
  const count = (index: number): void => {
    const unit = (derived.history.events[index] as EffectEvent).unit;
    if (seen.has(unit)) again += 1;
    else seen.add(unit);
  };
  for (const claim of job.claims) claim.effects.forEach(count);
  for (const index of job.orphans) {
    if (derived.history.events[index]!.type === 'effect') count(index);
  }
  return again;
}

/** Work under tokens that are no claim of the job, grouped by token. */
function rogueTokens(derived: DerivedHistory, job: DerivedJob): Map<string, number[]> {
  const byToken = new Map<string, number[]>();
  for (const index of job.orphans) {
    const e = derived.history.events[index] as EffectEvent | WorkerHistoryEvent;
    const token = e.token ?? '';
    let list = byToken.get(token);
    if (list === undefined) byToken.set(token, (list = []));
    list.push(index);
  }
  return byToken;
}

function firstWork(derived: DerivedHistory, claim: DerivedClaim): EvidenceEvent {
  const e = claim.effects[0];
  const w = claim.work[0];
  const index = e === undefined ? w! : w === undefined ? e : Math.min(e, w);
  return eventRef(derived, index, `first work under claim ${claim.attempt} (${claim.worker})`);
}

function unexplained(
  derived: DerivedHistory,
  job: DerivedJob,
  executing: DerivedClaim[],
  released: number,
): Evidence {
  const claim = executing[executing.length - 1]!;
  const shown = executing.slice(-4);
  return {
    job: job.id,
    message:
      `execution ${executing.length} under ${claim.worker}'s claim ${claim.attempt} ` +
      `(granted ${at(derived, claim.grantT)}) with only ${released} earlier claim(s) expired or ` +
      `released: a duplicate no expiry explains`,
    claims: shown.map(claimRef),
    events: shown.flatMap((c) => [
      eventRef(derived, c.grant, `grant to ${c.worker}`),
      firstWork(derived, c),
    ]),
    faults: faultsDuring(
      derived,
      shown.map((c) => c.worker),
      shown[0]!.grantT,
      claim.lastActivityT,
    ),
  };
}

function rogueEvidence(
  derived: DerivedHistory,
  job: DerivedJob,
  token: string,
  indices: number[],
): Evidence {
  const first = derived.history.events[indices[0]!] as EffectEvent | WorkerHistoryEvent;
  return {
    job: job.id,
    message:
      `${first.worker} worked on the job under token ${token} at ${at(derived, first.t)}, ` +
      'which is no claim of the job: an execution nobody granted',
    claims: job.claims.map(claimRef),
    events: indices.slice(0, 4).map((i) => eventRef(derived, i, `work under ${token}`)),
    faults: faultsDuring(derived, [first.worker], first.t, first.t),
  };
}
