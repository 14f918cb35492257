/**
 * The checker contract: a pure function from a history to a verdict, as Jepsen's checkers are.
 * `valid` / `invalid` (with evidence) / `unknown` (with why: the history was cut, the checker
 * threw) / `n/a` (with why: the queue does not promise this property — it declares no lease
 * extension, its lease is per worker, it fences the holder). Composition is
 * invalid > unknown > valid = n/a: a queue that keeps every promise it makes is valid.
 */
import type { FaultKind, History, HistoryEvent } from '../history/types.js';
import type { ClaimEnd } from '../history/derive-types.js';

/**
 * Jepsen's three-valued verdict, and `n/a`: not "could not judge" (`unknown`) but "the queue
 * does not promise this", with the reason. One checker's result may be `n/a`; a composite of
 * several never is (it counts as `valid` there).
 */
export type Verdict = 'valid' | 'invalid' | 'unknown' | 'n/a';

/** The verdict of several checkers together: never `n/a` (see `composeVerdicts`). */
export type CompositeVerdict = Exclude<Verdict, 'n/a'>;

/** The invariant ids of design.md. */
export type InvariantId = 'I1' | 'I2' | 'I3' | 'I4' | 'I5' | 'I6' | 'I7' | 'I8' | 'I9';

/** How a checker judges; every field has a default (`DEFAULT_CHECK_OPTIONS`). */
export interface CheckOptions {
  /**
   * Tolerance ε in ms for comparisons that involve a time not written by the database (worker
   * and nemesis events, converted from the controller's clock) or lease arithmetic; the
   * header's `clockUncertaintyMs` is added where a controller time is involved.
   */
  epsilonMs: number;
  /**
   * no-stale-ack: `strict` — no ack commits for an expired claim (the default); `fenced` — no
   * ack commits for a claim another claim has replaced.
   */
  staleAck: 'strict' | 'fenced';
  /** explained-expiry: an unexplained expiry is invalid (true) or a warning (false, default). */
  strictCauses: boolean;
  /** Evidence items kept per checker; counts still count every violation. */
  maxEvidence: number;
}

/** A claim as evidence names it. */
export interface EvidenceClaim {
  /** The audit holder (claim token or worker id). */
  holder: string;
  /** The worker it was granted to. */
  worker: string;
  /** 1 for the job's first claim, … */
  attempt: number;
  /** Grant time (audit `t`). */
  grantedAt: number;
  /** Deadline in force at the end (after extensions). */
  deadline: number;
  /** When it expired, or null. */
  expiredAt: number | null;
  /** How it ended. */
  end: ClaimEnd;
}

/** One event cited by evidence. */
export interface EvidenceEvent {
  /** Its time (database clock). */
  t: number;
  /** Its index in `history.events`. */
  index: number;
  /** What it shows, in a few words. */
  role: string;
  /** The event itself. */
  event: HistoryEvent;
}

/** A fault active at the time of a violation. */
export interface EvidenceFault {
  /** The nemesis id. */
  id: string;
  /** Which fault. */
  fault: FaultKind;
  /** A worker id, or `db`. */
  target: string;
  /** Start time. */
  start: number;
  /** End time; null when it never ended in the history. */
  end: number | null;
}

/** Why a verdict is what it is, for one job: what the HTML timeline points at. */
export interface Evidence {
  /** The job. */
  job: string;
  /** One sentence: what went wrong (times relative to the run's start). */
  message: string;
  /** The claims involved. */
  claims: EvidenceClaim[];
  /** The events, with their timestamps. */
  events: EvidenceEvent[];
  /** Faults active at the time (on the workers involved, or on the database). */
  faults: EvidenceFault[];
}

/** A distribution of durations in ms: nearest-rank percentiles. */
export interface Distribution {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** One checker's verdict. */
export interface CheckResult {
  /** The checker's name, e.g. `no-stale-ack`. */
  checker: string;
  /** Its invariant id, e.g. `I1`. */
  id: InvariantId;
  /** The verdict. */
  valid: Verdict;
  /** What was examined and what was found, by name (e.g. `acks`, `stale`). */
  counts: Record<string, number>;
  /** Evidence for an invalid verdict, or for warnings; at most `maxEvidence` items. */
  evidence: Evidence[];
  /** Distributions and figures where the invariant asks for them. */
  stats?: Record<string, Distribution | number>;
  /** The ε the verdict was reached with. */
  epsilonMs: number;
  /** What is suspicious but not a violation (e.g. an unexplained expiry by default). */
  warnings?: string[];
  /** Why the verdict is `unknown`, or why the property does not apply (`n/a`). */
  why?: string;
}

/** A checker of one invariant. */
export interface Checker {
  /** Its name, as scenarios list it (`no-stale-ack`). */
  readonly name: string;
  /** Its invariant id (`I1`). */
  readonly id: InvariantId;
  /** One sentence: the invariant. */
  readonly description: string;
  /** Judges a history; may throw, which composition turns into `unknown`. */
  check(history: History, options?: Partial<CheckOptions>): CheckResult;
}

/** The verdict of several checkers. */
export interface CompositeResult {
  /** invalid > unknown > valid (= n/a) over the parts. */
  valid: CompositeVerdict;
  /** Each checker's result, in the order they ran. */
  results: CheckResult[];
  /** The options the checkers ran with. */
  options: CheckOptions;
}
