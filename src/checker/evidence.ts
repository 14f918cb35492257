/**
 * Building evidence: claims, events and faults as a verdict cites them. Evidence is built only
 * for the first `maxEvidence` violations of a checker; the rest are counted.
 */
import type { DerivedClaim, DerivedHistory } from '../history/derive-types.js';
import type { Evidence, EvidenceClaim, EvidenceEvent, EvidenceFault } from './types.js';
import { round } from './stats.js';

/** Violations of one checker: all counted, the first `max` kept with their evidence. */
export class EvidenceLog {
  /** The kept evidence. */
  readonly items: Evidence[] = [];
  /** Every violation, kept or not. */
  count = 0;

  constructor(private readonly max: number) {}

  /** Counts a violation; true when its evidence should be built and `add`ed. */
  take(): boolean {
    this.count += 1;
    return this.items.length < this.max;
  }

  /** Keeps a piece of evidence (after `take` said so). */
  add(item: Evidence): void {
    if (this.items.length < this.max) this.items.push(item);
  }
}

/** A claim as evidence names it. */
export function claimRef(claim: DerivedClaim): EvidenceClaim {
  return {
    holder: claim.holder,
    worker: claim.worker,
    attempt: claim.attempt,
    grantedAt: claim.grantT,
    deadline: claim.deadline,
    expiredAt: Number.isNaN(claim.expiredAt) ? null : claim.expiredAt,
    end: claim.end,
  };
}

/** An event as evidence cites it. */
export function eventRef(derived: DerivedHistory, index: number, role: string): EvidenceEvent {
  const event = derived.history.events[index]!;
  return { t: event.t, index, role, event };
}

/** The grant of a claim and its last extension (if any): where its deadline came from. */
export function claimEvents(derived: DerivedHistory, claim: DerivedClaim): EvidenceEvent[] {
  const events = [eventRef(derived, claim.grant, `grant to ${claim.worker}`)];
  const last = claim.extensions[claim.extensions.length - 1];
  if (last !== undefined) events.push(eventRef(derived, last, 'last extension'));
  return events;
}

/**
 * Faults on any of `targets` or on the database that were active at some moment of
 * [from, to]: the faults active at the time of a violation.
 */
export function faultsDuring(
  derived: DerivedHistory,
  targets: readonly string[],
  from: number,
  to: number,
): EvidenceFault[] {
  const found: EvidenceFault[] = [];
  for (const target of new Set([...targets, 'db'])) {
    for (const f of derived.faultsByTarget.get(target) ?? []) {
      if (f.start <= to && f.end >= from) {
        found.push({
          id: f.id,
          fault: f.fault,
          target: f.target,
          start: f.start,
          end: f.end === Infinity ? null : f.end,
        });
      }
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/** A time as messages show it: ms since the run started. */
export function at(derived: DerivedHistory, t: number): string {
  return `+${round(t - derived.history.header.startedAt)}ms`;
}

/**
 * The warnings every checker attaches about the history itself: it was cut (judged on what was
 * recorded), or the derivation met something it could not pair up (a fault end with no start).
 */
export function historyWarnings(derived: DerivedHistory): string[] {
  const cut =
    derived.endIndex >= 0
      ? []
      : [
          `the history was cut at ${at(derived, derived.endT)} (no end event): judged on what was recorded`,
        ];
  return [...cut, ...derived.warnings];
}
