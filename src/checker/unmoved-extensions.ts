/**
 * Extensions the worker saw succeed that did not move the deadline: the worker's own record (an
 * `extend` invoke and its `ok` complete) against the audit's. An adapter that answers "extended"
 * while its UPDATE left the deadline where it was (or wrote nothing at all) gives the worker a
 * lease the database never granted; the audit alone cannot tell such a write from a checkpoint,
 * which is why the worker's word is needed to judge it.
 */
import type { DerivedHistory } from '../history/derive-types.js';
import type { AuditEvent } from '../history/types.js';
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
  return { examined, unmoved };
}

const isHeld = (a: AuditEvent): boolean => a.new?.state === 'held';
