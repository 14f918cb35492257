/**
 * Extensions the worker saw succeed that did not move the deadline: the worker's own record (an
 * `extend` invoke and its `ok` complete) against the audit's. An adapter that answers "extended"
 * while its UPDATE left the deadline where it was (or wrote nothing at all) gives the worker a
 * lease the database never granted; the audit alone cannot tell such a write from a checkpoint,
 * which is why the worker's word is needed to judge it.
 */
import type { DerivedHistory } from '../history/derive-types.js';
import type { AuditEvent, WorkerHistoryEvent } from '../history/types.js';

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
 * The `ok` extensions with no audit write that moved the deadline, between the invoke and the
 * complete (± `tolerance`, the uncertainty of the worker's times on the database clock). A write
 * that did move it is judged by the per-extension check of lease-honored, not here.
 */
export function unmovedExtensions(
  derived: DerivedHistory,
  tolerance: number,
): { examined: number; unmoved: UnmovedExtension[] } {
  const { events } = derived.history;
  const open = new Map<string, number>();
  const auditsByJob = new Map<string, number[]>();
  for (let i = 0; i < events.length; i += 1) {
    const e = events[i]!;
    if (e.type === 'audit' && e.op === 'update') {
      let list = auditsByJob.get(e.job);
      if (list === undefined) auditsByJob.set(e.job, (list = []));
      list.push(i);
    }
  }
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
    const from = (events[invoke] as WorkerHistoryEvent).t - tolerance;
    const to = e.t + tolerance;
    const writes = (auditsByJob.get(e.job) ?? []).filter((k) => {
      const a = events[k] as AuditEvent;
      return a.app === e.worker && a.stmtT >= from && a.stmtT <= to && a.new?.state === 'held';
    });
    const moved = writes.some((k) => {
      const a = events[k] as AuditEvent;
      return a.old?.deadline !== a.new?.deadline;
    });
    if (!moved) unmoved.push({ complete: i, invoke, worker: e.worker, job: e.job, writes });
  }
  return { examined, unmoved };
}
