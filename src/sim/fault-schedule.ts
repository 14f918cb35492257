/**
 * The nemesis of the history generator (`simulate-history.ts`): random faults that never overlap
 * on one target, as windows the model's workers ask about, and as the history's nemesis events.
 */
import { faultKind } from '../faults/fault-kinds.js';
import type { FaultKind, NemesisEvent } from '../history/types.js';
import type { Random } from '../random.js';

/** One scheduled fault. */
export interface SimFault {
  id: string;
  kind: FaultKind;
  /** A worker id, or `db`. */
  target: string;
  start: number;
  end: number;
}

/** Faults by target, each list in start order, with the queries the simulation asks. */
export class FaultSchedule {
  private readonly byTarget = new Map<string, SimFault[]>();
  readonly all: SimFault[] = [];

  /** Adds a fault unless it overlaps another on the same target; true when added. */
  add(fault: SimFault): boolean {
    const list = this.byTarget.get(fault.target) ?? [];
    if (list.some((f) => f.start < fault.end && fault.start < f.end)) return false;
    list.push(fault);
    list.sort((a, b) => a.start - b.start);
    this.byTarget.set(fault.target, list);
    this.all.push(fault);
    return true;
  }

  /** The end of a fault of one of `kinds` on `target` active at `t` (start ≤ t < end), or NaN. */
  activeEnd(target: string, kinds: ReadonlySet<FaultKind>, t: number): number {
    for (const f of this.byTarget.get(target) ?? []) {
      if (f.start > t) break;
      if (t < f.end && kinds.has(f.kind)) return f.end;
    }
    return NaN;
  }

  /** The first start of a fault of `kind` on `target` after `t`, or Infinity. */
  nextStart(target: string, kind: FaultKind, t: number): number {
    for (const f of this.byTarget.get(target) ?? []) {
      if (f.start > t && f.kind === kind) return f.start;
    }
    return Infinity;
  }

  /** The last moment any fault is active. */
  lastEnd(): number {
    return this.all.reduce((m, f) => Math.max(m, f.end), -Infinity);
  }

  /** The nemesis events of every fault. */
  events(): NemesisEvent[] {
    return this.all.flatMap((f) => [
      {
        type: 'nemesis',
        t: f.start,
        phase: 'start',
        fault: f.kind,
        target: f.target,
        id: f.id,
        detail: { forMs: f.end - f.start },
      },
      { type: 'nemesis', t: f.end, phase: 'end', fault: f.kind, target: f.target, id: f.id },
    ]);
  }
}

/** Draws `count` random faults of `kinds` over [from, to] (overlapping ones are dropped). */
export function randomFaults(
  random: Random,
  schedule: FaultSchedule,
  options: {
    count: number;
    kinds: readonly FaultKind[];
    workers: readonly string[];
    from: number;
    to: number;
    leaseMs: number;
  },
): void {
  const { count, kinds, workers, from, to, leaseMs } = options;
  for (let k = 0; k < count && kinds.length > 0 && workers.length > 0; k += 1) {
    const kind = kinds[random.int(0, kinds.length - 1)]!;
    const target =
      faultKind(kind).target === 'db' ? 'db' : workers[random.int(0, workers.length - 1)]!;
    const start = from + random.next() * (to - from);
    // Long enough to cost a lease now and then (the lease is lost after about one lease of
    // silence), short enough that a run still drains.
    const length = leaseMs * (0.3 + random.next() * 2.7);
    schedule.add({ id: `f${k + 1}`, kind, target, start, end: start + length });
  }
}
