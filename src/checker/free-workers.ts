/**
 * When each worker was free — the premise of timely-recovery (I8).
 *
 * A worker is free while it is
 * - alive: it has spoken (its first event, normally `ready`) and has not crashed or exited since
 *   (a crashed worker is down until it speaks again, i.e. until its restart says `ready`);
 * - idle: not between sending one of its claims (or, where the send is not known, its grant) and
 *   the last thing that happened under that claim once it let go of it (the answer to its ack or
 *   fail, its abort); a claim it never let go of keeps it busy until it claims again or goes
 *   down — a unit emits nothing while it runs, so silence is no sign of idleness;
 * - unhindered: under no fault, on itself or on the database, other than a clock skew (which a
 *   correct queue does not notice).
 * A worker that stays free for a whole poll interval has polled at least once in it, and got
 * nothing: if an expired claim was claimable all along, the queue missed it.
 */
import type { DerivedHistory, DerivedWorker } from '../history/derive-types.js';

/** Free intervals of one worker, flattened [from, to, from, to, …], sorted and disjoint. */
export type FreeIntervals = Float64Array;

/** Free intervals of every worker. */
export function freeIntervals(derived: DerivedHistory): Map<string, FreeIntervals> {
  const result = new Map<string, FreeIntervals>();
  for (const worker of derived.workers.values()) {
    result.set(worker.id, freeOf(derived, worker));
  }
  return result;
}

function freeOf(derived: DerivedHistory, worker: DerivedWorker): FreeIntervals {
  if (Number.isNaN(worker.firstT)) return new Float64Array(0);
  const blocked: number[] = [...worker.down];
  const { claims, down } = worker;
  for (let k = 0; k < claims.length; k += 1) {
    const claim = claims[k]!;
    let busyUntil = claim.lastActivityT;
    if (!claim.released) {
      busyUntil = claims[k + 1]?.grantT ?? derived.endT;
      for (let d = 0; d < down.length; d += 2) {
        if (down[d]! >= claim.grantT) {
          busyUntil = Math.min(busyUntil, down[d]!);
          break;
        }
      }
    }
    // Busy from the moment it sent the claim: a database slow to start the statement (just
    // restarted, starved of CPU) is not a worker idling while a job waits.
    const busyFrom = claim.sentT < claim.grantT ? claim.sentT : claim.grantT;
    blocked.push(busyFrom, Math.max(busyUntil, claim.lastActivityT));
  }
  for (const target of [worker.id, 'db']) {
    for (const f of derived.faultsByTarget.get(target) ?? []) {
      if (f.fault !== 'clock') blocked.push(f.start, f.end);
    }
  }
  const n = blocked.length / 2;
  const order = new Uint32Array(n);
  for (let k = 0; k < n; k += 1) order[k] = k;
  order.sort((a, b) => blocked[2 * a]! - blocked[2 * b]!);
  const free: number[] = [];
  let cursor = worker.firstT;
  const end = derived.endT;
  for (let k = 0; k < n && cursor < end; k += 1) {
    const from = blocked[2 * order[k]!]!;
    const to = blocked[2 * order[k]! + 1]!;
    if (from > cursor) free.push(cursor, Math.min(from, end));
    if (to > cursor) cursor = to;
  }
  if (cursor < end) free.push(cursor, end);
  return Float64Array.from(free);
}

/** A stretch of time a worker was free. */
export interface FreeWindow {
  worker: string;
  from: number;
  to: number;
}

/** The first stretch within [from, to] longer than `minMs` during which some worker was free. */
export function freeWindow(
  free: Map<string, FreeIntervals>,
  from: number,
  to: number,
  minMs: number,
): FreeWindow | undefined {
  for (const [worker, intervals] of free) {
    // Binary search: the first interval that ends after `from`.
    let lo = 0;
    let hi = intervals.length / 2;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (intervals[2 * mid + 1]! <= from) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < intervals.length / 2 && intervals[2 * k]! < to; k += 1) {
      const a = Math.max(from, intervals[2 * k]!);
      const b = Math.min(to, intervals[2 * k + 1]!);
      if (b - a > minMs) return { worker, from: a, to: b };
    }
  }
  return undefined;
}
