/**
 * A worker process of the history generator's model, as `src/worker/` behaves: a claim loop that polls when idle, a
 * handler of units with the watchdog's abort check between them, a heartbeat on its own thread
 * that declares the claim lost on a failed extension or when its own view of the lease runs
 * out, and an ack or fail at the end. Faults act on it as on a real process: `pause` freezes it
 * all, `stall` freezes the main thread (the heartbeat thread goes on), `partition` and
 * `db-restart` make queue statements hang until the connection is back, `crash` kills it until
 * a restart.
 */
import type { FaultKind, WorkerHistoryEvent } from '../history/types.js';
import type { LeaseSettings } from '../queue/types.js';
import type { Random } from '../random.js';
import type { FaultSchedule } from './fault-schedule.js';
import type { MemoryQueue, QueueRow } from './memory-queue.js';

/** The reference queue, or one known-bad variant (see `SimulationOptions.variant`). */
export type ModelVariant =
  | 'reference'
  | 'unconditional-ack'
  | 'no-watchdog'
  | 'main-thread-heartbeat'
  | 'worker-clock-lease';

/** What a worker shares with the others. */
export interface WorkerWorld {
  readonly queue: MemoryQueue;
  readonly schedule: FaultSchedule;
  readonly random: Random;
  readonly lease: LeaseSettings;
  readonly variant: ModelVariant;
  /** How far ahead of the database the clock is that deadlines are computed on. */
  readonly leaseClockSkew: number;
  readonly failChance: number;
  /** Records a worker event. */
  say(t: number, worker: string, kind: string, fields?: Partial<WorkerHistoryEvent>): void;
  /** Records an effect (written over a path of its own, unless the database is down). */
  effect(t: number, worker: string, job: string, token: string, unit: number): void;
  /** Told of every grant (the forced pause of `forceExpiry` hooks in here). */
  granted(worker: ModelWorker, now: number): void;
}

const PAUSE = new Set<FaultKind>(['pause']);
const STALL = new Set<FaultKind>(['stall']);
const CRASH = new Set<FaultKind>(['crash']);
const PARTITION = new Set<FaultKind>(['partition']);
const DB_DOWN = new Set<FaultKind>(['db-restart']);

type State = 'idle' | 'working' | 'acking' | 'failing' | 'down';

/** One worker process. */
export class ModelWorker {
  /** When it wants to be stepped next. */
  next: number;
  private state: State = 'idle';
  /** When the main thread has something to do. */
  private mainAt: number;
  private job: QueueRow | null = null;
  private token = '';
  private unit = 0;
  private unitEnd = NaN;
  private failUnit = -1;
  private beating = false;
  private nextBeat = Infinity;
  private localDeadline = Infinity;
  private lost = false;
  private invoked = false;

  constructor(
    private readonly world: WorkerWorld,
    readonly id: string,
    readonly index: number,
    start: number,
  ) {
    this.next = start;
    this.mainAt = start;
    world.say(start, id, 'ready');
  }

  /** Whether it is down (crashed and not restarted). */
  get down(): boolean {
    return this.state === 'down';
  }

  /** Does what is due at `now`, and sets `next`. */
  step(now: number): void {
    const { schedule } = this.world;
    const crashEnd = schedule.activeEnd(this.id, CRASH, now);
    if (!Number.isNaN(crashEnd)) {
      // Killed: the claim is abandoned where it stands, and its lease will have to expire.
      this.state = 'down';
      this.job = null;
      this.beating = false;
      this.next = crashEnd;
      return;
    }
    if (this.state === 'down') {
      this.world.say(now, this.id, 'ready');
      this.state = 'idle';
      this.mainAt = now + 0.5;
    }
    const pauseEnd = schedule.activeEnd(this.id, PAUSE, now);
    if (!Number.isNaN(pauseEnd)) {
      this.next = pauseEnd;
      return;
    }
    const stallEnd = schedule.activeEnd(this.id, STALL, now);
    // A heartbeat on the handler's event loop stops when the loop is blocked.
    const beatsFrozen = this.world.variant === 'main-thread-heartbeat' && !Number.isNaN(stallEnd);
    if (this.beating && !beatsFrozen) {
      if (now >= this.localDeadline) this.declareLost(now, 'lease ran out without a confirmation');
      else if (now >= this.nextBeat) this.beat(now);
    }
    if (Number.isNaN(stallEnd) && now >= this.mainAt) this.main(now);
    let next = Number.isNaN(stallEnd) ? this.mainAt : Math.max(this.mainAt, stallEnd);
    if (this.beating) {
      const beat = Math.min(this.nextBeat, this.localDeadline);
      next = Math.min(next, beatsFrozen ? Math.max(beat, stallEnd) : beat);
    }
    this.next = Math.min(next, schedule.nextStart(this.id, 'crash', now));
  }

  /** When its connection to the queue is cut at `t`, the end of that; else NaN. */
  private cutUntil(t: number): number {
    const partition = this.world.schedule.activeEnd(this.id, PARTITION, t);
    const db = this.world.schedule.activeEnd('db', DB_DOWN, t);
    return Number.isNaN(partition) ? db : Number.isNaN(db) ? partition : Math.max(partition, db);
  }

  private main(now: number): void {
    if (this.state === 'idle') this.claim(now);
    else if (this.state === 'working') this.work(now);
    else if (this.state === 'acking' || this.state === 'failing') this.finish(now);
  }

  private claim(now: number): void {
    const { queue, lease, leaseClockSkew } = this.world;
    const cut = this.cutUntil(now);
    if (!Number.isNaN(cut)) {
      this.mainAt = cut;
      return;
    }
    const stmtT = now + 0.1;
    const job = queue.claim(this.id, stmtT, stmtT + leaseClockSkew + lease.durationMs);
    if (job === undefined) {
      this.mainAt = now + lease.pollMs;
      return;
    }
    this.job = job;
    this.token = job.holder!;
    this.world.say(stmtT + 0.2, this.id, 'claim', {
      phase: 'complete',
      outcome: 'ok',
      job: job.id,
      token: this.token,
    });
    this.state = 'working';
    this.unit = 0;
    this.unitEnd = NaN;
    this.beating = true;
    this.lost = false;
    this.nextBeat = now + lease.heartbeatMs;
    this.localDeadline = now + lease.durationMs;
    this.mainAt = stmtT + 0.3;
    const fails = this.world.random.next() < this.world.failChance;
    this.failUnit = fails ? this.world.random.int(0, job.units.length - 1) : -1;
    this.world.granted(this, now);
  }

  private work(now: number): void {
    const job = this.job!;
    if (!Number.isNaN(this.unitEnd)) {
      if (job.units[this.unit]!.effect) {
        this.world.effect(now + 0.05, this.id, job.id, this.token, this.unit);
      }
      this.unit += 1;
      this.unitEnd = NaN;
      this.mainAt = now + 0.15;
      return;
    }
    const watchdog = this.world.variant !== 'no-watchdog';
    if (this.unit < job.units.length && this.lost && watchdog) {
      this.world.say(now, this.id, 'abort', { job: job.id, token: this.token, unit: this.unit });
      this.release(now + 0.1);
      return;
    }
    if (this.unit === this.failUnit || this.unit === job.units.length) {
      // The handler threw, or finished: the heartbeat stops and the worker reports.
      this.beating = false;
      this.state = this.unit === this.failUnit ? 'failing' : 'acking';
      this.invoked = false;
      this.finish(now);
      return;
    }
    this.world.say(now, this.id, 'unit', { job: job.id, token: this.token, unit: this.unit });
    this.unitEnd = now + job.units[this.unit]!.ms;
    this.mainAt = this.unitEnd;
  }

  private finish(now: number): void {
    const job = this.job!;
    const kind = this.state === 'acking' ? 'ack' : 'fail';
    const fields = { job: job.id, token: this.token };
    if (!this.invoked) {
      this.world.say(now, this.id, kind, { phase: 'invoke', ...fields });
      this.invoked = true;
    }
    const cut = this.cutUntil(now);
    if (!Number.isNaN(cut)) {
      this.mainAt = cut; // the statement hangs until the connection is back
      return;
    }
    const stmtT = now + 0.1;
    const ok = this.world.queue.finish(this.id, job, this.token, stmtT, kind);
    const outcome = ok ? 'ok' : 'fail';
    this.world.say(stmtT + 0.2, this.id, kind, { phase: 'complete', outcome, ...fields });
    this.release(stmtT + 0.3);
  }

  private beat(now: number): void {
    const { lease, leaseClockSkew, queue } = this.world;
    const job = this.job!;
    const fields = { job: job.id, token: this.token };
    this.nextBeat = now + lease.heartbeatMs;
    this.world.say(now, this.id, 'extend', { phase: 'invoke', ...fields });
    if (!Number.isNaN(this.cutUntil(now))) {
      const detail = 'timeout';
      this.world.say(now + 0.5, this.id, 'extend', {
        phase: 'complete',
        outcome: 'info',
        detail,
        ...fields,
      });
      return;
    }
    const stmtT = now + 0.1;
    const deadline = stmtT + leaseClockSkew + lease.extendByMs;
    if (!queue.extend(this.id, job, this.token, stmtT, deadline)) {
      this.world.say(stmtT + 0.2, this.id, 'extend', {
        phase: 'complete',
        outcome: 'fail',
        ...fields,
      });
      this.declareLost(stmtT + 0.3, 'extension returned lost (0 rows)');
      return;
    }
    this.world.say(stmtT + 0.2, this.id, 'extend', { phase: 'complete', outcome: 'ok', ...fields });
    // The worker's own view of the lease runs from when it sent the extension.
    this.localDeadline = now + lease.extendByMs;
  }

  private declareLost(t: number, reason: string): void {
    this.lost = true;
    this.beating = false;
    this.world.say(t, this.id, 'lost', { job: this.job!.id, token: this.token, detail: reason });
  }

  private release(at: number): void {
    this.state = 'idle';
    this.job = null;
    this.beating = false;
    this.mainAt = at;
  }
}
