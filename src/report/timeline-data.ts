/**
 * From a history and its verdict to what a timeline page draws: claim bars per worker lane,
 * point events (heartbeats, expiries, acks, effects, losses), fault bands, and a marker for each
 * piece of evidence — pinned at the latest event it cites, which is the offending one (the stale
 * ack, the second grant, the effect after the loss).
 */
import { queueTermsLines } from './queue-terms-lines.js';
import type { Incident } from '../replay/load-incident.js';
import type { CheckResult, CompositeResult, Evidence } from '../checker/types.js';
import { deriveHistory } from '../history/derive.js';
import type { DerivedHistory } from '../history/derive-types.js';
import { historyEnd } from '../history/jsonl.js';
import type { History, WorkerHistoryEvent } from '../history/types.js';
import { describeEvent } from './describe-evidence.js';
import { roundMs } from './format-time.js';
import { TimelineLayout } from './timeline-lanes.js';
import type {
  TimelineClaim,
  TimelineData,
  TimelineIncident,
  TimelineFault,
  TimelineMarker,
  TimelinePoint,
  TimelinePointKind,
  TimelineStarved,
} from './timeline-types.js';
import { starvedWindows } from '../checker/starvation.js';

/** What the page draws for one scenario; `label` is the scenario as the run reports it. */
export function buildTimelineData(
  history: History,
  result: CompositeResult,
  label: string = history.header.scenario,
  incident?: Incident,
): TimelineData {
  const derived = deriveHistory(history);
  const layout = new TimelineLayout(derived);
  const start = history.header.startedAt;
  const rel = (t: number): number => roundMs(t - start);
  const claims = claimBars(derived, layout, rel);
  const points = pointEvents(derived, layout, rel);
  const faults = faultBands(derived, layout, rel);
  const starved = starvedBands(derived, layout, rel);
  const markers = result.results.flatMap((r) => markersOf(r, derived, layout, rel));
  return {
    label,
    queue: history.header.queue,
    seed: history.header.seed,
    verdict: result.valid,
    startedAt: start,
    endT: rel(derived.endT),
    complete: historyEnd(history) !== undefined,
    lease: history.header.lease,
    terms: queueTermsLines(history.header.queueTerms),
    ...(incident !== undefined && { incident: timelineIncident(history, incident) }),
    // Complete only now: placing faults and markers can add lanes (the harness, say).
    lanes: layout.lanes,
    claims,
    points,
    faults,
    starved,
    markers,
    checkers: result.results.map((r) => ({
      checker: r.checker,
      id: r.id,
      verdict: r.valid,
      counts: Object.entries(r.counts)
        .map(([k, v]) => `${k}=${v}`)
        .join(' '),
      note: r.why ?? r.warnings?.join('; ') ?? '',
    })),
  };
}

type Rel = (t: number) => number;

function claimBars(derived: DerivedHistory, layout: TimelineLayout, rel: Rel): TimelineClaim[] {
  return derived.claims.map((c) => {
    const zombieEnd = layout.zombieEnd(c);
    return {
      lane: layout.lane(c.worker),
      row: layout.row(c),
      job: c.job.id,
      attempt: c.attempt,
      holder: c.holder,
      start: rel(c.grantT),
      end: rel(layout.barEnd(c)),
      ended: c.end,
      deadline: rel(c.deadline),
      extensions: c.extensions.length,
      effects: c.effects.length,
      zombieEnd: zombieEnd === null ? null : rel(zombieEnd),
    };
  });
}

/** The point kind of a worker event, if the timeline marks it. */
function workerPointKind(e: WorkerHistoryEvent): TimelinePointKind | undefined {
  if (e.kind === 'extend' && e.outcome === 'fail') return 'heartbeat-failed';
  if (e.kind === 'ack' && e.phase === 'complete' && e.outcome === 'fail') return 'ack-rejected';
  if (e.kind === 'ack' && e.phase === 'complete' && e.outcome === 'info')
    return 'ack-indeterminate';
  if (e.kind === 'lost') return 'lost';
  if (e.kind === 'abort') return 'abort';
  return undefined;
}

function pointEvents(derived: DerivedHistory, layout: TimelineLayout, rel: Rel): TimelinePoint[] {
  const { events } = derived.history;
  const start = derived.history.header.startedAt;
  const points: TimelinePoint[] = [];
  const add = (kind: TimelinePointKind, index: number): void => {
    const event = events[index]!;
    const at = layout.place(index);
    points.push({ kind, ...at, t: rel(event.t), text: describeEvent(event, start) });
  };
  const completions = new Set<number>();
  const releases = new Set<number>();
  for (const job of derived.jobs.values()) {
    for (const c of job.completions) completions.add(c.index);
    for (const r of job.releases) releases.add(r);
  }
  for (const claim of derived.claims) {
    for (const i of claim.extensions) add('heartbeat', i);
    if (!Number.isNaN(claim.expiredAt)) {
      points.push({
        kind: 'expiry',
        lane: layout.lane(claim.worker),
        row: layout.row(claim),
        t: rel(claim.expiredAt),
        text: `claim ${claim.attempt} (${claim.holder}) of job ${claim.job.id} expired`,
      });
    }
  }
  events.forEach((event, i) => {
    if (event.type === 'effect') add('effect', i);
    else if (event.type === 'worker') {
      const kind = workerPointKind(event);
      if (kind !== undefined) add(kind, i);
    } else if (completions.has(i)) add('ack', i);
    else if (releases.has(i)) add('release', i);
  });
  return points.sort((a, b) => a.t - b.t);
}

function faultBands(derived: DerivedHistory, layout: TimelineLayout, rel: Rel): TimelineFault[] {
  const { events } = derived.history;
  return derived.faults.map((f) => {
    const started = events[f.startIndex];
    const detail =
      started?.type === 'nemesis' && started.detail ? JSON.stringify(started.detail) : '';
    const open = f.end === Infinity;
    return {
      lane: f.target === 'db' ? null : layout.lane(f.target),
      fault: f.fault,
      target: f.target,
      id: f.id,
      start: rel(f.start),
      end: rel(open ? derived.endT : f.end),
      open,
      detail,
    };
  });
}

function starvedBands(
  derived: DerivedHistory,
  layout: TimelineLayout,
  rel: Rel,
): TimelineStarved[] {
  return [...starvedWindows(derived).values()].flat().map((w) => ({
    lane: layout.lane(w.worker),
    worker: w.worker,
    thread: w.thread,
    start: rel(w.start),
    end: rel(w.end),
    ms: roundMs(w.ms),
  }));
}

/** Markers of one checker: its violations if invalid, its warnings' examples if valid. */
function markersOf(
  r: CheckResult,
  derived: DerivedHistory,
  layout: TimelineLayout,
  rel: Rel,
): TimelineMarker[] {
  const severity =
    r.valid === 'invalid' ? 'violation' : r.valid === 'valid' && r.warnings ? 'warning' : undefined;
  if (severity === undefined) return [];
  const slug = r.checker.replace(/[^A-Za-z0-9_-]/g, '-');
  return r.evidence.map((e, n) => ({
    id: `${severity === 'violation' ? 'v' : 'w'}-${slug}-${n + 1}`,
    severity,
    checker: r.checker,
    invariant: r.id,
    job: e.job,
    message: e.message,
    ...pin(e, derived, layout, rel),
  }));
}

function pin(
  e: Evidence,
  derived: DerivedHistory,
  layout: TimelineLayout,
  rel: Rel,
): Pick<TimelineMarker, 't' | 'lane' | 'row' | 'cited' | 'faults'> {
  const start = derived.history.header.startedAt;
  const job = derived.jobs.get(e.job);
  const fallback = job?.claims[job.claims.length - 1];
  const cited = e.events.map((c) => ({
    ...layout.place(c.index, fallback),
    t: rel(c.t),
    role: c.role,
    text: describeEvent(c.event, start),
  }));
  const faults = e.faults.map(
    (f) =>
      `${f.fault} on ${f.target} (${f.id}) from +${rel(f.start)}ms to ` +
      `${f.end === null ? 'the end' : `+${rel(f.end)}ms`}`,
  );
  const latest = cited.reduce<(typeof cited)[number] | undefined>(
    (a, b) => (a === undefined || b.t >= a.t ? b : a),
    undefined,
  );
  if (latest !== undefined)
    return { t: latest.t, lane: latest.lane, row: latest.row, cited, faults };
  // Evidence without events (none of today's checkers give such): pin to the job's last claim.
  const claim = fallback;
  return {
    t: claim === undefined ? rel(derived.endT) : rel(claim.grantT),
    lane: claim === undefined ? 0 : layout.lane(claim.worker),
    row: claim === undefined ? 0 : layout.row(claim),
    cited,
    faults,
  };
}

/** The incident's clock and names for the page, anchored as the narrative is (first fault). */
function timelineIncident(history: History, incident: Incident): TimelineIncident {
  const first = history.events.find((e) => e.type === 'nemesis' && e.phase === 'start');
  const anchorT = first?.t ?? history.header.startedAt;
  return {
    anchorRel: roundMs(anchorT - history.header.startedAt),
    anchorEpochMs: incident.startMs + (incident.events[0]?.atMs ?? 0),
    scale: incident.timeScale,
    scaleText: incident.timeScaleText,
    names: Object.fromEntries(incident.workers.map((name, i) => [`w${i + 1}`, name])),
  };
}
