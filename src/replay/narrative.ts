/**
 * What happened to each job a fault touched, told in the incident's own clock and names:
 * "job 17: claimed by worker-b 14:02:09; lease expired 14:02:39 during gc-pause of worker-b;
 * claimed again by worker-c 14:02:39.1; worker-b's ack at 14:02:49 rejected; effects ran under 2
 * claims: explained". Lines are grouped by outcome.
 */
import type { CompositeResult } from '../checker/types.js';
import { deriveHistory } from '../history/derive.js';
import type { DerivedClaim, DerivedFault, DerivedHistory } from '../history/derive-types.js';
import type { History, WorkerHistoryEvent } from '../history/types.js';
import { formatIncidentTime } from './incident-time.js';
import type { Incident } from './load-incident.js';

/** The outcome groups, in the order they are printed. */
export const OUTCOMES = [
  'duplicate unexplained',
  'duplicate explained',
  'stale write',
  'lost',
  'fine',
] as const;

/** One of `OUTCOMES`. */
export type Outcome = (typeof OUTCOMES)[number];

/** One job's story. */
export interface JobStory {
  job: string;
  outcome: Outcome;
  line: string;
}

/** Maps database-clock times of a replay onto the incident's clock. */
export interface IncidentClock {
  /** Incident epoch ms of a database-clock time of the replay. */
  at(t: number): number;
  /** Its text, `14:02:39.100`. */
  text(t: number): string;
}

/**
 * The replay's clock, anchored on its first fault: that fault's start on the database clock is
 * the incident time of the first timeline event; every interval is stretched back by 1 / scale.
 */
export function incidentClock(history: History, incident: Incident): IncidentClock {
  const first = history.events.find((e) => e.type === 'nemesis' && e.phase === 'start');
  const firstEvent = incident.events[0];
  const anchorT = first?.t ?? history.header.startedAt;
  const anchorMs = incident.startMs + (firstEvent?.atMs ?? 0);
  const at = (t: number): number => anchorMs + (t - anchorT) / incident.timeScale;
  return { at, text: (t) => formatIncidentTime(at(t), incident.startMs) };
}

/** The stories of every job a fault touched (all jobs when `all`), grouped by outcome. */
export function jobStories(
  history: History,
  result: CompositeResult,
  incident: Incident,
  options: { all?: boolean } = {},
): JobStory[] {
  const derived = deriveHistory(history);
  const clock = incidentClock(history, incident);
  const name = (worker: string): string => {
    const slot = /^w(\d+)$/.exec(worker);
    return (slot && incident.workers[Number(slot[1]) - 1]) ?? worker;
  };
  const flagged = (id: string): Set<string> =>
    new Set(result.results.find((r) => r.id === id)?.evidence.map((e) => e.job) ?? []);
  const stale = flagged('I1');
  const lost = flagged('I3');
  const stories: JobStory[] = [];
  for (const job of derived.jobs.values()) {
    const touched = job.claims.some((c) => faultsOn(derived, c).length > 0);
    if (!touched && !options.all && !stale.has(job.id) && !lost.has(job.id)) continue;
    const parts: string[] = [];
    let unexplained = false;
    job.claims.forEach((claim, k) => {
      parts.push(
        `${k === 0 ? 'claimed' : 'claimed again'} by ${name(claim.worker)} ${clock.text(claim.grantT)}`,
      );
      if (!Number.isNaN(claim.expiredAt)) {
        const causes = faultsOn(derived, claim);
        if (causes.length === 0) unexplained = true;
        parts.push(
          `lease expired ${clock.text(claim.expiredAt)}` +
            (causes.length > 0
              ? ` during ${describeFault(causes[0]!, name)}`
              : ' with no fault on its holder'),
        );
      }
      for (const ack of acksOf(history, job.id, claim)) {
        parts.push(
          `${name(claim.worker)}'s ack ${clock.text(ack.t)} ${ack.outcome === 'ok' ? 'committed' : ack.outcome === 'fail' ? 'rejected' : 'unanswered'}`,
        );
      }
    });
    const executed = job.claims.filter((c) => c.effects.length > 0).length;
    let outcome: Outcome = 'fine';
    if (executed > 1) outcome = unexplained ? 'duplicate unexplained' : 'duplicate explained';
    else if (stale.has(job.id)) outcome = 'stale write';
    else if (lost.has(job.id) || job.completions.length === 0) outcome = 'lost';
    if (executed > 1) {
      parts.push(
        `effects ran under ${executed} claims: ${unexplained ? 'unexplained' : 'explained'}`,
      );
    }
    if (stale.has(job.id)) parts.push('a stale write committed (I1)');
    if (job.completions.length === 0) parts.push('never completed');
    stories.push({ job: job.id, outcome, line: `job ${job.id}: ${parts.join('; ')}` });
  }
  return stories.sort((a, b) => OUTCOMES.indexOf(a.outcome) - OUTCOMES.indexOf(b.outcome));
}

/** The narrative as text: a heading per outcome group, a line per job. */
export function renderNarrative(stories: JobStory[]): string {
  const lines: string[] = [];
  for (const outcome of OUTCOMES) {
    const group = stories.filter((s) => s.outcome === outcome);
    if (group.length === 0) continue;
    lines.push(`${outcome} (${group.length}):`, ...group.map((s) => `  ${s.line}`));
  }
  return lines.length === 0 ? 'no job was touched by a fault' : lines.join('\n');
}

/** Faults on the claim's holder (or the database) while the claim was held. */
function faultsOn(derived: DerivedHistory, claim: DerivedClaim): DerivedFault[] {
  const until = Number.isNaN(claim.expiredAt) ? claim.lastActivityT : claim.expiredAt;
  return [
    ...(derived.faultsByTarget.get(claim.worker) ?? []),
    ...(derived.faultsByTarget.get('db') ?? []),
  ].filter((f) => f.start <= until && f.end >= claim.grantT);
}

function describeFault(fault: DerivedFault, name: (worker: string) => string): string {
  return fault.target === 'db'
    ? `the database ${fault.fault}`
    : `${fault.fault} of ${name(fault.target)}`;
}

/** The completed ack calls of this claim's worker for the job, by token. */
function acksOf(history: History, job: string, claim: DerivedClaim): WorkerHistoryEvent[] {
  return history.events.filter(
    (e): e is WorkerHistoryEvent =>
      e.type === 'worker' &&
      e.kind === 'ack' &&
      e.phase === 'complete' &&
      e.job === job &&
      e.worker === claim.worker &&
      e.token === claim.holder,
  );
}
