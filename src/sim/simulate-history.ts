/**
 * A model of a correct lease queue — the reference design of the seed text — run as a discrete
 * simulation, emitting the history a real run would record: audit transitions with deadlines
 * on the database clock, heartbeats, acks and fails behind strict fences, units and effects,
 * worker events, nemesis events, the end. Every checker must pass what it emits; the property
 * tests inject one anomaly at a time into it, and the checker bench uses it for volume.
 *
 * Test support, not product: the property tests and the checker bench import it by path.
 *
 * The parts: `memory-queue.ts` is the database (rows, claim predicate, fences; the tuning
 * simulation runs against the same model), with the audit trigger here; `model-worker.ts` the
 * worker processes; `fault-schedule.ts` the nemesis. The `variant` option swaps in the flaw of
 * one built-in known-bad queue (`src/queue/known-bad-queues.ts`), so that a test can see each
 * caught by the checker it breaks.
 */
import type { FaultKind, History, HistoryEvent, WorkerHistoryEvent } from '../history/types.js';
import { HISTORY_VERSION } from '../history/types.js';
import type { LeaseSettings } from '../queue/types.js';
import { Random } from '../random.js';
import type { UnitPlan } from '../worker/types.js';
import { FaultSchedule, randomFaults } from './fault-schedule.js';
import { leaseImage, MemoryQueue, type RowChange } from './memory-queue.js';
import { ModelWorker, type ModelVariant, type WorkerWorld } from './model-worker.js';

export type { ModelVariant } from './model-worker.js';

/** What to simulate; everything but the seed has a default. */
export interface SimulationOptions {
  /** Seed of every random choice. */
  seed: number;
  /** Worker processes (default 4). */
  workers?: number;
  /** Jobs, all enqueued at the start (default 20). */
  jobs?: number;
  /** Lease settings (default 200 ms lease and extension, 50 ms heartbeat, 20 ms poll). */
  lease?: LeaseSettings;
  /** Units per job, inclusive range (default 1–4). */
  units?: { min: number; max: number };
  /** Duration of a unit in ms, range (default 5–40). */
  unitMs?: { min: number; max: number };
  /** Chance that a unit has an effect (default 0.5). */
  effectChance?: number;
  /** Chance that an attempt's handler throws (default 0.05). */
  failChance?: number;
  /** Claims before a failing job is dead-lettered (default 4). */
  maxAttempts?: number;
  /** Random faults to draw (default 3). */
  faults?: number;
  /** Kinds to draw them from (default all but latency, bandwidth and slicer). */
  faultKinds?: readonly FaultKind[];
  /** Pause the first worker right after its first claim for 3 leases: at least one expiry. */
  forceExpiry?: boolean;
  /** The database-clock epoch of the run (default 1.7e12). */
  startAt?: number;
  /**
   * The reference queue (default), or the flaw of one known-bad queue: `unconditional-ack`
   * acks by job id alone; `no-watchdog` runs handlers to the end after a lost claim;
   * `main-thread-heartbeat` beats from the handler's event loop (a stall stops it);
   * `worker-clock-lease` computes deadlines on the workers' clocks.
   */
  variant?: ModelVariant;
  /** worker-clock-lease: how far ahead the workers' clocks are, ms (default 90 s). */
  workerClockSkewMs?: number;
}

const DEFAULT_LEASE: LeaseSettings = {
  durationMs: 200,
  heartbeatMs: 50,
  extendByMs: 200,
  pollMs: 20,
};
/** Retry delay of a failed attempt: fixed, so a retried job is soon claimed again. */
const BACKOFF_MS = 50;
const DEFAULT_KINDS: readonly FaultKind[] = [
  'pause',
  'partition',
  'crash',
  'stall',
  'clock',
  'db-restart',
];

/** Simulates a correct (or known-bad) lease queue under random faults; returns its history. */
export function simulateHistory(options: SimulationOptions): History {
  return new Simulation(options).run();
}

class Simulation implements WorkerWorld {
  readonly random: Random;
  readonly lease: LeaseSettings;
  readonly variant: ModelVariant;
  readonly leaseClockSkew: number;
  readonly failChance: number;
  readonly schedule = new FaultSchedule();
  readonly queue: MemoryQueue;
  private readonly events: HistoryEvent[] = [];
  private readonly t0: number;
  private forcePause: boolean;

  constructor(private readonly options: SimulationOptions) {
    this.random = new Random(options.seed);
    this.lease = options.lease ?? DEFAULT_LEASE;
    this.variant = options.variant ?? 'reference';
    this.leaseClockSkew =
      this.variant === 'worker-clock-lease' ? (options.workerClockSkewMs ?? 90_000) : 0;
    this.failChance = options.failChance ?? 0.05;
    this.t0 = options.startAt ?? 1_700_000_000_000;
    this.forcePause = options.forceExpiry === true;
    this.queue = new MemoryQueue({
      maxAttempts: options.maxAttempts ?? 4,
      backoffMs: () => BACKOFF_MS,
      unfencedAck: this.variant === 'unconditional-ack',
      onChange: (change) => this.audit(change),
    });
  }

  run(): History {
    const o = this.options;
    const jobs = o.jobs ?? 20;
    const units = o.units ?? { min: 1, max: 4 };
    const unitMs = o.unitMs ?? { min: 5, max: 40 };
    const effectChance = o.effectChance ?? 0.5;
    for (let k = 0; k < jobs; k += 1) {
      const n = this.random.int(units.min, units.max);
      // Every duration before every effect: the order the seeds have always drawn them in.
      const durations = Array.from(
        { length: n },
        () => unitMs.min + this.random.next() * (unitMs.max - unitMs.min),
      );
      const plan = durations.map((ms): UnitPlan => ({
        ms,
        sync: false,
        effect: this.random.next() < effectChance,
      }));
      // The workload's `job` event, then the insert: the order a run records them in.
      this.events.push({
        type: 'job',
        t: this.t0,
        job: String(k + 1),
        units: n,
        maxUnitMs: Math.max(...durations),
        totalMs: durations.reduce((sum, ms) => sum + ms, 0),
      });
      this.queue.enqueue(this.t0, plan);
    }
    const ids = Array.from({ length: o.workers ?? 4 }, (_, k) => `w${k + 1}`);
    const workers = ids.map((id, index) => new ModelWorker(this, id, index, this.t0 + 1));
    const meanUnits = (units.min + units.max) / 2;
    const horizon = (jobs * meanUnits * (unitMs.min + unitMs.max)) / 2 / workers.length;
    randomFaults(this.random, this.schedule, {
      count: o.faults ?? 3,
      kinds: o.faultKinds ?? DEFAULT_KINDS,
      // The forced pause belongs to the first worker alone, so nothing else overlaps it.
      workers: this.forcePause ? ids.slice(1) : ids,
      from: this.t0 + 2,
      to: this.t0 + 2 + horizon,
      leaseMs: this.lease.durationMs,
    });
    this.loop(workers);
    return this.finish(ids, workers);
  }

  say(t: number, worker: string, kind: string, fields: Partial<WorkerHistoryEvent> = {}): void {
    this.events.push({ type: 'worker', t, worker, kind, ...fields });
  }

  effect(t: number, worker: string, job: string, token: string, unit: number): void {
    // The effects table is reached directly, not through the worker's proxy: only a database
    // outage keeps an effect off the record (the worker then says it was not recorded).
    const recorded = Number.isNaN(this.schedule.activeEnd('db', DB_DOWN, t));
    if (recorded) this.events.push({ type: 'effect', t, worker, job, token, unit });
    this.say(t + 0.05, worker, 'effect', {
      job,
      token,
      unit,
      ...(!recorded && { detail: 'not recorded' }),
    });
  }

  granted(worker: ModelWorker, now: number): void {
    if (!this.forcePause || worker.index !== 0) return;
    this.forcePause = false;
    const start = now + 1;
    const end = start + 3 * this.lease.durationMs;
    this.schedule.add({ id: 'forced', kind: 'pause', target: worker.id, start, end });
  }

  /** The audit trigger: every committed change of the lease table becomes an audit event. */
  private audit({ stmtT, app, op, row, old }: RowChange): void {
    this.events.push({
      type: 'audit',
      t: stmtT + 0.05,
      stmtT,
      txnT: stmtT,
      xid: String(this.events.length),
      app,
      op,
      job: row.id,
      old,
      new: leaseImage(row),
    });
  }

  private loop(workers: ModelWorker[]): void {
    for (let steps = 0; !this.queue.drained; steps += 1) {
      let w = workers[0]!;
      for (const v of workers) if (v.next < w.next) w = v;
      w.step(w.next);
      if (steps > 50_000_000) throw new Error('simulation did not drain');
    }
  }

  private finish(ids: string[], workers: ModelWorker[]): History {
    let lastT = this.schedule.lastEnd();
    for (const e of this.events) if (e.t > lastT) lastT = e.t;
    for (const w of workers)
      if (!w.down) this.say(lastT + 0.5, w.id, 'exit', { detail: 'drained' });
    this.events.push(...this.schedule.events());
    this.events.sort((a, b) => a.t - b.t);
    this.events.push({ type: 'end', t: lastT + 1, drained: true });
    return {
      header: {
        type: 'header',
        version: HISTORY_VERSION,
        scenario: `simulated ${this.variant}`,
        seed: this.options.seed,
        queue: this.variant,
        versions: {
          leaseproof: 'model',
          postgres: 'model',
          toxiproxy: 'model',
          node: process.version,
        },
        lease: this.lease,
        workers: ids,
        clockOffsetMs: 0,
        clockUncertaintyMs: 0.5,
        startedAt: this.t0,
        allowDeadLetter: true,
      },
      events: this.events,
    };
  }
}

const DB_DOWN = new Set<FaultKind>(['db-restart']);
