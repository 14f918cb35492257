/**
 * Extensions the worker saw succeed that did not move the deadline: the worker's own record (an
 * `extend` invoke and its `ok` complete) against the audit's. An adapter that answers "extended"
 * while its UPDATE left the deadline where it was (or wrote nothing at all) gives the worker a
 * lease the database never granted; the audit alone cannot tell such a write from a checkpoint,
 * which is why the worker's word is needed to judge it.
 */
import type { DerivedHistory } from '../history/derive-types.js';
import type { AuditEvent, HistoryEvent, WorkerHistoryEvent } from '../history/types.js';
import { CallWrites } from '../history/call-writes.js';

/** One extension reported `ok` whose committed writes left the deadline unmoved. */
export interface UnmovedExtension {
  /** The `extend` complete event's index. */
  complete: number;
  /** Its invoke's index. */
  invoke: number;
  /** The worker. */
  worker: string;
  /** The job. */
  job: string;
  /** The audit writes by the worker on the job in the call's window (all left the deadline). */
  writes: number[];
}

/**
 * The `ok` extensions with no audit write that moved the deadline among the writes the call made
 * (`CallWrites`: by the backend pid the worker reported, or — without one — between the invoke
 * and the complete ± `tolerance`, the uncertainty of the worker's times on the database clock).
 * A write that did move it is judged by the per-extension check of lease-honored, not here.
 *
 * Where the connection is known, a call found unmoved is then counted against its connection's
 * record: a connection is serial, so if the claim's deadline-moving writes on that backend are
 * at least as many as its `ok` extensions, each `ok` call had a write of its own in order, and
 * only the cut between two back-to-back calls (the midpoint of a gap of a fraction of a
 * millisecond, against a worker clock known only to the offset's uncertainty — 95 ms on a loaded
 * runner) gave one call both writes. The wrong queue this still catches answers `ok` without a
 * write: its connection has fewer moving writes than `ok` extensions.
 */
export function unmovedExtensions(
  derived: DerivedHistory,
  tolerance: number,
): { examined: number; unmoved: UnmovedExtension[] } {
  const { events, header } = derived.history;
  // A call alone on its connection (the first beat after a reconnect) reaches a lease beyond
  // its own span: no later than that can one of its writes commit and still be its.
  const calls = new CallWrites(events, tolerance, header.lease.durationMs);
  const open = new Map<string, number>();
  let examined = 0;
  const unmoved: UnmovedExtension[] = [];
  for (let i = 0; i < events.length; i += 1) {
    const e = events[i]!;
    if (e.type !== 'worker' || e.kind !== 'extend' || e.job === undefined) continue;
    const key = `${e.worker}\u0000${e.job}\u0000${e.token ?? ''}`;
    if (e.phase === 'invoke') {
      open.set(key, i);
      continue;
    }
    const invoke = open.get(key);
    open.delete(key);
    if (e.outcome !== 'ok' || invoke === undefined) continue;
    examined += 1;
    const writes = calls
      .of(invoke, i)
      .filter((k) => (events[k] as AuditEvent).op === 'update' && isHeld(events[k] as AuditEvent));
    const moved = writes.some((k) => {
      const a = events[k] as AuditEvent;
      return a.old?.deadline !== a.new?.deadline;
    });
    if (!moved) unmoved.push({ complete: i, invoke, worker: e.worker, job: e.job, writes });
  }
  return { examined, unmoved: unmoved.filter((u) => !inOrderOnItsConnection(events, u)) };
}

/**
 * Whether the claim `u`'s call extended has, on the call's backend, at least as many
 * deadline-moving writes as `ok` extensions — so that every one of them had its own write.
 */
function inOrderOnItsConnection(events: readonly HistoryEvent[], u: UnmovedExtension): boolean {
  const call = events[u.complete] as WorkerHistoryEvent;
  const { pid, token } = call;
  if (pid === undefined || token === undefined) return false;
  let okCalls = 0;
  let movingWrites = 0;
  for (const e of events) {
    if (e.type === 'worker') {
      const ok = e.kind === 'extend' && e.phase === 'complete' && e.outcome === 'ok';
      if (ok && e.worker === u.worker && e.pid === pid && e.job === u.job && e.token === token)
        okCalls += 1;
    } else if (e.type === 'audit' && e.pid === pid && e.app === u.worker && e.job === u.job) {
      if (e.op === 'update' && moves(e) && e.new?.holder === token) movingWrites += 1;
    }
  }
  return movingWrites >= okCalls;
}

/** An extension's write: held before and after by the same holder, the deadline moved. */
const moves = (a: AuditEvent): boolean =>
  a.old?.state === 'held' &&
  a.new?.state === 'held' &&
  a.old.holder === a.new.holder &&
  a.old.deadline !== a.new.deadline;

const isHeld = (a: AuditEvent): boolean => a.new?.state === 'held';
