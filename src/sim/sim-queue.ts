/**
 * The queue of the tuning simulation: the reference lease semantics of `MemoryQueue`, on the
 * simulation's one clock (the fake `Date.now()`, standing for the database's `now()`), behind the
 * claim / extend / ack / fail calls `ClaimLoop` makes.
 *
 * It also keeps the truth the metrics are computed from: every claim with its holder, its grant,
 * its expiry and whether its handler ran.
 */
import type { Claim } from '../queue/types.js';
import type { UnitPlan } from '../worker/types.js';
import { MemoryQueue, type QueueRow } from './memory-queue.js';

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

/** A job: its row in the queue and every claim of it. */
export interface SimJob {
  row: QueueRow;
  claims: SimClaim[];
}

/** Retry backoff of a failed attempt (the reference's base, doubling per attempt). */
const BACKOFF_MS = 100;

/** The queue's rows and statements, with the ledger of claims. */
export class SimQueue {
  readonly jobs: SimJob[] = [];
  /** Extension statements that reached the database (the heartbeat's write load). */
  extendWrites = 0;
  private readonly queue: MemoryQueue;

  /**
   * `redraw`: each claim's handler takes units drawn afresh (a duration is a property of one
   * execution: a p99.9 outlier recurs at the distribution's rate, not on every retry of the
   * same job); absent: every claim runs the job's own units.
   */
  constructor(
    maxAttempts: number,
    private readonly redraw?: () => UnitPlan[],
  ) {
    this.queue = new MemoryQueue({
      maxAttempts,
      backoffMs: (attempts) => BACKOFF_MS * 2 ** Math.min(attempts - 1, 10),
    });
  }

  /** Whether every job that will ever arrive has arrived and is completed or dead. */
  drained(total: number): boolean {
    return this.jobs.length === total && this.queue.finished === total;
  }

  /** Jobs completed or dead. */
  get finished(): number {
    return this.queue.finished;
  }

  /** A job arrives (`INSERT`). */
  enqueue(units: UnitPlan[], now: number): void {
    this.jobs.push({ row: this.queue.enqueue(now, units), claims: [] });
  }

  /** The claim statement: lowest id among pending-and-due or held-and-expired. */
  claim(worker: string, now: number, leaseMs: number): Claim | undefined {
    const row = this.queue.claim(worker, now, now + leaseMs);
    if (row === undefined) return undefined;
    const { claims } = this.job(row.id)!;
    const previous = claims[claims.length - 1];
    if (previous !== undefined && previous.end === 'open') {
      previous.end = 'expired';
      previous.expiredAt = previous.deadline;
    }
    const token = row.holder!;
    claims.push({
      worker,
      token,
      grantedAt: now,
      confirmedAt: now,
      deadline: row.deadline!,
      expiredAt: NaN,
      executed: false,
      end: 'open',
    });
    const units = row.attempts === 1 || this.redraw === undefined ? row.units : this.redraw();
    return { jobId: row.id, token, attempt: row.attempts, payload: { units } };
  }

  /** The extension: moves the deadline when the claim is still held. */
  extend(worker: string, claim: Claim, now: number, extendByMs: number): boolean {
    this.extendWrites += 1;
    const job = this.job(claim.jobId);
    if (job === undefined) return false;
    if (!this.queue.extend(worker, job.row, claim.token, now, now + extendByMs)) return false;
    const current = job.claims[job.claims.length - 1]!;
    current.deadline = job.row.deadline!;
    current.confirmedAt = now;
    return true;
  }

  /** The ack: completes the job when the claim is still held. */
  ack(worker: string, claim: Claim, now: number): boolean {
    return this.finish(worker, claim, now, 'ack');
  }

  /** The fail: back to pending after a backoff, or dead after its attempts. */
  fail(worker: string, claim: Claim, now: number): boolean {
    return this.finish(worker, claim, now, 'fail');
  }

  /** Marks the claim under which a unit ran (an execution), by token. */
  executed(jobId: string, token: string): void {
    const claim = this.job(jobId)?.claims.find((c) => c.token === token);
    if (claim !== undefined) claim.executed = true;
  }

  /** Settles the claims still open at the end: expired if their deadline passed. */
  settle(now: number): void {
    for (const { claims } of this.jobs) {
      const last = claims[claims.length - 1];
      if (last?.end === 'open' && last.deadline < now) {
        last.end = 'expired';
        last.expiredAt = last.deadline;
      }
    }
  }

  private finish(worker: string, claim: Claim, now: number, kind: 'ack' | 'fail'): boolean {
    const job = this.job(claim.jobId);
    if (job === undefined) return false;
    if (!this.queue.finish(worker, job.row, claim.token, now, kind)) return false;
    job.claims[job.claims.length - 1]!.end = kind === 'ack' ? 'acked' : 'failed';
    return true;
  }

  private job(id: string): SimJob | undefined {
    return this.jobs[Number(id) - 1];
  }
}
