/**
 * Evidence in words, for the formats people read as text (summary.md, junit.xml): the
 * checker's sentence, then the claims, events and faults it cites, each with its time relative
 * to the run's start and on the database clock.
 */
import type { Evidence, EvidenceClaim } from '../checker/types.js';
import type { HistoryEvent, LeaseImage } from '../history/types.js';
import { bothTimes, relativeTime } from './format-time.js';

/** One evidence item as lines of plain text (the first is the checker's sentence). */
export function evidenceLines(evidence: Evidence, startedAt: number): string[] {
  const rel = (t: number): string => relativeTime(t, startedAt);
  return [
    `job ${evidence.job}: ${evidence.message}`,
    ...evidence.claims.map((c) => `claim ${describeClaim(c, rel)}`),
    ...evidence.events.map(
      (e) => `${bothTimes(e.t, startedAt)} ${e.role}: ${describeEvent(e.event, startedAt)}`,
    ),
    ...evidence.faults.map(
      (f) =>
        `fault ${f.fault} on ${f.target} (${f.id}) from ${rel(f.start)} to ` +
        `${f.end === null ? 'the end' : rel(f.end)}`,
    ),
  ];
}

function describeClaim(c: EvidenceClaim, rel: (t: number) => string): string {
  const expired = c.expiredAt === null ? '' : `, expired ${rel(c.expiredAt)}`;
  return (
    `${c.attempt} (${c.holder}) to ${c.worker}: granted ${rel(c.grantedAt)}, ` +
    `deadline ${rel(c.deadline)}${expired}, ended ${c.end}`
  );
}

/** A history event in a few words (deadlines relative to `startedAt`). */
export function describeEvent(event: HistoryEvent, startedAt: number): string {
  const rel = (t: number): string => relativeTime(t, startedAt);
  switch (event.type) {
    case 'audit':
      return `${event.op} by ${event.app} of job ${event.job}: ${image(event.old, rel)} → ${image(event.new, rel)}`;
    case 'effect':
      return `effect of unit ${event.unit} by ${event.worker} on job ${event.job} (claim ${event.token})`;
    case 'worker': {
      const parts = [event.worker, event.kind, event.phase, event.outcome].filter(Boolean);
      if (event.job !== undefined) parts.push(`job ${event.job}`);
      if (event.token !== undefined) parts.push(`claim ${event.token}`);
      if (event.unit !== undefined) parts.push(`unit ${event.unit}`);
      return event.detail === undefined ? parts.join(' ') : `${parts.join(' ')}: ${event.detail}`;
    }
    case 'nemesis':
      return `fault ${event.fault} ${event.phase} on ${event.target} (${event.id})`;
    case 'job':
      return `job ${event.job} planned: ${event.units} units, longest ${event.maxUnitMs}ms`;
    case 'end':
      return `end of run (${event.drained ? 'drained' : 'not drained'})`;
  }
}

function image(row: LeaseImage | null, rel: (t: number) => string): string {
  if (row === null) return 'none';
  if (row.holder === null) return row.state;
  const until = row.deadline === null ? 'no deadline' : `until ${rel(row.deadline)}`;
  return `${row.state} by ${row.holder} ${until}`;
}
