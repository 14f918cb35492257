/**
 * The data a timeline page draws, inlined into the page as JSON. Times are ms since the
 * scenario's start on the database clock (`startedAt` is that start, ms since the epoch, so the
 * page can show database-clock timestamps too). Lanes are workers (and the harness, when its
 * connection did something a verdict cites); a lane has as many rows as it had overlapping
 * claims, usually one.
 */
import type { InvariantId, Verdict } from '../checker/types.js';
import type { ClaimEnd } from '../history/derive-types.js';
import type { FaultKind } from '../history/types.js';
import type { LeaseSettings } from '../queue/types.js';

/** A worker's lane. */
export interface TimelineLane {
  /** The worker id (or the harness's application name). */
  id: string;
  /** Rows the lane needs so that no two claim bars overlap. */
  rows: number;
}

/** One claim: a bar from its grant to its end (close or expiry). */
export interface TimelineClaim {
  /** Lane index. */
  lane: number;
  /** Row within the lane. */
  row: number;
  /** The job. */
  job: string;
  /** 1 for the job's first claim, … */
  attempt: number;
  /** The audit holder (claim token). */
  holder: string;
  /** Grant time. */
  start: number;
  /** When the claim ended: its close, its expiry, or the end of the run while open. */
  end: number;
  /** How it ended (colors the bar). */
  ended: ClaimEnd;
  /** The deadline in force at the end. */
  deadline: number;
  /** Committed extensions. */
  extensions: number;
  /** Effects under this claim. */
  effects: number;
  /** Last thing done under the claim after it expired (a zombie's tail), or null. */
  zombieEnd: number | null;
}

/** The kinds of point event a timeline marks. */
export type TimelinePointKind =
  | 'heartbeat'
  | 'heartbeat-failed'
  | 'expiry'
  | 'ack'
  | 'ack-rejected'
  | 'ack-indeterminate'
  | 'release'
  | 'effect'
  | 'lost'
  | 'abort';

/** A point event on a lane. */
export interface TimelinePoint {
  /** What it is. */
  kind: TimelinePointKind;
  /** Lane index. */
  lane: number;
  /** Row within the lane. */
  row: number;
  /** Ms since the scenario's start, database clock (as every time on the page). */
  t: number;
  /** What happened, in a few words (tooltips). */
  text: string;
}

/** A fault as a band: on its target's lane, or across every lane (`lane` null: the database). */
export interface TimelineFault {
  /** Lane index, or null for a database fault. */
  lane: number | null;
  /** Which fault. */
  fault: FaultKind;
  /** A worker id, or `db`. */
  target: string;
  /** The nemesis id. */
  id: string;
  /** Its start, ms since the scenario's start. */
  start: number;
  /** End (the end of the run when it never ended: `open`). */
  end: number;
  /** Whether the history has no end for it. */
  open: boolean;
  /** Its parameters, as text. */
  detail: string;
}

/**
 * A window in which the machine kept a worker's thread from running (harness starvation that no
 * fault on it explains), drawn as a band on the worker's lane like a fault.
 */
export interface TimelineStarved {
  /** Lane index. */
  lane: number;
  /** The worker. */
  worker: string;
  /** Which of its threads. */
  thread: 'main' | 'heartbeat';
  /** When the thread began to wait for a CPU, ms since the scenario's start. */
  start: number;
  /** When it ran again. */
  end: number;
  /** How long, ms. */
  ms: number;
}

/** An event cited by a marker's evidence. */
export interface TimelineCited {
  /** Ms since the scenario's start, database clock. */
  t: number;
  /** Lane index. */
  lane: number;
  /** Row within the lane. */
  row: number;
  /** What it shows (the checker's words). */
  role: string;
  /** The event in a few words. */
  text: string;
}

/** A violation (or a warning's example) of one checker, pinned where it happened. */
export interface TimelineMarker {
  /** The element id: `v-<checker>-<n>` for violations, `w-<checker>-<n>` for warnings. */
  id: string;
  /** A violation (invalid verdict) or a warning's example (valid verdict with warnings). */
  severity: 'violation' | 'warning';
  /** The checker's name. */
  checker: string;
  /** Its invariant id. */
  invariant: InvariantId;
  /** The job. */
  job: string;
  /** The checker's sentence. */
  message: string;
  /** Where the pin goes: the latest event the evidence cites (the offending one). */
  t: number;
  /** Lane index of that event's actor. */
  lane: number;
  /** Row within the lane. */
  row: number;
  /** Every event the evidence cites. */
  cited: TimelineCited[];
  /** The faults active at the time, as text. */
  faults: string[];
}

/** A checker's verdict, for the page's header. */
export interface TimelineChecker {
  /** Its name. */
  checker: string;
  /** Its invariant id. */
  id: InvariantId;
  /** Its verdict. */
  verdict: Verdict;
  /** Its counts, as text. */
  counts: string;
  /** Why unknown, warnings: what else to say. */
  note: string;
}

/** Everything a timeline page shows. */
export interface TimelineData {
  /** The scenario as reported. */
  label: string;
  /** The queue under test. */
  queue: string;
  /** The seed. */
  seed: number;
  /** The scenario's verdict. */
  verdict: Verdict;
  /** The scenario's start, ms since the epoch on the database clock. */
  startedAt: number;
  /** The end of the history. */
  endT: number;
  /** Whether the history ends with an end event. */
  complete: boolean;
  /** The lease settings. */
  lease: LeaseSettings;
  /** What the queue did with the scenario's lease (rounding, rescaling, no heartbeat), if anything. */
  terms: string[];
  /** For a replayed incident: its clock and worker names, which the page shows instead. */
  incident?: TimelineIncident;
  /** Lanes, top to bottom. */
  lanes: TimelineLane[];
  /** Claim bars. */
  claims: TimelineClaim[];
  /** Point events. */
  points: TimelinePoint[];
  /** Fault bands. */
  faults: TimelineFault[];
  /** Starved windows (harness starvation), as bands. */
  starved: TimelineStarved[];
  /** Violations, then warnings' examples. */
  markers: TimelineMarker[];
  /** Each checker's verdict. */
  checkers: TimelineChecker[];
}

/** How a replay's times map back onto the incident's clock, and its workers' names. */
export interface TimelineIncident {
  /** Timeline time (ms since start) of the anchor: the first fault's start. */
  anchorRel: number;
  /** Incident epoch ms of the anchor (the first timeline event). */
  anchorEpochMs: number;
  /** Replay time / incident time. */
  scale: number;
  /** The time scale as the incident file wrote it (`1/30`), for the axis title. */
  scaleText: string;
  /** Worker id → the incident's name for it. */
  names: Record<string, string>;
}
