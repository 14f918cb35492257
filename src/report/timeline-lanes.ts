/**
 * Where things go on a timeline: one lane per worker (in the header's order, then any other
 * actor as it first appears), and within a lane one row per claim that overlaps another of the
 * same worker — a worker whose expired claim's handler is still running (a zombie) while it
 * claims again would otherwise draw one bar over the other.
 */
import type { DerivedClaim, DerivedHistory } from '../history/derive-types.js';
import type { HistoryEvent } from '../history/types.js';
import type { TimelineLane } from './timeline-types.js';

/** Lanes, rows and which claim each event belongs to. */
export class TimelineLayout {
  /** The lanes, top to bottom. */
  readonly lanes: TimelineLane[] = [];
  private readonly laneIndex = new Map<string, number>();
  /** Row of each claim within its worker's lane. */
  private readonly rows = new Map<DerivedClaim, number>();
  /** The claim an event index belongs to. */
  private readonly claimOfEvent = new Map<number, DerivedClaim>();

  constructor(private readonly derived: DerivedHistory) {
    for (const id of derived.history.header.workers) this.lane(id);
    for (const id of derived.workers.keys()) this.lane(id);
    for (const worker of derived.workers.values()) this.packRows(worker.claims);
    for (const claim of derived.claims) {
      for (const i of [claim.grant, claim.closeIndex, claim.reportedLost, ...claim.extensions]) {
        if (i >= 0) this.claimOfEvent.set(i, claim);
      }
      for (const i of [...claim.effects, ...claim.work]) this.claimOfEvent.set(i, claim);
    }
  }

  /** The index of `id`'s lane, adding a lane for an actor seen for the first time. */
  lane(id: string): number {
    let index = this.laneIndex.get(id);
    if (index === undefined) {
      index = this.lanes.length;
      this.lanes.push({ id, rows: 1 });
      this.laneIndex.set(id, index);
    }
    return index;
  }

  /** The row of `claim` within its lane. */
  row(claim: DerivedClaim): number {
    return this.rows.get(claim) ?? 0;
  }

  /** The claim the event at `index` was done under, if it is known. */
  claimOf(index: number): DerivedClaim | undefined {
    return this.claimOfEvent.get(index);
  }

  /** The worker (or other application) that did `event`, if it has one. */
  actor(event: HistoryEvent): string | undefined {
    switch (event.type) {
      case 'audit':
        return event.app;
      case 'effect':
      case 'worker':
        return event.worker;
      case 'nemesis':
        return event.target === 'db' ? undefined : event.target;
      default:
        return undefined;
    }
  }

  /**
   * Lane and row of the event at `index`: its actor's lane, on its claim's row there. An event
   * of the harness (the enqueue, a reaper) goes on the lane of the claim it concerns, so that a
   * lane of its own appears only when there is no such claim.
   */
  place(index: number, fallback?: DerivedClaim): { lane: number; row: number } {
    const event = this.derived.history.events[index]!;
    const claim = this.claimOf(index) ?? fallback;
    const own = this.actor(event);
    const isWorker = own !== undefined && this.derived.workers.has(own);
    const actor = isWorker ? own : (claim?.worker ?? own);
    if (actor === undefined) return { lane: 0, row: 0 };
    const lane = this.lane(actor);
    return { lane, row: claim !== undefined && claim.worker === actor ? this.row(claim) : 0 };
  }

  /** How long a claim's bar lasts: its close, its expiry, or the end of the run while open. */
  barEnd(claim: DerivedClaim): number {
    if (!Number.isNaN(claim.expiredAt)) return claim.expiredAt;
    if (claim.closeIndex >= 0) return this.derived.history.events[claim.closeIndex]!.t;
    return this.derived.endT;
  }

  /** The last thing done under an expired claim after its expiry, or null. */
  zombieEnd(claim: DerivedClaim): number | null {
    return !Number.isNaN(claim.expiredAt) && claim.lastActivityT > claim.expiredAt
      ? claim.lastActivityT
      : null;
  }

  private packRows(claims: readonly DerivedClaim[]): void {
    // Greedy interval packing: each claim takes the first row that is free at its grant.
    const rowEnds: number[] = [];
    for (const claim of [...claims].sort((a, b) => a.grantT - b.grantT)) {
      const end = Math.max(this.barEnd(claim), this.zombieEnd(claim) ?? -Infinity);
      let row = rowEnds.findIndex((free) => free <= claim.grantT);
      if (row < 0) row = rowEnds.length;
      rowEnds[row] = end;
      this.rows.set(claim, row);
      const lane = this.lanes[this.lane(claim.worker)]!;
      lane.rows = Math.max(lane.rows, row + 1);
    }
  }
}
