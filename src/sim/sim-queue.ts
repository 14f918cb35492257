/**
 * The database side of the tuning simulation: the reference queue's lease semantics in memory,
 * on the simulation's one clock (the fake `Date.now()`, standing for the database's `now()`).
 * The claim predicate of the seed text (pending and due, or held under a passed deadline, lowest
 * id first), a fresh token per claim, and extend / ack / fail conditional on the claim still being
 * held — exactly what `src/queue/reference-queue.ts` does in SQL.
 *
 * It also keeps the truth the metrics are computed from: every claim with its holder, its grant,
 * its expiry and whether its handler ran.
 */
import type { Claim } from '../queue/types.js';
import type { UnitPlan } from '../worker/types.js';

/** One claim of one job, as the database saw it. */
export interface SimClaim {
  worker: string;
  token: string;
  grantedAt: number;
  /** Grant or last successful extension. */
  confirmedAt: number;
  deadline: number;
  /** When the deadline passed unextended, first seen by a re-claim or the end (NaN: never). */
  expiredAt: number;
  /** Whether its handler ran at least one unit (an execution). */
  executed: boolean;
  /** How it ended. */
  end: 'acked' | 'failed' | 'expired' | 'open';
}

/** A job's row. */
export interface SimJob {
  id: number;
  units: UnitPlan[];
  arrivedAt: number;
  state: 'pending' | 'held' | 'completed' | 'dead';
  token: string | null;
  deadline: number;
  availableAt: number;
  attempts: number;
  claims: SimClaim[];
  completedAt: number;
}

/** Retry backoff of a failed attempt (the reference's base). */
const BACKOFF_MS = 100;

/** The queue's rows and its conditional statements. */
export class SimQueue {
  readonly jobs: SimJob[] = [];
  /** Held or retrying jobs, the only ones a re-claim can find below the frontier. */
  private readonly open = new Set<SimJob>();
  /** The lowest job never claimed. */
  private frontier = 0;
  private tokens = 0;
  private done = 0;
  /** Extension statements that reached the database (the heartbeat's write load). */
  extendWrites = 0;

  /**
   * `redraw`: each claim's handler takes units drawn afresh (a duration is a property of one
   * execution: a p99.9 outlier recurs at the distribution's rate, not on every retry of the
   * same job); absent: every claim runs the job's own units.
   */
  constructor(
    private readonly maxAttempts: number,
    private readonly redraw?: () => UnitPlan[],
  ) {}

  /** Whether every job that will ever arrive has arrived and is completed or dead. */
  drained(total: number): boolean {
    return this.jobs.length === total && this.done === total;
  }

  /** Jobs completed or dead. */
  get finished(): number {
    return this.done;
  }

  /** A job arrives (`INSERT`). */
  enqueue(units: UnitPlan[], now: number): void {
    const id = this.jobs.length + 1;
    this.jobs.push({
      id,
      units,
      arrivedAt: now,
      state: 'pending',
      token: null,
      deadline: NaN,
      availableAt: now,
      attempts: 0,
      claims: [],
      completedAt: NaN,
    });
  }

  /** The claim statement: lowest id among pending-and-due or held-and-expired. */
  claim(worker: string, now: number, leaseMs: number): Claim | undefined {
    let best: SimJob | undefined;
    for (const job of this.open) {
      const free =
        (job.state === 'pending' && job.availableAt <= now) ||
        (job.state === 'held' && job.deadline < now);
      if (free && (best === undefined || job.id < best.id)) best = job;
    }
    const fresh = this.jobs[this.frontier];
    if (fresh !== undefined && (best === undefined || fresh.id < best.id)) {
      best = fresh;
      this.frontier += 1;
      this.open.add(fresh);
    }
    if (best === undefined) return undefined;
    const previous = best.claims[best.claims.length - 1];
    if (previous !== undefined && previous.end === 'open') {
      previous.end = 'expired';
      previous.expiredAt = previous.deadline;
    }
    this.tokens += 1;
    const token = `t${this.tokens}`;
    best.state = 'held';
    best.token = token;
    best.deadline = now + leaseMs;
    best.attempts += 1;
    best.claims.push({
      worker,
      token,
      grantedAt: now,
      confirmedAt: now,
      deadline: best.deadline,
      expiredAt: NaN,
      executed: false,
      end: 'open',
    });
    const units = best.attempts === 1 || this.redraw === undefined ? best.units : this.redraw();
    return { jobId: String(best.id), token, attempt: best.attempts, payload: { units } };
  }

  /** The extension: moves the deadline when the claim is still held. */
  extend(claim: Claim, now: number, extendByMs: number): boolean {
    this.extendWrites += 1;
    const job = this.held(claim, now);
    if (job === undefined) return false;
    job.deadline = now + extendByMs;
    const current = job.claims[job.claims.length - 1]!;
    current.deadline = job.deadline;
    current.confirmedAt = now;
    return true;
  }

  /** The ack: completes the job when the claim is still held. */
  ack(claim: Claim, now: number): boolean {
    const job = this.held(claim, now);
    if (job === undefined) return false;
    job.state = 'completed';
    job.completedAt = now;
    job.claims[job.claims.length - 1]!.end = 'acked';
    this.close(job);
    return true;
  }

  /** The fail: back to pending after a backoff, or dead after its attempts. */
  fail(claim: Claim, now: number): boolean {
    const job = this.held(claim, now);
    if (job === undefined) return false;
    job.claims[job.claims.length - 1]!.end = 'failed';
    if (job.attempts >= this.maxAttempts) {
      job.state = 'dead';
      this.close(job);
    } else {
      job.state = 'pending';
      job.availableAt = now + BACKOFF_MS * 2 ** Math.min(job.attempts - 1, 10);
    }
    job.token = null;
    return true;
  }

  /** Marks the claim under which a unit ran (an execution), by token. */
  executed(jobId: string, token: string): void {
    const job = this.jobs[Number(jobId) - 1];
    const claim = job?.claims.find((c) => c.token === token);
    if (claim !== undefined) claim.executed = true;
  }

  /** Settles the claims still open at the end: expired if their deadline passed. */
  settle(now: number): void {
    for (const job of this.open) {
      const last = job.claims[job.claims.length - 1];
      if (last?.end === 'open' && last.deadline < now) {
        last.end = 'expired';
        last.expiredAt = last.deadline;
      }
    }
  }

  private held(claim: Claim, now: number): SimJob | undefined {
    const job = this.jobs[Number(claim.jobId) - 1];
    if (job === undefined || job.state !== 'held' || job.token !== claim.token) return undefined;
    if (job.deadline < now) return undefined;
    return job;
  }

  private close(job: SimJob): void {
    this.open.delete(job);
    this.done += 1;
  }
}
