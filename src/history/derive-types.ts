/**
 * What `deriveHistory` makes of a history: per job, its claims (grant, deadline history, expiry,
 * how each ended), executions (the effects and units done under each claim) and completions;
 * per worker, its claims and when it was down; the faults as intervals.
 *
 * Events are referred to by their index in `history.events`, never copied: a derived history of
 * a million events must stay a small fraction of the history's own size. The records are classes
 * so that every instance has one shape (V8 keeps property access fast on monomorphic objects).
 */
import type { FaultKind, History, LeaseState } from './types.js';

/**
 * How a claim ended:
 * - `acked`: the job was completed while the claim was unexpired;
 * - `failed`: the job was released (retry or dead-letter) while the claim was unexpired;
 * - `expired`: the deadline passed first (whatever happened after: a re-claim, a late ack, nothing);
 * - `replaced`: another claim was granted while this one was unexpired (an I4 violation);
 * - `open`: none of these before the history ends.
 */
export type ClaimEnd = 'acked' | 'failed' | 'expired' | 'replaced' | 'open';

/** The audit transition that closed a claim (after its expiry, if it expired). */
export type ClaimCloser = 'ack' | 'fail' | 'grant' | 'reap' | 'none';

/** One claim of one job: from the audit transition that granted it to the one that closed it. */
export class DerivedClaim {
  /** Deadline in force: set by the grant, moved by each extension. */
  deadline: number;
  /** `stmtT` of the statement that set `deadline` (a deadline set in the past expires then). */
  deadlineSetT: number;
  /** Indices of the audit events that extended the deadline, in order (the deadline history). */
  readonly extensions: number[] = [];
  /** Audit `t` of the grant or of the last extension before the claim expired. */
  lastConfirmT: number;
  /** The first moment the clock passed the deadline (= that deadline), or NaN if it never did. */
  expiredAt = NaN;
  /** See `ClaimEnd`; settled when the derivation finishes. */
  end: ClaimEnd = 'open';
  /** What closed it. */
  closedBy: ClaimCloser = 'none';
  /** Index of the closing audit event, or -1. */
  closeIndex = -1;
  /** Index of the first worker event saying the claim was lost (failed extension or `lost`), or -1. */
  reportedLost = -1;
  /** Indices of effect events under this claim. */
  readonly effects: number[] = [];
  /** Indices of the worker's `unit` and `abort` events under this claim. */
  readonly work: number[] = [];
  /** Latest time anything happened under this claim. */
  lastActivityT: number;
  /**
   * When its worker sent the claim statement (its `claim` event's `invokedT`), or NaN: from then
   * on the worker was busy getting this job, however long the database took to start the
   * statement.
   */
  sentT = NaN;
  /**
   * Whether its worker is known to have let go of it: the answer to its ack or fail arrived,
   * its own ack or fail committed, or its handler aborted. A claim never let go of (its worker
   * crashed mid-unit, say) keeps the worker busy until it claims again or goes down.
   */
  released = false;

  constructor(
    /** The job. */
    readonly job: DerivedJob,
    /** 1 for the job's first claim, 2 for the next, … */
    readonly attempt: number,
    /** The audit `holder` (a claim token, or a worker id, per the adapter). */
    readonly holder: string,
    /** The worker that was granted the claim (the grant's `app`). */
    readonly worker: string,
    /** Index of the granting audit event. */
    readonly grant: number,
    /** Audit `t` of the grant. */
    readonly grantT: number,
    /** `stmtT` of the grant. */
    readonly grantStmtT: number,
    deadline: number,
  ) {
    this.deadline = deadline;
    this.deadlineSetT = grantStmtT;
    this.lastConfirmT = grantT;
    this.lastActivityT = grantT;
  }

  /**
   * The moment the deadline in force is passed: the deadline itself, or — for a deadline that
   * was already past when it was written — the moment it was written.
   */
  get expiresAt(): number {
    return Math.max(this.deadline, this.deadlineSetT);
  }

  /** Whether any work (an effect, a unit or an abort) was done under this claim. */
  get executed(): boolean {
    return this.effects.length > 0 || this.work.length > 0;
  }
}

/** A committed completion of a job: an update into `completed`, or a delete that completes. */
export class DerivedCompletion {
  constructor(
    /** Index of the audit event. */
    readonly index: number,
    /** `update` into completed, or `delete`. */
    readonly kind: 'update' | 'delete',
    /** The claim in the row when it completed (its `old.holder`), or null. */
    readonly holderClaim: DerivedClaim | null,
    /** The claim of the worker whose statement completed it, or null when it had none. */
    readonly by: DerivedClaim | null,
  ) {}
}

/** Everything derived about one job. */
export class DerivedJob {
  /** Index of the insert audit event, or -1. */
  insert = -1;
  /** Index of the `job` event (the handler plan), or -1. */
  plan = -1;
  /** The longest unit of the handler plan, ms; NaN without a plan. */
  maxUnitMs = NaN;
  /** All units of the handler plan together, ms; NaN without a plan or in an older history. */
  totalMs = NaN;
  /** Whether its handler plan has a synchronous unit (one that blocks its thread). */
  blocks = false;
  /** Claims in grant order. */
  readonly claims: DerivedClaim[] = [];
  /** Completions in commit order. */
  readonly completions: DerivedCompletion[] = [];
  /** Indices of audit events that released the job without completing it (fail, dead, reap). */
  readonly releases: number[] = [];
  /** Indices of effect and worker events under a token that matches none of its claims. */
  readonly orphans: number[] = [];
  /** The lease state after the last audit event; null before any. */
  state: LeaseState | null = null;
  /** Whether the row was deleted. */
  deleted = false;
  /** The claim in force (held in the row), or null. */
  current: DerivedClaim | null = null;
  /** Index of the last worker `ack` / `fail` invoke on this job, or -1 (attributes deletes). */
  lastOp = -1;

  constructor(
    /** The job id. */
    readonly id: string,
  ) {}

  /** Whether the job ended completed (an ack committed and nothing undid it). */
  get completed(): boolean {
    return this.state === 'completed';
  }
}

/** A fault as an interval on the database clock. */
export class DerivedFault {
  /** End of the fault; Infinity when it never ended in the history. */
  end = Infinity;
  /** Index of the end event, or -1. */
  endIndex = -1;

  constructor(
    /** The nemesis id pairing start and end. */
    readonly id: string,
    /** Which fault. */
    readonly fault: FaultKind,
    /** A worker id, or `db`. */
    readonly target: string,
    /** Start time. */
    readonly start: number,
    /** Index of the start event. */
    readonly startIndex: number,
  ) {}
}

/** What is known about one worker's life. */
export class DerivedWorker {
  /** Time of the first event attributed to it; NaN before any. */
  firstT = NaN;
  /** Claims granted to it, in grant order. */
  readonly claims: DerivedClaim[] = [];
  /**
   * Intervals when it was down, flattened [from, to, from, to, …]: from a crash or an `exit`
   * to its next event (a restarted worker's first word), or to Infinity.
   */
  readonly down: number[] = [];
  /** Start of the current down interval; NaN while up. */
  downSince = NaN;

  constructor(
    /** The worker id. */
    readonly id: string,
  ) {}
}

/** The derived view of a whole history. */
export interface DerivedHistory {
  /** The history it was derived from. */
  readonly history: History;
  /** Jobs by id, in the order they first appear. */
  readonly jobs: Map<string, DerivedJob>;
  /** Every claim, in grant order. */
  readonly claims: DerivedClaim[];
  /** Faults in start order. */
  readonly faults: DerivedFault[];
  /** Faults by target (a worker id or `db`), each list in start order. */
  readonly faultsByTarget: Map<string, DerivedFault[]>;
  /** Workers by id: the header's, and any other app that was granted a claim or reported. */
  readonly workers: Map<string, DerivedWorker>;
  /** Index of the `end` event, or -1 when the history was cut short. */
  readonly endIndex: number;
  /** The `end` event's time, or the last event's time of a cut history. */
  readonly endT: number;
  /** Whether the run reported that every job reached a terminal state. */
  readonly drained: boolean;
  /** Things the derivation could not make sense of, in a sentence each. */
  readonly warnings: string[];
  /**
   * Indices of the audit writes that were sweeps: each returned to the queue a claim whose lease
   * had already passed on the database's clock, and no fail call on the job made it — whoever's
   * connection it came from (a worker's claim call that reaps first, a library's rescuer). A
   * sweep ends no live lease and is nobody's stale write; I8 judges its cadence.
   */
  readonly sweeps: ReadonlySet<number>;
}
