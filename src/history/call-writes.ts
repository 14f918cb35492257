/**
 * Which audit writes one of a worker's calls made: the worker's word (an invoke and its
 * complete) matched to the database's (the audit rows).
 *
 * By identity where the history allows it. A call's completion names the backend pid of the
 * connection it ran on, and the audit names the backend of every change. A connection is
 * serial: the writes a call made are that backend's rows on the call's job that committed
 * after the previous call on that connection and before the next one. The cut between two
 * calls is the midpoint of the idle gap between them, so a worker's times may be off the
 * database clock by up to half that gap (hundreds of ms at a heartbeat period) either way and
 * every write still falls to the call that made it. The ±ε' window that identity replaces
 * judged a correct queue on a loaded machine, where the worker's converted times ran ~7 ms
 * behind the database clock, to have written nothing.
 *
 * By time, ± `tolerance`, where it does not: a history recorded before the audit had pids, or a
 * worker that reported none.
 */
import type { AuditEvent, HistoryEvent, WorkerHistoryEvent } from './types.js';

/** The calls whose writes the audit holds; a claim's statement writes too. */
const CALL_KINDS: ReadonlySet<string> = new Set(['claim', 'extend', 'ack', 'fail', 'checkpoint']);

/** One call of a worker, from its send to its answer (database clock). */
export interface WorkerCall {
  /** Index of the invoke event (-1 for a claim: it is reported once answered). */
  invoke: number;
  /** Index of the complete event. */
  complete: number;
  /** When it was sent. */
  from: number;
  /** When its answer came. */
  to: number;
}

/** Finds the writes of worker calls in one history; build once, ask per call. */
export class CallWrites {
  private readonly byConnection = new Map<string, WorkerCall[]>();
  private readonly writesByJob = new Map<string, number[]>();
  /** Whether the audit names backends at all (a history recorded before it did does not). */
  private readonly auditHasPids: boolean;

  constructor(
    private readonly events: readonly HistoryEvent[],
    private readonly tolerance: number,
    /** How far a call with no neighbour on its connection reaches beyond its own span. */
    private readonly reachMs: number,
  ) {
    let pids = false;
    const open = new Map<string, number>();
    for (let i = 0; i < events.length; i += 1) {
      const e = events[i]!;
      if (e.type === 'audit') {
        if (e.pid !== undefined) pids = true;
        let list = this.writesByJob.get(e.job);
        if (list === undefined) this.writesByJob.set(e.job, (list = []));
        list.push(i);
        continue;
      }
      if (e.type !== 'worker' || !CALL_KINDS.has(e.kind)) continue;
      const key = `${e.worker}\u0000${e.kind}\u0000${e.job ?? ''}\u0000${e.token ?? ''}`;
      if (e.phase === 'invoke') {
        open.set(key, i);
        continue;
      }
      const invoke = e.kind === 'claim' ? -1 : (open.get(key) ?? -1);
      open.delete(key);
      if (e.pid === undefined) continue;
      const from = invoke >= 0 ? events[invoke]!.t : (e.invokedT ?? e.t);
      const connection = connectionKey(e.worker, e.pid, e.job);
      let calls = this.byConnection.get(connection);
      if (calls === undefined) this.byConnection.set(connection, (calls = []));
      calls.push({ invoke, complete: i, from, to: e.t });
    }
    for (const calls of this.byConnection.values()) calls.sort((a, b) => a.from - b.from);
    this.auditHasPids = pids;
  }

  /**
   * Indices of the audit writes on `complete`'s job that the call (`invoke` … `complete`) made:
   * by its backend pid when both it and the audit carry one, else by time.
   */
  of(invoke: number, complete: number, tolerance = this.tolerance): number[] {
    const e = this.events[complete] as WorkerHistoryEvent;
    if (e.job === undefined) return [];
    const writes = this.writesByJob.get(e.job) ?? [];
    const pid = e.pid;
    if (pid === undefined || !this.auditHasPids) {
      const from = (invoke >= 0 ? this.events[invoke]!.t : e.t) - tolerance;
      const to = e.t + tolerance;
      return writes.filter((k) => {
        const a = this.events[k] as AuditEvent;
        return a.app === e.worker && a.stmtT >= from && a.stmtT <= to;
      });
    }
    const [from, to] = this.span(e.worker, pid, complete);
    // `app` too: the server reuses the pid of a closed backend for a later connection.
    return writes.filter((k) => {
      const a = this.events[k] as AuditEvent;
      return a.pid === pid && a.app === e.worker && a.t > from && a.t <= to;
    });
  }

  /**
   * The audit writes the worker's fail calls made, each found as `of` finds a call's writes.
   * A fail the database rejected (outcome `fail`: no row passed its fence) wrote nothing by its
   * own word, so a write right after it on the same connection — the reap of the next poll —
   * is not taken for it. Where the history has no backends, by time ± `tolerance`.
   */
  failWrites(tolerance: number): Set<number> {
    const writes = new Set<number>();
    const open = new Map<string, number>();
    for (let i = 0; i < this.events.length; i += 1) {
      const e = this.events[i]!;
      if (e.type !== 'worker' || e.kind !== 'fail') continue;
      const key = `${e.worker}\u0000${e.job ?? ''}\u0000${e.token ?? ''}`;
      if (e.phase === 'invoke') {
        open.set(key, i);
        continue;
      }
      const invoke = open.get(key) ?? -1;
      open.delete(key);
      if (e.outcome === 'fail') continue;
      for (const k of this.of(invoke, i, tolerance)) writes.add(k);
    }
    return writes;
  }

  /**
   * The call that made audit write `index`, by identity: the call on the write's backend, job
   * and worker whose stretch of the connection's time holds the write. Undefined where the
   * write or the worker's calls name no backend, or no call's stretch holds it.
   */
  callOf(index: number): WorkerCall | undefined {
    const a = this.events[index];
    if (a?.type !== 'audit' || a.pid === undefined) return undefined;
    const calls = this.byConnection.get(connectionKey(a.app, a.pid, a.job)) ?? [];
    return calls.find((call) => {
      const [from, to] = this.span(a.app, a.pid!, call.complete);
      return a.t > from && a.t <= to;
    });
  }

  /**
   * The stretch of the connection's time that belongs to the call completing at `complete`,
   * among the calls on the same job: only those can have made this job's writes. Calls on other
   * jobs may overlap it — a heartbeat thread starved past its extend's timeout sends the next
   * job's extend while the last one's answer is still queued on the connection — and cutting
   * at their midpoint lost a write that was this call's.
   */
  private span(worker: string, pid: number, complete: number): [number, number] {
    const job = (this.events[complete] as WorkerHistoryEvent).job;
    const calls = this.byConnection.get(connectionKey(worker, pid, job)) ?? [];
    const k = calls.findIndex((c) => c.complete === complete);
    const call = calls[k]!;
    const prev = calls[k - 1];
    const next = calls[k + 1];
    return [
      prev === undefined ? call.from - this.reachMs : (prev.to + call.from) / 2,
      next === undefined ? call.to + this.reachMs : (call.to + next.from) / 2,
    ];
  }
}

/** Calls are grouped by worker, backend and job: a job's writes are made by that job's calls. */
function connectionKey(worker: string, pid: number, job: string | undefined): string {
  return `${worker}\u0000${pid}\u0000${job ?? ''}`;
}
