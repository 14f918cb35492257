/** Questions about fault intervals that several checkers ask. */
import type { DerivedFault, DerivedHistory } from '../history/derive-types.js';
import { FAULT_KINDS, faultKind, kindsWhere, type FaultKind } from '../faults/fault-kinds.js';

/**
 * Faults during which a worker cannot act on anything, its watchdog included: it is stopped
 * (pause), its event loop is blocked (stall), or the database its effects go to is down.
 */
export const FROZEN_KINDS = kindsWhere((k) => k.freezesHolder);

/**
 * Faults that freeze a whole worker process, its heartbeat thread included. A stall is not one:
 * it blocks the main thread's event loop only, and the heartbeat thread runs beside it — so a
 * heartbeat thread kept from running during a stall was kept by the machine, not by the fault.
 */
export const PROCESS_FROZEN_KINDS = kindsWhere((k) => k.freezesProcess);

/**
 * Why a fault of `kind` does not explain a lost lease (undefined where it may), for a message
 * that lists it beside the expiry it did not cause.
 */
export function whyNotLeaseLosing(kind: FaultKind): string | undefined {
  const { losesLease } = faultKind(kind);
  return losesLease === true ? undefined : losesLease.whyNot;
}

/**
 * Faults that can legitimately cost a worker its lease: they stop the process or cut or slow
 * its path to the database. Not a stall: the heartbeat has its own thread, so a blocked event
 * loop must not cost a lease — an expiry under a stall is the broken-heartbeat signal. Not a
 * clock skew: lease arithmetic is on the database's clock.
 */
export const LEASE_LOSING_KINDS = kindsWhere((k) => k.losesLease === true);

/**
 * Faults that cost no lease when they start but may from a moment their detail names (a
 * graceful stop, once its shutdown timeout is over), with that detail field.
 */
const LATE_LEASE_LOSING = new Map(
  FAULT_KINDS.flatMap((k) => {
    const after = faultKind(k).losesLeaseAfter;
    return after === undefined ? [] : [[k, after] as const];
  }),
);

/**
 * Faults on `worker` or the database that could cost it a lease at some moment of [from, to]:
 * those of `LEASE_LOSING_KINDS` active then, and those that may only from a point of their
 * window on (`losesLeaseAfter`) active after that point.
 */
export function leaseLosingFaultsOn(
  derived: DerivedHistory,
  worker: string,
  from: number,
  to: number,
): DerivedFault[] {
  const found = faultsOn(derived, worker, LEASE_LOSING_KINDS, from, to);
  for (const f of faultsOn(derived, worker, new Set(LATE_LEASE_LOSING.keys()), from, to)) {
    const start = derived.history.events[f.startIndex];
    const field = LATE_LEASE_LOSING.get(f.fault)!;
    const after = start?.type === 'nemesis' ? start.detail?.[field] : undefined;
    // Without the field the fault is taken at its start, as a fault that costs a lease.
    if (f.start + (typeof after === 'number' ? after : 0) <= to) found.push(f);
  }
  return found;
}

/** Faults of `kinds` on `worker` or on the database active at some moment of [from, to]. */
export function faultsOn(
  derived: DerivedHistory,
  worker: string,
  kinds: ReadonlySet<FaultKind>,
  from: number,
  to: number,
): DerivedFault[] {
  const found: DerivedFault[] = [];
  for (const target of [worker, 'db']) {
    for (const f of derived.faultsByTarget.get(target) ?? []) {
      if (kinds.has(f.fault) && f.start <= to && f.end >= from) found.push(f);
    }
  }
  return found;
}

/** How long within [from, to] `worker` was under a fault of `kinds` (overlaps counted once). */
export function coveredMs(
  derived: DerivedHistory,
  worker: string,
  kinds: ReadonlySet<FaultKind>,
  from: number,
  to: number,
): number {
  const faults = faultsOn(derived, worker, kinds, from, to);
  if (faults.length === 0) return 0;
  const spans = faults
    .map((f) => [Math.max(from, f.start), Math.min(to, f.end)] as const)
    .sort((a, b) => a[0] - b[0]);
  let total = 0;
  let [start, end] = spans[0]!;
  for (const [s, e] of spans) {
    if (s > end) {
      total += end - start;
      start = s;
      end = e;
    } else if (e > end) end = e;
  }
  return total + (end - start);
}
