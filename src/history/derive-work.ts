/**
 * Effects and worker events, attached to the claim they were done under: the executions of a
 * job, its worker's word that a claim was lost, and when its worker let go of it.
 */
import type { DerivationState } from './derive-state.js';
import type { DerivedClaim } from './derive-types.js';
import type { EffectEvent, WorkerHistoryEvent } from './types.js';

/** Applies effect event `i`. */
export function applyEffect(s: DerivationState, i: number, e: EffectEvent): void {
  const claim = resolve(s, e.job, e.token, e.worker, e.t);
  if (claim === null) s.deferred.push(i);
  else attach(s, i, claim);
}

/** Applies worker event `i`: the worker's life, and its word on a claim. */
export function applyWorkerEvent(s: DerivationState, i: number, e: WorkerHistoryEvent): void {
  // A probe's word says the process ran, not that the worker is back at work (reconnected,
  // claiming): it must not end a down interval. Checkers read starvation from the events.
  if (e.kind === 'starved') return;
  // Nor is the harness-run sweep (`leaseproof-maintenance`) a worker: it claims nothing, and a
  // worker that never claims would look free for the whole run to I8.
  if (e.kind === 'sweep') return;
  const worker = s.workerOf(e.worker);
  if (Number.isNaN(worker.firstT)) worker.firstT = e.t;
  // Nor does a claim that failed: after a database restart the first attempts are refused
  // ("the database system is starting up") while the worker reconnects. Every failed claim
  // drops the connection, so the next attempt that reaches the database says `connect` first.
  const stillCut = e.kind === 'claim' && e.outcome === 'info';
  // A claim that failed on a broken connection says the worker is cut off from its queue from
  // then on (a library's loop that found its connection dead after a partition healed, and is
  // being restarted): not free until it works again.
  if (stillCut && Number.isNaN(worker.downSince)) {
    worker.downSince = e.t;
  }
  // Nor does the `ready` of a worker whose loop sets itself up after `go` (a library's own
  // loop): it is back at work from its first claim, and its set-up is no free worker's delay.
  const settingUp = e.kind === 'ready' && e.startsOnGo === true;
  if (!Number.isNaN(worker.downSince) && !stillCut && !settingUp) {
    // A worker that speaks is up again (a crashed worker restarted).
    worker.down.push(worker.downSince, e.t);
    worker.downSince = NaN;
  }
  if (e.kind === 'exit') {
    worker.downSince = e.t;
    return;
  }
  if (e.job === undefined || e.token === undefined) return;
  if ((e.kind === 'ack' || e.kind === 'fail') && e.phase === 'invoke') s.job(e.job).lastOp = i;
  const claim = resolve(s, e.job, e.token, e.worker, e.t);
  if (claim === null) s.deferred.push(i);
  else attach(s, i, claim);
}

/**
 * Attaches the events that came before their claim's grant, once every grant is known; work
 * that matches no claim at all goes to the job's orphans.
 */
export function attachDeferred(s: DerivationState): void {
  if (s.deferred.length === 0) return;
  const touched = new Set<DerivedClaim>();
  for (const i of s.deferred) {
    const e = s.events[i] as EffectEvent | WorkerHistoryEvent;
    const claim =
      e.job === undefined || e.token === undefined
        ? null
        : resolve(s, e.job, e.token, e.worker, Infinity);
    if (claim === null) {
      if (e.type === 'effect' || e.kind === 'unit' || e.kind === 'abort') {
        s.job(e.job!).orphans.push(i);
      }
      continue;
    }
    attach(s, i, claim);
    touched.add(claim);
  }
  for (const claim of touched) {
    claim.effects.sort((a, b) => a - b);
    claim.work.sort((a, b) => a - b);
  }
}

function attach(s: DerivationState, i: number, claim: DerivedClaim): void {
  const e = s.events[i] as EffectEvent | WorkerHistoryEvent;
  if (e.t > claim.lastActivityT) claim.lastActivityT = e.t;
  if (e.type === 'effect') {
    claim.effects.push(i);
    return;
  }
  if (e.kind === 'abort' || ((e.kind === 'ack' || e.kind === 'fail') && e.phase === 'complete')) {
    claim.released = true;
  }
  if (e.kind === 'claim' && e.invokedT !== undefined) claim.sentT = e.invokedT;
  if (e.kind === 'unit' || e.kind === 'abort') claim.work.push(i);
  else if (
    claim.reportedLost < 0 &&
    (e.kind === 'lost' || (e.kind === 'extend' && e.outcome === 'fail'))
  ) {
    claim.reportedLost = i;
  }
}

function resolve(
  s: DerivationState,
  jobId: string,
  token: string,
  worker: string,
  t: number,
): DerivedClaim | null {
  const claim = s.byHolder.get(token);
  if (claim !== undefined && claim.job.id === jobId && claim.worker === worker) return claim;
  const job = s.jobs.get(jobId);
  if (job === undefined) return null;
  // A queue that reuses tokens across claims gives one token to several workers' claims: the
  // one this worker was granted is the one its events are about.
  if (claim !== undefined && claim.job.id === jobId) {
    for (let k = job.claims.length - 1; k >= 0; k -= 1) {
      const c = job.claims[k]!;
      if (c.worker === worker && c.holder === token && c.grantT <= t) return c;
    }
    return claim;
  }
  // Holders that are worker ids say nothing about which claim a token names: the worker's
  // latest claim on the job is the one. So for a holder a worker keeps on all its jobs at once
  // (pgqueuer's queue manager id): the token names the worker, the job names the claim.
  for (let k = job.claims.length - 1; k >= 0; k -= 1) {
    const c = job.claims[k]!;
    if (c.worker === worker && (c.holder === worker || c.holder === token) && c.grantT <= t) {
      return c;
    }
  }
  return null;
}
