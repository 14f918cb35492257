/**
 * Injects exactly one anomaly into a history of the correct-queue model, one kind per checker,
 * and says what the responsible checker must cite: the job, and the claim where there is one.
 * Edits never touch the original's event objects; they work on copies and re-sort by time
 * (stably), keeping the end event last and after everything else.
 */
import { deriveHistory } from '../../src/history/derive.js';
import type { DerivedClaim } from '../../src/history/derive-types.js';
import type { AuditEvent, EndEvent, History, HistoryEvent } from '../../src/history/types.js';

/** The kinds, by the name of the checker that must flag them. */
export const ANOMALY_KINDS = [
  'no-stale-ack',
  'single-completion',
  'no-lost-job',
  'exclusive-claim',
  'at-least-once-bound',
  'lease-honored',
  'bounded-zombie',
  'timely-recovery',
  'explained-expiry',
] as const;

/** One of them. */
export type AnomalyKind = (typeof ANOMALY_KINDS)[number];

/** A history with one anomaly, and what the evidence must name. */
export interface Injected {
  history: History;
  job: string;
  /** The holder of the claim involved, when there is one. */
  holder?: string;
}

/** Injects an anomaly of `kind`, choosing among candidates with `pick`; undefined if none fits. */
export function injectAnomaly(
  history: History,
  kind: AnomalyKind,
  pick: number,
): Injected | undefined {
  const derived = deriveHistory(history);
  const choose = <T>(list: T[]): T | undefined => list[pick % Math.max(1, list.length)];
  const lease = history.header.lease;
  switch (kind) {
    case 'no-stale-ack': {
      // The holder's own ack, moved to 2 ms after its claim's deadline.
      const acked = derived.claims.filter(
        (c) => c.end === 'acked' && c.job.completions[0]?.by === c,
      );
      const claim = choose(acked);
      if (claim === undefined) return undefined;
      const ack = history.events[claim.closeIndex] as AuditEvent;
      const late = claim.deadline + 2;
      return edit(history, { job: claim.job.id, holder: claim.holder }, (events) => {
        events[claim.closeIndex] = { ...ack, stmtT: late, txnT: late, t: late + 0.05 };
      });
    }
    case 'single-completion': {
      const claim = choose(derived.claims.filter((c) => c.end === 'acked'));
      if (claim === undefined) return undefined;
      const ack = history.events[claim.closeIndex] as AuditEvent;
      const done = ack.new!;
      return edit(history, { job: claim.job.id }, (events) => {
        events.push({
          ...ack,
          t: ack.t + 0.01,
          stmtT: ack.stmtT + 0.01,
          txnT: ack.txnT + 0.01,
          old: done,
          new: done,
        });
      });
    }
    case 'no-lost-job': {
      const end = history.events[history.events.length - 1]!;
      return edit(history, { job: 'injected' }, (events) => {
        events.push({ type: 'job', t: end.t - 0.5, job: 'injected', units: 1, maxUnitMs: 10 });
        events.push(
          audit(end.t - 0.5, 'leaseproof', 'insert', 'injected', null, {
            holder: null,
            deadline: null,
            state: 'pending',
          }),
        );
      });
    }
    case 'exclusive-claim': {
      // Another worker is granted the job halfway through a claim that is held and unexpired.
      const claim = choose(derived.claims.filter((c) => openUntil(history, c) - c.grantT > 1));
      if (claim === undefined) return undefined;
      const at = (claim.grantT + openUntil(history, claim)) / 2;
      const other = history.header.workers.find((w) => w !== claim.worker) ?? 'w-other';
      return edit(history, { job: claim.job.id, holder: claim.holder }, (events) => {
        const old = {
          holder: claim.holder,
          deadline: deadlineAt(history, claim, at),
          state: 'held' as const,
        };
        events.push(
          audit(at, other, 'update', claim.job.id, old, {
            holder: 'injected',
            deadline: at + lease.durationMs,
            state: 'held',
          }),
        );
      });
    }
    case 'at-least-once-bound': {
      // An effect under a token that is no claim: work nobody granted.
      const claim = choose(derived.claims.filter((c) => c.end === 'acked'));
      if (claim === undefined) return undefined;
      const t = (claim.grantT + history.events[claim.closeIndex]!.t) / 2;
      return edit(history, { job: claim.job.id }, (events) => {
        events.push({
          type: 'effect',
          t,
          worker: claim.worker,
          job: claim.job.id,
          token: 'rogue',
          unit: 0,
        });
      });
    }
    case 'lease-honored': {
      const claim = choose(derived.claims);
      if (claim === undefined) return undefined;
      const index = [claim.grant, ...claim.extensions][pick % (1 + claim.extensions.length)]!;
      const e = history.events[index] as AuditEvent;
      return edit(history, { job: claim.job.id, holder: claim.holder }, (events) => {
        events[index] = { ...e, new: { ...e.new!, deadline: e.new!.deadline! + 90_000 } };
      });
    }
    case 'bounded-zombie': {
      // An effect under a lost claim, three heartbeats + a unit after every fault is over: no
      // frozen time can excuse it.
      const claim = choose(derived.claims.filter((c) => !Number.isNaN(c.expiredAt)));
      if (claim === undefined) return undefined;
      const lastFault = Math.max(
        claim.expiredAt,
        ...history.events.filter((e) => e.type === 'nemesis').map((e) => e.t),
      );
      const t = lastFault + 3 * lease.heartbeatMs + claim.job.maxUnitMs;
      return edit(history, { job: claim.job.id, holder: claim.holder }, (events) => {
        events.push({
          type: 'effect',
          t,
          worker: claim.worker,
          job: claim.job.id,
          token: claim.holder,
          unit: 0,
        });
      });
    }
    case 'timely-recovery':
      return lateReclaim(history);
    case 'explained-expiry': {
      // Forget the forced pause: the expiry of the claim it cost is left with no cause.
      const forced = history.events.find((e) => e.type === 'nemesis' && e.id === 'forced');
      if (forced === undefined || forced.type !== 'nemesis') return undefined;
      const claim = derived.claims.find(
        (c) => c.worker === forced.target && !Number.isNaN(c.expiredAt),
      );
      if (claim === undefined) return undefined;
      return edit(history, { job: claim.job.id, holder: claim.holder }, (events) => {
        for (let k = events.length - 1; k >= 0; k -= 1) {
          const e = events[k]!;
          if (e.type === 'nemesis' && e.id === 'forced') events.splice(k, 1);
        }
      });
    }
  }
}

/**
 * After the run: a job granted to one worker, which is paused past the lease; its claim expires
 * and a second, idle worker re-claims it only ten poll intervals later. The workers' `exit`
 * events go, so that they are still there to be free.
 */
function lateReclaim(history: History): Injected | undefined {
  const [a, b] = history.header.workers;
  if (a === undefined || b === undefined) return undefined;
  const { durationMs, pollMs } = history.header.lease;
  const e = history.events[history.events.length - 1]!.t;
  const expiry = e + 2 + durationMs;
  const reclaim = expiry + 10 * pollMs + 30;
  return edit(history, { job: 'late', holder: 'late-a' }, (events) => {
    for (let k = events.length - 1; k >= 0; k -= 1) {
      const ev = events[k]!;
      if (ev.type === 'worker' && ev.kind === 'exit') events.splice(k, 1);
    }
    events.push({ type: 'job', t: e + 1, job: 'late', units: 1, maxUnitMs: 10 });
    events.push(
      audit(e + 1, 'leaseproof', 'insert', 'late', null, {
        holder: null,
        deadline: null,
        state: 'pending',
      }),
    );
    events.push({ type: 'worker', t: e + 1.5, worker: b, kind: 'ready' });
    events.push(
      audit(
        e + 2,
        a,
        'update',
        'late',
        { holder: null, deadline: null, state: 'pending' },
        { holder: 'late-a', deadline: expiry, state: 'held' },
      ),
    );
    events.push({
      type: 'nemesis',
      t: e + 3,
      phase: 'start',
      fault: 'pause',
      target: a,
      id: 'late-pause',
    });
    events.push({
      type: 'nemesis',
      t: e + 3 + 3 * durationMs,
      phase: 'end',
      fault: 'pause',
      target: a,
      id: 'late-pause',
    });
    const held = { holder: 'late-b', deadline: reclaim + durationMs, state: 'held' as const };
    events.push(
      audit(
        reclaim,
        b,
        'update',
        'late',
        { holder: 'late-a', deadline: expiry, state: 'held' },
        held,
      ),
    );
    events.push(
      audit(reclaim + 5, b, 'update', 'late', held, {
        holder: null,
        deadline: null,
        state: 'completed',
      }),
    );
  });
}

/** Until when a claim is held and unexpired: its closing event or its deadline, the earlier. */
function openUntil(history: History, claim: DerivedClaim): number {
  const closed = claim.closeIndex >= 0 ? history.events[claim.closeIndex]!.t : Infinity;
  const expired = Number.isNaN(claim.expiredAt) ? Infinity : claim.expiredAt;
  return Math.min(closed, expired, claim.deadline);
}

/** The deadline a claim had at time `t`: its grant's, moved by the extensions before `t`. */
function deadlineAt(history: History, claim: DerivedClaim, t: number): number {
  let deadline = (history.events[claim.grant] as AuditEvent).new!.deadline!;
  for (const index of claim.extensions) {
    const e = history.events[index] as AuditEvent;
    if (e.t < t) deadline = e.new!.deadline!;
  }
  return deadline;
}

function audit(
  stmtT: number,
  app: string,
  op: AuditEvent['op'],
  job: string,
  old: AuditEvent['old'],
  next: AuditEvent['new'],
): AuditEvent {
  return {
    type: 'audit',
    t: stmtT + 0.05,
    stmtT,
    txnT: stmtT,
    xid: 'injected',
    app,
    op,
    job,
    old,
    new: next,
  };
}

function edit(
  history: History,
  cited: Omit<Injected, 'history'>,
  change: (events: HistoryEvent[]) => void,
): Injected {
  const events: HistoryEvent[] = history.events.filter((e) => e.type !== 'end');
  const end = history.events.find((e): e is EndEvent => e.type === 'end')!;
  change(events);
  events.sort((a, b) => a.t - b.t);
  const last = events[events.length - 1]?.t ?? end.t;
  events.push({ ...end, t: Math.max(end.t, last + 1) });
  return { history: { header: history.header, events }, ...cited };
}
