/**
 * Audit transitions, read as lease events: which change grants a claim, extends it, completes
 * the job or releases it — and, judged at the statement's time, whether the claim had expired
 * by then.
 */
import type { DerivationState } from './derive-state.js';
import { fenceT } from './fence-time.js';
import {
  DerivedClaim,
  DerivedCompletion,
  type ClaimCloser,
  type DerivedJob,
} from './derive-types.js';
import type { AuditEvent, LeaseImage, WorkerHistoryEvent } from './types.js';

/** Applies audit event `i` to the state. */
export function applyAudit(s: DerivationState, i: number, e: AuditEvent): void {
  const job = s.job(e.job);
  const next = e.new;
  if (e.op === 'insert') {
    if (job.insert < 0) job.insert = i;
    if (next !== null) {
      job.state = next.state;
      if (next.state === 'held') grant(s, i, e, job, next);
    }
    return;
  }
  if (e.op === 'delete') {
    remove(s, i, e, job);
    return;
  }
  if (next === null) return;
  const old = e.old;
  const current = job.current;
  if (e.liveness === true) {
    // A heartbeat of the holder's liveness row, seen in its own snapshot: an extension of the
    // claim that holder still has, or nothing (the claim ended meanwhile).
    if (current !== null && current.holder === next.holder && job.state === 'held') {
      if (next.deadline !== current.deadline) extend(i, e, current, next.deadline);
    }
    return;
  }
  if (next.state === 'held') {
    const sameHolder =
      old?.state === 'held' && old.holder === next.holder && current?.holder === next.holder;
    if (sameHolder && !takenOver(s, e, current) && !claimCall(s, i)) {
      // Same holder, still held: an extension — or a checkpoint, which leaves the deadline.
      if (next.deadline !== current.deadline) extend(i, e, current, next.deadline);
      else {
        // A write after the deadline passed: the claim expired then, whatever it revives.
        if (Number.isNaN(current.expiredAt) && fenceT(e) > current.expiresAt) {
          current.expiredAt = current.expiresAt;
        }
        if (e.t > current.lastActivityT) current.lastActivityT = e.t;
      }
    } else {
      if (current !== null) close(current, i, e, old?.deadline ?? current.deadline, 'grant');
      grant(s, i, e, job, next);
    }
  } else if (next.state === 'completed') {
    if (old?.state !== 'completed') complete(s, i, e, job, current, 'update');
    // Writing `completed` over `completed` is a second ack committing (an unfenced ack); only
    // a worker's statement counts, so a harness touching finished rows is not one.
    else if (s.workerApps.has(e.app)) complete(s, i, e, job, null, 'update');
  } else if (current !== null) {
    const swept = sweeps(s, i, e, current);
    if (swept) s.sweeps.add(i);
    close(current, i, e, current.deadline, e.app === current.worker && !swept ? 'fail' : 'reap');
    job.releases.push(i);
  } else if (old?.state !== next.state) {
    job.releases.push(i);
  }
  job.state = next.state;
}

/**
 * Whether release `i` is a sweep: it returns to the queue a claim whose lease had passed by the
 * database's clock when the write was judged, and no fail call on the job made it. Queues reap
 * on the poll path (a worker's claim call first returns expired claims, River's rescuer and
 * db-scheduler's dead-execution detection do it from a worker's process), so the connection
 * that writes may be any worker's, the lost holder's own included; what the write does decides,
 * not who sent it. A fail call's write stays the holder's word on its claim: late, it is a stale
 * write (I1), and on another's live claim a revocation (I4).
 */
function sweeps(s: DerivationState, i: number, e: AuditEvent, claim: DerivedClaim): boolean {
  const deadline = Math.max(e.old?.deadline ?? claim.deadline, claim.deadlineSetT);
  return fenceT(e) > deadline && !s.failWrites.has(i);
}

/**
 * Whether a same-holder write is another worker taking over an expired claim: a queue that
 * reuses the claim token makes a re-claim look like an extension, and only the writer and the
 * expiry tell them apart.
 */
function takenOver(s: DerivationState, e: AuditEvent, current: DerivedClaim): boolean {
  // A grant writes a new deadline; a late checkpoint by the stale holder leaves it.
  const newDeadline = e.new?.deadline !== e.old?.deadline;
  return (
    newDeadline &&
    e.app !== current.worker &&
    s.workerApps.has(e.app) &&
    fenceT(e) > current.expiresAt
  );
}

/**
 * Whether audit write `i` was made by a worker's claim call (by identity: its backend). Every
 * grant opens a new claim, whoever gets it and whatever its token: a queue that reuses tokens
 * re-grants an expired job to the worker that held it under the same token, and that write,
 * read as an extension, made a correct worker's re-claim "a resurrected lease".
 */
function claimCall(s: DerivationState, i: number): boolean {
  const call = s.calls.callOf(i);
  return call !== undefined && (s.events[call.complete] as WorkerHistoryEvent).kind === 'claim';
}

function grant(s: DerivationState, i: number, e: AuditEvent, job: DerivedJob, image: LeaseImage) {
  const holder = image.holder ?? '';
  const deadline = image.deadline ?? NaN;
  const claim = new DerivedClaim(
    job,
    job.claims.length + 1,
    holder,
    e.app,
    i,
    e.t,
    e.stmtT,
    deadline,
  );
  job.claims.push(claim);
  job.current = claim;
  s.claims.push(claim);
  s.byHolder.set(holder, claim);
  s.workerApps.add(e.app);
  s.workerOf(e.app).claims.push(claim);
}

function extend(i: number, e: AuditEvent, claim: DerivedClaim, deadline: number | null): void {
  // Expiry is the first moment the clock passed the deadline: an extension that a weakly
  // fenced queue lets through afterwards revives the claim but does not undo the expiry.
  if (Number.isNaN(claim.expiredAt) && fenceT(e) > claim.expiresAt) {
    claim.expiredAt = claim.expiresAt;
  }
  claim.deadline = deadline ?? NaN;
  claim.deadlineSetT = e.stmtT;
  claim.extensions.push(i);
  if (Number.isNaN(claim.expiredAt)) claim.lastConfirmT = e.t;
  if (e.t > claim.lastActivityT) claim.lastActivityT = e.t;
}

/** Closes a claim at audit event `i`, judged at `fenceT(e)`. */
function close(
  claim: DerivedClaim,
  i: number,
  e: AuditEvent,
  deadline: number,
  closer: ClaimCloser,
) {
  const expiresAt = Math.max(deadline, claim.deadlineSetT);
  if (Number.isNaN(claim.expiredAt) && fenceT(e) > expiresAt) claim.expiredAt = expiresAt;
  claim.closedBy = closer;
  claim.closeIndex = i;
  if (e.app === claim.worker && (closer === 'ack' || closer === 'fail')) {
    claim.released = true;
    if (e.t > claim.lastActivityT) claim.lastActivityT = e.t;
  }
  if (claim.job.current === claim) claim.job.current = null;
}

function complete(
  s: DerivationState,
  i: number,
  e: AuditEvent,
  job: DerivedJob,
  current: DerivedClaim | null,
  kind: 'update' | 'delete',
): void {
  const holderClaim = current !== null && e.old?.state === 'held' ? current : null;
  const by = ackerOf(s, i, job, e.app, holderClaim);
  if (current !== null) close(current, i, e, e.old?.deadline ?? current.deadline, 'ack');
  if (by !== null && e.t > by.lastActivityT) by.lastActivityT = e.t;
  job.completions.push(new DerivedCompletion(i, kind, holderClaim, by));
}

/**
 * Which claim an ack (audit write `i`) was made under. The audit names only the row's holder;
 * the worker's own ack names its token. The ack call that made the write, found by identity (its
 * backend, `CallWrites`), decides; without backends, the latest ack invoke by the same worker
 * in the history's order. That order is by time, and a loaded worker's times ran behind the
 * database's: a re-claimed job's ack committed before the worker's invoke of it was ordered,
 * and the same worker's earlier, rejected ack for the expired claim was taken as the acker —
 * a correct queue judged to have committed a stale ack.
 */
function ackerOf(
  s: DerivationState,
  i: number,
  job: DerivedJob,
  app: string,
  holderClaim: DerivedClaim | null,
): DerivedClaim | null {
  const call = s.calls.callOf(i);
  const made = call === undefined ? undefined : (s.events[call.complete] as WorkerHistoryEvent);
  const op = made?.kind === 'ack' ? made : lastOp(s, job);
  const token = op?.worker === app && op.kind === 'ack' ? op.token : undefined;
  if (token !== undefined) {
    // The same worker's claim first: a queue that reuses tokens gives one token to several.
    for (let k = job.claims.length - 1; k >= 0; k -= 1) {
      if (job.claims[k]!.holder === token && job.claims[k]!.worker === app) return job.claims[k]!;
    }
    for (let k = job.claims.length - 1; k >= 0; k -= 1) {
      if (job.claims[k]!.holder === token) return job.claims[k]!;
    }
  }
  if (holderClaim?.worker === app) return holderClaim;
  for (let k = job.claims.length - 1; k >= 0; k -= 1) {
    if (job.claims[k]!.worker === app) return job.claims[k]!;
  }
  return null;
}

function remove(s: DerivationState, i: number, e: AuditEvent, job: DerivedJob): void {
  job.deleted = true;
  const current = job.current;
  if (!s.workerApps.has(e.app)) {
    // The harness purging rows is not a completion.
    if (current !== null) close(current, i, e, current.deadline, 'reap');
    return;
  }
  const op = lastOp(s, job);
  if (op?.worker === e.app && op.kind === 'fail') {
    // A queue that completes by deleting may dead-letter the same way; the worker's own last
    // word on the job says which it was.
    if (current !== null) close(current, i, e, current.deadline, 'fail');
    job.releases.push(i);
    job.state = 'dead';
    return;
  }
  if (e.old?.state === 'completed') return;
  complete(s, i, e, job, current, 'delete');
  job.state = 'completed';
}

function lastOp(s: DerivationState, job: DerivedJob): WorkerHistoryEvent | undefined {
  return job.lastOp >= 0 ? (s.events[job.lastOp] as WorkerHistoryEvent) : undefined;
}
