/**
 * I6 lease-honored: every grant sets deadline = database time of the statement + the lease, and
 * every extension deadline = that time + extendBy, within ε. A queue doing lease arithmetic on a
 * worker's clock is off by the worker's skew, which is what this catches. "Database time of the
 * statement" is `stmtT` or `txnT` (`now()` in a transaction of several statements): both are the
 * server's clock, whichever is closer counts.
 *
 * An extension the worker saw succeed whose write left the deadline where it was — or that wrote
 * nothing — is a violation too (`unmovedExtensions`): the worker believes in a lease the
 * database never granted.
 *
 * A deadline counted from a transaction's start that came long before the write is honored, but
 * it leaves its holder less than the lease: that is a warning with the figures (`short-leases`),
 * not a violation — the arithmetic is right, and what it costs shows in I3 and I8.
 *
 * A queue whose lease is per worker (`queueTerms.perWorkerLease`: procrastinate's heartbeat row)
 * is judged against that lease: a job it fetches joins its worker's current window, so a grant
 * whose deadline is that window's end (earlier than fetch + lease, still ahead) is counted
 * (`joinedWorkerWindow`), not a violation; the heartbeats that move the window are judged.
 *
 * A library may declare a lease tolerance in its contract (`queueTerms.leaseTolerance`): how far
 * off a deadline stays within the precision it promises, with why (db-scheduler: one
 * heartbeatInterval, as it counts its lease in heartbeats and stamps `last_heartbeat` from its
 * JVM's clock read before the statement). Grants and extensions are then judged by it where it
 * is larger than ε; the deadlines off by more than ε and within it are counted
 * (`withinLeaseTolerance`) and warned of, with the largest offset, never hidden.
 */
import { deriveHistory } from '../history/derive.js';
import type { DerivedClaim, DerivedHistory } from '../history/derive-types.js';
import type { AuditEvent } from '../history/types.js';
import { EvidenceLog, at, claimRef, historyWarnings, eventRef, faultsDuring } from './evidence.js';
import { controllerTolerance, resolveOptions } from './options.js';
import { unmovedExtensions } from './unmoved-extensions.js';
import { isShort, leasesLeft, type LeaseLeft } from './short-leases.js';
import { ms, shortLeaseWarning } from './short-lease-text.js';
import { toResult } from './result.js';
import { round } from './stats.js';
import type { Checker } from './types.js';

const META = { name: 'lease-honored', id: 'I6' } as const;

/** I6: deadlines are the statement's database time plus the configured lease, within ε. */
export const leaseHonored: Checker = {
  ...META,
  description:
    'Every grant and extension sets deadline = (database time of the statement) + configured ' +
    "lease, within ε (or within the lease tolerance the queue's library declares, if larger).",
  check(history, partial) {
    const options = resolveOptions(partial);
    const derived = deriveHistory(history);
    const { durationMs, extendByMs } = history.header.lease;
    const events = history.events;
    const violations = new EvidenceLog(options.maxEvidence);
    const counts = {
      grants: 0,
      extensions: 0,
      offGrants: 0,
      offExtensions: 0,
      workerExtensions: 0,
      unmovedExtensions: 0,
      shortGrants: 0,
      shortExtensions: 0,
      joinedWorkerWindow: 0,
      withinLeaseTolerance: 0,
    };
    // A lease kept per worker (procrastinate's heartbeat row) gives a job it fetches what is left
    // of its worker's window: judged against that lease, such a grant is right. Its extensions
    // (the worker's heartbeats) are judged as every queue's are.
    const perWorker = history.header.queueTerms?.perWorkerLease !== undefined;
    // A deadline the library's own precision allows: judged by that where it is wider than ε.
    const declared = history.header.queueTerms?.leaseTolerance;
    const tolerance = Math.max(options.epsilonMs, declared?.ms ?? 0);
    const judge = { toleranceMs: tolerance, declared };
    let maxOff = 0;
    let maxTolerated = 0;
    const tolerated = (off: number) => {
      if (Math.abs(off) <= options.epsilonMs || !(Math.abs(off) <= tolerance)) return;
      counts.withinLeaseTolerance += 1;
      maxTolerated = Math.max(maxTolerated, Math.abs(off));
    };
    for (const claim of derived.claims) {
      counts.grants += 1;
      const grant = events[claim.grant] as AuditEvent;
      const g = offBy(grant, durationMs);
      const joined =
        perWorker && g < -options.epsilonMs && (grant.new?.deadline ?? -Infinity) > grant.stmtT;
      if (joined) counts.joinedWorkerWindow += 1;
      else if (Math.abs(g) > maxOff) maxOff = Math.abs(g);
      // A NaN offset (no deadline at all) is a violation too: hence !(… <= ε), not … > ε.
      if (!joined) tolerated(g);
      if (!joined && !(Math.abs(g) <= tolerance)) {
        counts.offGrants += 1;
        if (violations.take())
          violations.add(evidence(derived, claim, claim.grant, g, 'grant', durationMs, judge));
      }
      for (const index of claim.extensions) {
        counts.extensions += 1;
        const x = offBy(events[index] as AuditEvent, extendByMs);
        if (Math.abs(x) > maxOff) maxOff = Math.abs(x);
        tolerated(x);
        if (Math.abs(x) <= tolerance) continue;
        counts.offExtensions += 1;
        if (violations.take())
          violations.add(evidence(derived, claim, index, x, 'extension', extendByMs, judge));
      }
    }
    const reported = unmovedExtensions(derived, controllerTolerance(history, options));
    counts.workerExtensions = reported.examined;
    counts.unmovedExtensions = reported.unmoved.length;
    for (const u of reported.unmoved) {
      if (!violations.take()) continue;
      const invoke = events[u.invoke]!;
      const last = u.writes.length > 0 ? (events[u.writes.at(-1)!] as AuditEvent) : undefined;
      const job = derived.jobs.get(u.job);
      const doneT = events[u.complete]!.t;
      const claim = job?.claims.filter((c) => c.worker === u.worker && c.grantT <= doneT).at(-1);
      const expected = last === undefined ? NaN : last.stmtT + extendByMs;
      const message =
        last === undefined
          ? `extension by ${u.worker} at ${at(derived, invoke.t)} reported success but no write committed`
          : `extension by ${u.worker} at ${at(derived, last.stmtT)} reported success but the deadline stayed at ` +
            `${at(derived, last.new!.deadline!)} (expected ≈ ${at(derived, expected)} = statement time + ` +
            `extendByMs ${extendByMs}ms)`;
      violations.add({
        job: u.job,
        message,
        claims: claim === undefined ? [] : [claimRef(claim)],
        events: [
          eventRef(derived, u.invoke, 'extend sent'),
          ...u.writes.map((k) => eventRef(derived, k, 'write that left the deadline')),
          eventRef(derived, u.complete, 'extend reported ok'),
        ],
        faults: faultsDuring(derived, [u.worker], invoke.t, events[u.complete]!.t),
      });
    }
    const left = leasesLeft(derived, options.epsilonMs, controllerTolerance(history, options));
    const short = left.filter((l) => isShort(l, options.epsilonMs));
    const shortOf = (what: LeaseLeft['what']) => short.filter((l) => l.what === what);
    counts.shortGrants = shortOf('grant').length;
    counts.shortExtensions = shortOf('extension').length;
    const warnings = historyWarnings(derived);
    if (counts.withinLeaseTolerance > 0 && declared !== undefined) {
      warnings.push(
        `${String(counts.withinLeaseTolerance)} of ${String(counts.grants + counts.extensions)} ` +
          `deadlines were off statement time + lease by more than ε (${String(options.epsilonMs)}ms), ` +
          `at most ${ms(maxTolerated)}, within the lease tolerance of ${ms(declared.ms)} the ` +
          `queue's library declares: ${declared.why}`,
      );
    }
    const examples = new EvidenceLog(options.maxEvidence);
    for (const [what, total] of [
      ['grant', counts.grants],
      ['extension', counts.extensions],
    ] as const) {
      const these = shortOf(what);
      if (these.length === 0) continue;
      warnings.push(shortLeaseWarning(these, total));
      // The shortest of them is the example the reports pin on the timeline.
      const worst = these.reduce((a, b) => (b.atWriteMs < a.atWriteMs ? b : a));
      if (examples.take()) examples.add(shortEvidence(derived, worst));
    }
    return toResult(META, options, {
      violations,
      counts,
      stats: { maxOffsetMs: round(maxOff) },
      warnings,
      warningEvidence: examples,
    });
  },
};

/** The shortest lease a grant or extension left: the example of I6's warning. */
function shortEvidence(derived: DerivedHistory, l: LeaseLeft) {
  const e = derived.history.events[l.index] as AuditEvent;
  const answer = Number.isNaN(l.atAnswerMs)
    ? ''
    : `, ${ms(l.atAnswerMs)} when the answer reached ${e.app} ${ms(l.answerAfterMs)} later`;
  return {
    job: l.claim.job.id,
    message:
      `${l.what} by ${e.app} written at ${at(derived, e.t)} left ${ms(l.atWriteMs)} of the ` +
      `${l.leaseMs}ms lease${answer}: its deadline ${at(derived, e.new!.deadline!)} was counted ` +
      `from the ${l.countedFrom}'s start, ${ms(l.countedBeforeMs)} before the write`,
    claims: [claimRef(l.claim)],
    events: [eventRef(derived, l.index, `${l.what} left ${ms(l.atWriteMs)}`)],
    faults: faultsDuring(derived, [l.claim.worker], e.txnT, e.t),
  };
}

/** Deadline minus (statement time + lease), by the closer of stmtT and txnT; NaN without one. */
function offBy(e: AuditEvent, leaseMs: number): number {
  const deadline = e.new?.deadline;
  if (deadline === null || deadline === undefined) return NaN;
  const byStatement = deadline - (e.stmtT + leaseMs);
  const byTransaction = deadline - (e.txnT + leaseMs);
  return Math.abs(byStatement) <= Math.abs(byTransaction) ? byStatement : byTransaction;
}

function evidence(
  derived: DerivedHistory,
  claim: DerivedClaim,
  index: number,
  off: number,
  what: 'grant' | 'extension',
  leaseMs: number,
  judge: { toleranceMs: number; declared: { ms: number; why: string } | undefined },
) {
  const e = derived.history.events[index] as AuditEvent;
  const setting = what === 'grant' ? 'durationMs' : 'extendByMs';
  // Beyond the library's own precision, when it declares one: the evidence says which.
  const beyond =
    judge.declared === undefined || judge.toleranceMs !== judge.declared.ms
      ? ''
      : `, beyond the lease tolerance of ${ms(judge.declared.ms)} its library declares`;
  const message = Number.isNaN(off)
    ? `${what} by ${e.app} at ${at(derived, e.stmtT)} left the job held with no deadline`
    : `${what} by ${e.app} at ${at(derived, e.stmtT)} set the deadline to ${at(derived, e.new!.deadline!)}: ` +
      `${round(Math.abs(off))}ms ${off > 0 ? 'later' : 'earlier'} than statement time + ${setting} ` +
      `(${leaseMs}ms)${beyond} — ` +
      offsetCause(derived, claim, index, off, leaseMs, setting, judge.toleranceMs);
  return {
    job: claim.job.id,
    message,
    claims: [claimRef(claim)],
    events: [eventRef(derived, index, `${what} with deadline off by ${round(off)}ms`)],
    faults: faultsDuring(derived, [claim.worker], e.stmtT, e.t),
  };
}

/**
 * What a deadline `off` ms from statement time + lease was measured against, when the history
 * can tell: a clock fault on the writer (the arithmetic followed the worker's clock), another
 * starting point on the database clock (the claim's grant, the old deadline, the enqueue), or
 * the wrong unit. "Off the database clock" only where a worker's clock explains it.
 */
function offsetCause(
  derived: DerivedHistory,
  claim: DerivedClaim,
  index: number,
  off: number,
  leaseMs: number,
  setting: string,
  epsilonMs: number,
): string {
  const e = derived.history.events[index] as AuditEvent;
  const deadline = e.new!.deadline!;
  const within = (base: number) => Math.abs(deadline - (base + leaseMs)) <= epsilonMs;
  const clock = derived.faultsByTarget
    .get(e.app)
    ?.find((f) => f.fault === 'clock' && f.start <= e.stmtT && e.stmtT <= f.end);
  const skew = clock === undefined ? undefined : clockOffsetOf(derived, clock.startIndex);
  if (clock !== undefined && skew !== undefined && Math.abs(off - skew) <= epsilonMs) {
    return (
      `lease arithmetic on ${e.app}'s clock, which clock fault ${clock.id} set ` +
      `${round(Math.abs(skew))}ms ${skew > 0 ? 'ahead' : 'behind'}, not the database's`
    );
  }
  // A library that stamps its deadlines from its client's clock, read before the statement is
  // sent (db-scheduler's last_heartbeat), loses from its lease whatever held the statement up
  // between that reading and the database: a fault on the writer or the database says which.
  if (derived.history.header.queueTerms?.leaseTolerance !== undefined && off < 0) {
    const readAt = deadline - leaseMs;
    const held = derived.faults.find(
      (f) =>
        f.fault !== 'clock' &&
        (f.target === e.app || !/^w\d+$/.test(f.target)) &&
        f.start <= e.stmtT &&
        f.end >= readAt,
    );
    if (held !== undefined) {
      return (
        `${e.app} stamped it from its own clock, read at about ${at(derived, readAt)}, and the ` +
        `statement reached the database ${round(e.stmtT - readAt)}ms later, held up by ` +
        `${held.fault} ${held.id} on ${held.target}: a deadline stamped before the statement ` +
        'is sent shrinks by its delay'
      );
    }
  }
  if (index !== claim.grant && within(claim.grantStmtT)) {
    return (
      `it is the claim's grant time (${at(derived, claim.grantStmtT)}) + ${setting}: the ` +
      `arithmetic started from when the job was claimed, not from the statement`
    );
  }
  const old = e.old?.deadline;
  if (index !== claim.grant && old !== null && old !== undefined && within(old)) {
    return (
      `it is the old deadline (${at(derived, old)}) + ${setting}: the arithmetic added to the ` +
      `deadline instead of starting from the statement's time`
    );
  }
  const insert =
    claim.job.insert >= 0 ? (derived.history.events[claim.job.insert] as AuditEvent) : undefined;
  if (insert !== undefined && within(insert.stmtT)) {
    return (
      `it is the enqueue time (${at(derived, insert.stmtT)}) + ${setting}: the arithmetic ` +
      `started from when the job was enqueued`
    );
  }
  // A queue that keeps its lease per worker (procrastinate: the worker's heartbeat row) gives a
  // job it fetches what is left of its worker's current window, not a lease of its own.
  const perWorker = derived.history.header.queueTerms?.perWorkerLease;
  if (perWorker !== undefined && index === claim.grant && off < 0 && deadline > e.stmtT) {
    return (
      `the lease is kept per worker (${perWorker}): the job joined its worker's current ` +
      `window, which its last heartbeat opened ${round(-off)}ms before this fetch, instead of ` +
      `getting ${setting} of its own`
    );
  }
  if (perWorker !== undefined && index === claim.grant && deadline <= e.stmtT) {
    // The worker fetched while its own window was already shut (its heartbeat late, e.g. just
    // back from a pause): the job was held past its deadline from the moment it was granted.
    return (
      `the lease is kept per worker (${perWorker}) and ${e.app}'s window had already closed at ` +
      `${at(derived, deadline)}, ${round(e.stmtT - deadline)}ms before this fetch: a worker ` +
      'whose heartbeat was stale took a job it held with no lease left, and any recovery could ' +
      'take it back at once'
    );
  }
  const ratio = (deadline - e.stmtT) / leaseMs;
  for (const [factor, unit] of [
    [1000, 'seconds'],
    [0.001, 'microseconds'],
    [60_000, 'minutes'],
  ] as const) {
    if (Math.abs(ratio - factor) <= Math.max(0.01 * factor, epsilonMs / leaseMs)) {
      return `it is statement time + ${setting} taken as ${unit}: a lease in the wrong unit`;
    }
  }
  return (
    `it matches no starting point on the database clock (the statement's time, the claim's, ` +
    `the old deadline, the enqueue), nor a clock fault on ${e.app}: lease arithmetic off the ` +
    `database clock`
  );
}

/** The `offsetMs` a clock fault's start event carries, if any. */
function clockOffsetOf(derived: DerivedHistory, startIndex: number): number | undefined {
  const start = derived.history.events[startIndex];
  const offset = start?.type === 'nemesis' ? start.detail?.offsetMs : undefined;
  return typeof offset === 'number' ? offset : undefined;
}
