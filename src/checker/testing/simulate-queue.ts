/**
 * The database side of the model: one row per job with its lease, the claim predicate of the
 * seed text, statements behind the reference's strict fence, and the audit trigger — every
 * committed change becomes an audit event with its old and new image.
 */
import type { AuditEvent, HistoryEvent, LeaseImage, LeaseState } from '../../history/types.js';

/** A job's row, plus its handler plan. */
export interface ModelJob {
  id: string;
  /** Unit durations, ms. */
  units: number[];
  /** Whether each unit has an effect. */
  effects: boolean[];
  state: LeaseState;
  holder: string | null;
  deadline: number | null;
  availableAt: number;
  /** Claims so far, expired ones included (as the reference counts them). */
  attempts: number;
}

/** The harness's `application_name`. */
export const HARNESS_APP = 'leaseproof';

/** The queue's rows and statements; every change lands in `events` as the trigger records it. */
export class ModelQueue {
  private readonly jobs: ModelJob[] = [];
  /** Jobs claimed at least once and not finished, in id order (all below the frontier). */
  private inFlight: ModelJob[] = [];
  /** The lowest job never claimed. */
  private frontier = 0;
  private tokens = 0;

  constructor(private readonly events: HistoryEvent[]) {}

  /** Whether every job is completed or dead-lettered. */
  get drained(): boolean {
    return this.frontier >= this.jobs.length && this.inFlight.length === 0;
  }

  /** Inserts a job (the workload's `job` event, then the insert). */
  enqueue(t: number, units: number[], effects: boolean[]): void {
    const job: ModelJob = {
      id: String(this.jobs.length + 1),
      units,
      effects,
      state: 'pending',
      holder: null,
      deadline: null,
      availableAt: t,
      attempts: 0,
    };
    this.jobs.push(job);
    this.events.push({
      type: 'job',
      t,
      job: job.id,
      units: units.length,
      maxUnitMs: Math.max(...units),
    });
    this.audit(t, HARNESS_APP, 'insert', job, null);
  }

  /**
   * Claims the lowest-id job that is pending and available or held under an expired lease, at
   * statement time `stmtT`; `deadline` computes its deadline from `stmtT`.
   */
  claim(app: string, stmtT: number, deadline: (stmtT: number) => number): ModelJob | undefined {
    const job = this.claimable(stmtT);
    if (job === undefined) return undefined;
    const old = image(job);
    job.attempts += 1;
    job.state = 'held';
    job.holder = `c${(this.tokens += 1)}`;
    job.deadline = deadline(stmtT);
    this.audit(stmtT, app, 'update', job, old);
    return job;
  }

  /** Extends a held, unexpired claim: true when it did (the row changed). */
  extend(app: string, job: ModelJob, token: string, stmtT: number, deadline: number): boolean {
    if (!holds(job, token, stmtT)) return false;
    const old = image(job);
    job.deadline = deadline;
    this.audit(stmtT, app, 'update', job, old);
    return true;
  }

  /**
   * Acks (to completed) or fails (to pending after `backoffMs`, or dead once out of attempts)
   * behind the fence; `unfenced` acks by job id alone, as `unconditional-ack` does.
   */
  finish(
    app: string,
    job: ModelJob,
    token: string,
    stmtT: number,
    how: { kind: 'ack' | 'fail'; unfenced: boolean; maxAttempts: number; backoffMs: number },
  ): boolean {
    if (!how.unfenced && !holds(job, token, stmtT)) return false;
    const old = image(job);
    job.holder = null;
    job.deadline = null;
    if (how.kind === 'ack') job.state = 'completed';
    else if (job.attempts >= how.maxAttempts) job.state = 'dead';
    else {
      job.state = 'pending';
      job.availableAt = stmtT + how.backoffMs;
    }
    this.audit(stmtT, app, 'update', job, old);
    if (job.state !== 'pending') this.inFlight = this.inFlight.filter((j) => j !== job);
    return true;
  }

  private claimable(stmtT: number): ModelJob | undefined {
    for (const job of this.inFlight) {
      if (job.state === 'pending' ? job.availableAt <= stmtT : job.deadline! < stmtT) return job;
    }
    const job = this.jobs[this.frontier];
    if (job === undefined) return undefined;
    this.frontier += 1;
    this.inFlight.push(job);
    return job;
  }

  private audit(
    stmtT: number,
    app: string,
    op: AuditEvent['op'],
    job: ModelJob,
    old: LeaseImage | null,
  ): void {
    this.events.push({
      type: 'audit',
      t: stmtT + 0.05,
      stmtT,
      txnT: stmtT,
      xid: String(this.events.length),
      app,
      op,
      job: job.id,
      old,
      new: image(job),
    });
  }
}

/** The strict fence: this token, still held, lease not past at the statement's time. */
function holds(job: ModelJob, token: string, stmtT: number): boolean {
  return job.holder === token && job.state === 'held' && job.deadline! >= stmtT;
}

function image(job: ModelJob): LeaseImage {
  return { holder: job.holder, deadline: job.deadline, state: job.state };
}
