/**
 * One pass over a history that gathers, per job, what every checker asks about: its claims
 * (grant, deadline history, expiry, how each ended), the work done under each claim, its
 * completions and releases; per worker, its claims and when it was down; the faults as
 * intervals. Checkers read this instead of the raw events, so nine checkers cost one pass.
 *
 * Claims are identified by the audit `holder` (`derive-audit.ts`); a worker's events and
 * effects name a token, which is the holder when the adapter's holder is a claim token
 * (`derive-work.ts`). Events before their claim's grant (a worker's clock converted with some
 * uncertainty can put one a hair early) are attached after the pass.
 */
import { applyAudit } from './derive-audit.js';
import { DerivationState } from './derive-state.js';
import { DerivedFault, type DerivedHistory } from './derive-types.js';
import { applyEffect, applyWorkerEvent, attachDeferred } from './derive-work.js';
import type { History, NemesisEvent } from './types.js';

const derived = new WeakMap<History, DerivedHistory>();

/**
 * Derives per-job claims, executions and completions from `history`. The result is cached per
 * history object, so every checker of one verdict shares one pass; a history must therefore not
 * be changed after it was first derived (build a new `History` object instead).
 */
export function deriveHistory(history: History): DerivedHistory {
  let result = derived.get(history);
  if (result === undefined) {
    result = derive(history);
    derived.set(history, result);
  }
  return result;
}

function derive(history: History): DerivedHistory {
  const { events } = history;
  const s = new DerivationState(events, history.header);
  const faults = new Faults(s);
  let endIndex = -1;
  for (let i = 0; i < events.length; i += 1) {
    const event = events[i]!;
    switch (event.type) {
      case 'audit':
        applyAudit(s, i, event);
        break;
      case 'effect':
        applyEffect(s, i, event);
        break;
      case 'worker':
        applyWorkerEvent(s, i, event);
        break;
      case 'nemesis':
        faults.apply(i, event);
        break;
      case 'job': {
        const job = s.job(event.job);
        if (job.plan < 0) job.plan = i;
        job.maxUnitMs = event.maxUnitMs;
        job.totalMs = event.totalMs ?? NaN;
        job.blocks = event.blocks === true;
        break;
      }
      case 'end':
        endIndex = i;
        break;
    }
  }
  const endT = events[events.length - 1]?.t ?? history.header.startedAt;
  attachDeferred(s);
  settle(s, endT);
  const end = endIndex >= 0 ? events[endIndex] : undefined;
  return {
    history,
    jobs: s.jobs,
    claims: s.claims,
    faults: faults.all,
    faultsByTarget: faults.byTarget,
    workers: s.workers,
    endIndex,
    endT,
    drained: end?.type === 'end' && end.drained,
    warnings: s.warnings,
    sweeps: s.sweeps,
  };
}

/** Nemesis events as fault intervals; a crash takes its worker down. */
class Faults {
  readonly all: DerivedFault[] = [];
  readonly byTarget = new Map<string, DerivedFault[]>();
  private readonly byId = new Map<string, DerivedFault>();
  /** Faults that struck a worker already down: recorded, but they explain and change nothing. */
  private readonly withoutEffect = new Set<string>();

  constructor(private readonly s: DerivationState) {}

  apply(i: number, e: NemesisEvent): void {
    if (e.phase === 'start') {
      const fault = new DerivedFault(e.id, e.fault, e.target, e.t, i);
      this.byId.set(e.id, fault);
      if (e.detail?.noEffect !== undefined) {
        this.withoutEffect.add(e.id);
        return;
      }
      this.all.push(fault);
      let list = this.byTarget.get(e.target);
      if (list === undefined) this.byTarget.set(e.target, (list = []));
      list.push(fault);
      if (e.fault === 'crash') {
        const worker = this.s.workerOf(e.target);
        if (Number.isNaN(worker.downSince)) worker.downSince = e.t;
      }
      return;
    }
    const fault = this.byId.get(e.id);
    if (fault === undefined || fault.endIndex >= 0) {
      this.s.warnings.push(`nemesis event ${i}: end of fault ${e.id}, which did not start`);
      return;
    }
    fault.end = e.t;
    fault.endIndex = i;
    if (this.withoutEffect.has(e.id)) return;
    // A healed fault leaves its workers reconnecting (a healed partition closes their
    // connections; a restarted database drops them all): a worker counts as up again only
    // once it speaks — its first event after the fault, as after a crash.
    if (fault.fault === 'clock' || fault.fault === 'crash') return;
    const workers =
      fault.target === 'db' ? [...this.s.workers.values()] : [this.s.workerOf(fault.target)];
    for (const worker of workers) {
      if (Number.isNaN(worker.downSince)) worker.downSince = e.t;
    }
  }
}

/** Settles what only the end can tell: claims whose deadline passed with nothing after. */
function settle(s: DerivationState, endT: number): void {
  for (const claim of s.claims) {
    if (Number.isNaN(claim.expiredAt) && claim.closeIndex < 0 && claim.expiresAt < endT) {
      claim.expiredAt = claim.expiresAt;
    }
    if (!Number.isNaN(claim.expiredAt)) claim.end = 'expired';
    else if (claim.closedBy === 'ack') claim.end = 'acked';
    else if (claim.closedBy === 'fail' || claim.closedBy === 'reap') claim.end = 'failed';
    else if (claim.closedBy === 'grant') claim.end = 'replaced';
  }
  for (const worker of s.workers.values()) {
    if (!Number.isNaN(worker.downSince)) worker.down.push(worker.downSince, Infinity);
  }
}
