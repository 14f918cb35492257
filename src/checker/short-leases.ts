/**
 * The lease a grant or an extension left its holder. I6 accepts a deadline counted from the
 * transaction's start (`now()`) on purpose: the arithmetic is right. But a claim made in an
 * explicit transaction of several statements is written long after that start over a slow link,
 * and its holder gets what is left — 0.8 s of a 2 s lease in the run that raised this, every
 * job claimed nine times and none completed. These are the figures that say so.
 *
 * The history has no commit time (the audit trigger runs at the write, and PostgreSQL keeps no
 * commit timestamps unless `track_commit_timestamp` is on). What it has brackets the commit:
 * the write's `clock_timestamp()` before it, and the worker's answer after it. So a lease is
 * told twice: what was left at the write — at most what was left once it committed — and what
 * was left when the answer reached the worker, which is all the holder had to work with.
 */
import { CallWrites } from '../history/call-writes.js';
import type { DerivedClaim, DerivedHistory } from '../history/derive-types.js';
import type { AuditEvent, WorkerHistoryEvent } from '../history/types.js';

/**
 * A lease is short when the write left less than the configured lease by more than ε plus this
 * fraction of it. A tenth: less is the size of a round trip on the links a scenario slows and
 * changes nothing a worker plans by (its first heartbeat comes a fraction of the lease in); the
 * run that raised this lost four tenths.
 */
export const SHORT_LEASE_FRACTION = 0.1;

/** What one grant or extension left its holder, on the database clock. */
export interface LeaseLeft {
  /** The audit write's index. */
  index: number;
  /** The claim it granted or extended. */
  claim: DerivedClaim;
  /** Which write. */
  what: 'grant' | 'extension';
  /** The configured lease it should give (`durationMs` or `extendByMs`). */
  leaseMs: number;
  /** Deadline − the write's `clock_timestamp()`: at most what was left once it committed. */
  atWriteMs: number;
  /** Where the deadline was counted from: the transaction's start or the statement's. */
  countedFrom: 'transaction' | 'statement';
  /** How long before the write that was: the write's time − (deadline − lease). */
  countedBeforeMs: number;
  /** When the worker's answer came, after the write; NaN when no answer of the call is known. */
  answerAfterMs: number;
  /** Deadline − when the worker's answer came: what the holder had; NaN without an answer. */
  atAnswerMs: number;
}

/**
 * What every grant and extension whose deadline I6 honors (statement or transaction time + the
 * lease, within ε) left its holder. A write off by more than ε is I6's violation, told there.
 * `tolerance` is how far a worker's converted time may be off the database clock: an answer is
 * the call's that made the write (by backend pid), or without pids the first `ok` answer of that
 * kind by that worker on that job from the write on, within a lease.
 */
export function leasesLeft(
  derived: DerivedHistory,
  epsilonMs: number,
  tolerance: number,
): LeaseLeft[] {
  const { events, header } = derived.history;
  const answers = new Answers(derived, tolerance);
  const out: LeaseLeft[] = [];
  const add = (claim: DerivedClaim, index: number, what: LeaseLeft['what'], leaseMs: number) => {
    const e = events[index] as AuditEvent;
    const deadline = e.new?.deadline;
    if (deadline === null || deadline === undefined) return;
    const from = countedFrom(e, deadline, leaseMs, epsilonMs);
    if (from === undefined) return;
    const answerT = answers.of(index, what === 'grant' ? 'claim' : 'extend', leaseMs);
    out.push({
      index,
      claim,
      what,
      leaseMs,
      atWriteMs: deadline - e.t,
      countedFrom: from,
      countedBeforeMs: e.t - (deadline - leaseMs),
      answerAfterMs: answerT - e.t,
      atAnswerMs: deadline - answerT,
    });
  };
  for (const claim of derived.claims) {
    add(claim, claim.grant, 'grant', header.lease.durationMs);
    for (const x of claim.extensions) add(claim, x, 'extension', header.lease.extendByMs);
  }
  return out;
}

/** Whether `l` left its holder less than the lease by more than ε + `SHORT_LEASE_FRACTION`. */
export function isShort(l: LeaseLeft, epsilonMs: number): boolean {
  return l.leaseMs - l.atWriteMs > epsilonMs + SHORT_LEASE_FRACTION * l.leaseMs;
}

/**
 * Which start an honored deadline was counted from — the closer of the statement's and the
 * transaction's, as I6 judges it — or undefined when neither is within ε.
 */
function countedFrom(
  e: AuditEvent,
  deadline: number,
  leaseMs: number,
  epsilonMs: number,
): LeaseLeft['countedFrom'] | undefined {
  const byStatement = Math.abs(deadline - (e.stmtT + leaseMs));
  const byTransaction = Math.abs(deadline - (e.txnT + leaseMs));
  if (Math.min(byStatement, byTransaction) > epsilonMs) return undefined;
  return byTransaction < byStatement ? 'transaction' : 'statement';
}

/** When the worker's answer to the call that made a write came (database clock). */
class Answers {
  private readonly calls: CallWrites;
  /** `ok` answers by worker, kind and job, in time order: the fallback without pids. */
  private readonly byKey = new Map<string, number[]>();

  constructor(
    private readonly derived: DerivedHistory,
    private readonly tolerance: number,
  ) {
    const { events, header } = derived.history;
    this.calls = new CallWrites(events, tolerance, header.lease.durationMs);
    for (const e of events) {
      if (e.type !== 'worker' || e.phase !== 'complete' || e.outcome !== 'ok') continue;
      if (e.kind !== 'claim' && e.kind !== 'extend') continue;
      const key = answerKey(e.worker, e.kind, e.job ?? '');
      let list = this.byKey.get(key);
      if (list === undefined) this.byKey.set(key, (list = []));
      list.push(e.t);
    }
  }

  /** The answer's time, or NaN: an answer that was not `ok` told the worker nothing it held. */
  of(index: number, kind: 'claim' | 'extend', leaseMs: number): number {
    const events = this.derived.history.events;
    const write = events[index] as AuditEvent;
    const call = this.calls.callOf(index);
    if (call !== undefined) {
      const done = events[call.complete] as WorkerHistoryEvent;
      return done.kind === kind && done.outcome === 'ok' ? call.to : NaN;
    }
    const list = this.byKey.get(answerKey(write.app, kind, write.job)) ?? [];
    const t = list.find((a) => a >= write.t - this.tolerance);
    return t !== undefined && t <= write.t + leaseMs ? t : NaN;
  }
}

function answerKey(worker: string, kind: string, job: string): string {
  return `${worker}\u0000${kind}\u0000${job}`;
}
