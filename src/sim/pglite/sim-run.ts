/**
 * One run in simulated time against a queue adapter's **own SQL** on PGlite: the adapter's
 * setup, leaseproof's audit trigger and effects table, its enqueue; workers running leaseproof's
 * real worker code (`ClaimLoop`, `runHandler`, `HeartbeatCore` from `src/worker/`) calling the
 * adapter's claim / extend / ack / fail / checkpoint over simulated connections; faults as
 * scheduling decisions (a crash ends a worker's calls and timers until it restarts, a pause
 * holds its statements and effects — its timers run on, so a unit cut by the pause ends at once
 * when it is continued, as a SIGSTOPped one does — a partition loses a statement or its answer,
 * a latency holds what crosses the way it acts on — at most until it heals, as Toxiproxy lets go
 * of what a removed toxic holds — and a clock fault skews the clock the worker's queue
 * code reads, as a real worker's `SkewedClock` does); and the history in the format of a real
 * run, for the same checkers. One seed, one history, byte for byte: the database's randomness,
 * the process's (`Math.random`, `crypto.randomUUID`) and a latency's jitter are seeded.
 *
 * What it does not model, and says so: row-lock waits between concurrent transactions (PGlite
 * runs one statement at a time), a database restart, CPU starvation, a bandwidth limit or a
 * sliced stream, and a blocked event loop (a synchronous unit is a wait the watchdog cannot cut,
 * on a heartbeat thread of its own: a queue whose heartbeat shares the handler's thread is not
 * told apart). A failure found here is a lead: it is
 * confirmed on a real run before it is reported (issue 25).
 */
import FakeTimers from '@sinonjs/fake-timers';
import { installAuditTrigger } from '../../history/audit-trigger.js';
import { readAuditEvents } from '../../history/audit-reader.js';
import { readEffectEvents } from '../../history/effects-reader.js';
import type { History, HistoryEvent, NemesisEvent } from '../../history/types.js';
import { HISTORY_VERSION } from '../../history/types.js';
import { workerHistoryEvent } from '../../history/worker-events.js';
import { MAINTENANCE_APP } from '../../pool/maintenance-loop.js';
import { unfinishedJobs } from '../../pool/queue-database.js';
import { settleQueueTerms } from '../../scenario/queue-terms.js';
import { hasLeaseExtension } from '../../queue/lease-terms.js';
import type {
  Claim,
  LeaseSettings,
  QueueAdapter,
  QueueContext,
  SqlClient,
} from '../../queue/types.js';
import { ClaimLoop } from '../../worker/claim-loop.js';
import { EFFECTS_DDL } from '../../worker/effects.js';
import { sleep } from '../../worker/handler.js';
import { HeartbeatCore } from '../../worker/heartbeat-core.js';
import type { UnitPlan, WorkerEvent } from '../../worker/types.js';
import { VERSION } from '../../version.js';
import type { SimConnection, SimDatabase } from './sim-database.js';
import { Random } from '../../random.js';
import { seedRandomness } from './seeded-randomness.js';
import { hookDatabaseTime } from './database-time.js';
import { DEFAULT_SIM_BOUNDS, SimulationBoundError, type SimBounds } from './sim-bounds.js';
import { StepMeter } from './step-meter.js';

/** A fault the simulation schedules: on one worker, from `atMs` for `forMs`. */
export interface SimFault {
  kind: 'crash' | 'pause' | 'partition' | 'latency' | 'clock';
  worker: string;
  atMs: number;
  /** A crash's restart delay (Infinity: it stays dead); every other fault's length. */
  forMs: number;
  /**
   * A partition's kind, as the scenario's: `blackhole` (no answer: the statement bound runs
   * out), `reset` or `down` (an error at once). Default `blackhole`.
   */
  mode?: 'blackhole' | 'reset' | 'down';
  /**
   * Which way a partition cuts — `upstream` and `both` lose the statement (it never applies),
   * `downstream` its answer (it applies; the worker does not know); `down` cuts both — or which
   * way a latency delays.
   */
  direction?: 'both' | 'upstream' | 'downstream';
  /** A latency's added delay each way it acts on, ms, and its ± jitter. */
  latencyMs?: number;
  jitterMs?: number;
  /** A clock fault's skew of the worker's clock: an offset, and a drift from the moment it is set. */
  offsetMs?: number;
  driftPpm?: number;
}

/** A partition window of one worker. */
interface Cut {
  from: number;
  to: number;
  mode: NonNullable<SimFault['mode']>;
  direction: NonNullable<SimFault['direction']>;
}

/** A latency window of one worker's link. */
interface Slow {
  from: number;
  to: number;
  latencyMs: number;
  jitterMs: number;
  direction: NonNullable<SimFault['direction']>;
}

/** A worker clock's skew, as a real worker's `SkewedClock` holds it. */
interface Skew {
  offsetMs: number;
  driftPpm: number;
  /** When it was set: the drift runs from here. */
  setAt: number;
}

/** What to simulate. */
export interface SimRunPlan {
  /** The history's scenario name. */
  scenario: string;
  seed: number;
  queue: QueueAdapter;
  workers: number;
  lease: LeaseSettings;
  /** One handler plan per job, enqueued at the start unless `arrivalsMs` says when. */
  plans: UnitPlan[][];
  /** When each job arrives, ms after the start, in order (absent: every job at the start). */
  arrivalsMs?: number[];
  faults: SimFault[];
  /**
   * The link's round trip, ms (default 2: a millisecond each way — fake timers count whole
   * milliseconds, so half of a 1 ms round trip took no time at all, and a call, its statement and
   * the next call all fell on one instant, where no history can tell which call made a write).
   */
  rttMs?: number;
  /** The run ends here even if not drained, ms after the start (default 120 000). */
  horizonMs?: number;
  /** Attempts before dead-lettering (the queue's default when absent). */
  maxAttempts?: number;
  /** Handlers commit a cursor after each unit and resume from it. */
  checkpoint?: boolean;
  /** The first this-many attempts of every job fail after their last unit. */
  failAttempts?: number;
  /** Whether dead-lettered jobs count as done (the history's header says so). */
  allowDeadLetter?: boolean;
  /** A worker's clock skew from its start, by worker id (a scenario's `clock:`). */
  clock?: Readonly<Record<string, { offsetMs: number; driftPpm?: number }>>;
  /** How far the run may go in wall time and simulated steps (default `DEFAULT_SIM_BOUNDS`). */
  bounds?: Partial<SimBounds>;
}

/** `value` as a proxy that tells whether anything read it (a property, its keys). */
function watchReads<T extends object>(value: T): { value: T; read: () => boolean } {
  let read = false;
  const seen = <R>(result: R): R => {
    read = true;
    return result;
  };
  const watched = new Proxy(value, {
    get: (target, key, receiver) => seen(Reflect.get(target, key, receiver)),
    has: (target, key) => seen(Reflect.has(target, key)),
    ownKeys: (target) => seen(Reflect.ownKeys(target)),
    getOwnPropertyDescriptor: (target, key) => seen(Reflect.getOwnPropertyDescriptor(target, key)),
  });
  return { value: watched, read: () => read };
}

/** Where simulated time starts: a fixed instant, so two runs of a seed agree to the byte. */
export const SIM_EPOCH_MS = Date.UTC(2026, 0, 1);

// The drain is looked at after a worker's ack or fail and a sweep pass (what can finish a job),
// and at least this often, ms of simulated time, for a write whose answer a partition lost.
const DRAIN_CHECK_MS = 1_000;

/**
 * Runs `plan` on `db` in simulated time and returns its history, or throws the
 * `SimulationLimitError` of a statement the simulation cannot model, or the
 * `SimulationBoundError` of a run that passed one of its bounds (its verdict is `unknown`). One
 * run at a time per process: the fake clock is the process's.
 */
export async function simulateRun(db: SimDatabase, plan: SimRunPlan): Promise<History> {
  // A PGlite the last run cut off is replaced on real time, outside this run's bounds.
  await db.renew();
  // Seeded before the fake clock is installed and put back after it is gone: the seeding syncs
  // every built-in module's ESM bindings, and a sync while the clock is installed would leave
  // `node:timers`' bindings pointing at the fake timers for good.
  const unseed = seedRandomness(plan.seed);
  let history: History;
  let meter: StepMeter;
  try {
    const clock = FakeTimers.install({
      now: SIM_EPOCH_MS,
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'],
      loopLimit: Number.MAX_SAFE_INTEGER,
      // PGlite arms and disarms PostgreSQL's interval timer through the global timers; one armed
      // before the fake clock was installed is cleared as the native timer it is.
      shouldClearNativeTimers: true,
    });
    meter = new StepMeter(
      { ...DEFAULT_SIM_BOUNDS, ...plan.bounds },
      () => clock.now - SIM_EPOCH_MS,
    );
    const unhook = hookDatabaseTime(clock, meter, db);
    try {
      history = await new SimRun(db, plan, clock, meter).run();
    } finally {
      unhook();
      clock.uninstall();
    }
  } finally {
    unseed();
  }
  if (meter.exceeded !== undefined) {
    throw new SimulationBoundError(meter.exceeded.message, history);
  }
  return history;
}

type Clock = ReturnType<typeof FakeTimers.install>;

class SimRun {
  readonly events: HistoryEvent[] = [];
  private readonly workers = new Map<string, SimWorker>();
  private readonly controller: SqlClient;
  private faultIds = 0;
  private pids = 0;
  /** Acks, fails and sweep passes so far: the drain is looked at when this moves. */
  private settlements = 0;
  /** Jobs enqueued so far: the run is drained only once every one has arrived. */
  private arrived = 0;
  /** The error of an arriving job's insert, which ends the run. */
  private enqueueFailed: { error: unknown } | undefined;

  /** The lease the run uses: the scenario's, as the queue's terms settle it (a real run's too). */
  readonly lease: LeaseSettings;
  private readonly terms: ReturnType<typeof settleQueueTerms>;

  constructor(
    readonly db: SimDatabase,
    readonly plan: SimRunPlan,
    private readonly clock: Clock,
    private readonly meter: StepMeter,
  ) {
    this.controller = db.client('leaseproof-controller', this.newPid());
    this.random = new Random(plan.seed);
    this.terms = settleQueueTerms(plan.queue, plan.lease);
    this.lease = this.terms.lease;
  }

  async run(): Promise<History> {
    const { plan, controller } = this;
    const setupCtx = {
      lease: this.lease,
      databaseUrl: 'pglite',
      applicationName: 'leaseproof-controller',
    };
    // A setup depends on the queue and, if it reads it, on the lease: the next run of the same
    // queue gets the database as it left it without running it again (drawn scenarios differ
    // in their lease, which few setups read).
    const lease = watchReads(this.lease);
    await this.db.prepare(
      {
        by: plan.queue,
        key: JSON.stringify(this.lease),
        run: async () => {
          await plan.queue.setup(controller, { ...setupCtx, lease: lease.value });
          await controller.query(EFFECTS_DDL);
          await installAuditTrigger(controller, plan.queue.audit);
          return { readKey: lease.read() };
        },
      },
      plan.seed,
    );
    // A synchronous unit blocks a real worker's main thread, not its heartbeat thread: to the
    // handler it is a wait the watchdog cannot cut, which an asynchronous unit already is
    // between its cancellation points. A busy loop would never end on a fake clock.
    const specs = plan.plans.map((units) => ({
      payload: {
        units: units.map((u) => ({ ...u, sync: false })),
        ...(plan.checkpoint === true && { checkpoint: true }),
        ...(plan.failAttempts !== undefined &&
          plan.failAttempts > 0 && { failAttempts: plan.failAttempts }),
      },
      ...(plan.maxAttempts !== undefined && { maxAttempts: plan.maxAttempts }),
    }));
    const recordJobs = (ids: string[], first: number): void => {
      ids.forEach((job, i) => {
        const units = plan.plans[first + i] ?? [];
        this.events.push({
          type: 'job',
          t: Date.now(),
          job,
          units: units.length,
          maxUnitMs: Math.max(0, ...units.map((u) => u.ms)),
        });
      });
    };
    const { arrivalsMs } = plan;
    if (arrivalsMs === undefined) {
      recordJobs(await plan.queue.enqueue(controller, specs, setupCtx), 0);
      this.arrived = specs.length;
    } else {
      // Jobs arrive one by one, each at its moment, while the workers run and faults strike —
      // as a real run enqueues at a scenario's rate.
      specs.forEach((spec, i) => {
        setTimeout(() => {
          // A failed insert ends the run in its error, as a failed enqueue at the start does.
          void plan.queue.enqueue(controller, [spec], setupCtx).then(
            (ids) => {
              recordJobs(ids, i);
              this.arrived += 1;
            },
            (error: unknown) => {
              this.enqueueFailed ??= { error };
            },
          );
        }, arrivalsMs[i] ?? 0);
      });
    }
    const workerIds = Array.from({ length: plan.workers }, (_, i) => `w${i + 1}`);
    for (const id of workerIds) this.startWorker(id);
    for (const fault of plan.faults) {
      setTimeout(() => this.strike(fault), fault.atMs);
    }
    // The queue's background sweep, as a real run's harness runs it: on a connection of its
    // own that worker faults do not touch, every interval after the previous pass ended.
    const { maintenance } = plan.queue;
    let sweeping = maintenance !== undefined;
    let sweeper: SimConnection | undefined;
    if (maintenance !== undefined) {
      const connection = this.db.client(MAINTENANCE_APP, this.newPid());
      sweeper = connection;
      const interval = maintenance.intervalMs(this.lease);
      const ctx = { ...setupCtx, applicationName: MAINTENANCE_APP };
      void (async () => {
        while (sweeping) {
          const scheduledAt = Date.now() + interval;
          await sleep(interval);
          if (!sweeping) return;
          const startedAt = Date.now();
          await maintenance.run(connection, ctx).catch(() => undefined);
          this.settlements += 1;
          this.events.push({
            type: 'worker',
            t: Date.now(),
            worker: MAINTENANCE_APP,
            kind: 'sweep',
            invokedT: startedAt,
            ms: Math.max(0, startedAt - scheduledAt),
            detail: `sweep pass ran ${Math.max(0, startedAt - scheduledAt)}ms late and took ${Date.now() - startedAt}ms`,
          });
        }
      })();
    }
    const horizon = Date.now() + (plan.horizonMs ?? 120_000);
    let drained = false;
    let lastCheck = -Infinity;
    let checkedAt = -1;
    while (Date.now() < horizon && this.enqueueFailed === undefined) {
      await this.db.settled();
      // Not while a connection's transaction is open: the check would wait behind it, and the
      // clock that brings its end would wait behind the check.
      const lookable = !this.db.transactionOpen();
      if (
        lookable &&
        (this.settlements !== checkedAt || Date.now() - lastCheck >= DRAIN_CHECK_MS)
      ) {
        lastCheck = Date.now();
        checkedAt = this.settlements;
        drained =
          this.arrived === plan.plans.length &&
          (await unfinishedJobs(controller, plan.queue)) === 0;
        if (drained) break;
      }
      // Nothing left that could happen (every worker crashed for good, no sweep): the run
      // ends undrained, as a real one does at its drain timeout, rather than spin in place.
      if (this.clock.countTimers() === 0) break;
      // A bound passed, here or inside a statement: the run ends, unknown, with its cause.
      if (this.meter.step() !== undefined) break;
      // The next timer, fired at once: the loop's `settled()` drains what it set going.
      this.clock.next();
    }
    sweeping = false;
    // The run's end closes the sweep's connection too: a pass mid-transaction rolls back.
    void sweeper?.close();
    for (const heal of this.standing) heal();
    for (const worker of this.workers.values()) worker.kill();
    await this.db.settled();
    if (this.enqueueFailed !== undefined) throw this.enqueueFailed.error;
    const end = Date.now();
    // A run cut inside a statement has lost its database: what the workers saw is all there is.
    const cut = this.meter.exceeded !== undefined;
    const audit = await readAuditEvents(controller).catch((error: unknown) => {
      if (cut) return [];
      throw error;
    });
    const effects = await readEffectEvents(controller).catch((error: unknown) => {
      if (cut) return [];
      throw error;
    });
    // Transaction ids are the instance's, which one database serves run after run: counted from
    // the run's first, so that a seed's history is the same whichever run it was.
    const firstXid = Math.min(...audit.map((e) => Number(e.xid)).filter(Number.isFinite));
    const events: HistoryEvent[] = [
      ...this.events,
      ...audit.map((e) => ({ ...e, xid: String(Number(e.xid) - firstXid + 1) })),
      ...effects,
      { type: 'end', t: end, drained },
    ];
    const order = new Map(events.map((e, i) => [e, i]));
    events.sort((a, b) => a.t - b.t || order.get(a)! - order.get(b)!);
    return {
      header: {
        type: 'header',
        version: HISTORY_VERSION,
        scenario: plan.scenario,
        seed: plan.seed,
        queue: plan.queue.name,
        versions: {
          leaseproof: VERSION,
          postgres: 'PGlite (simulated time)',
          toxiproxy: 'none (simulated)',
          node: process.version,
        },
        lease: this.lease,
        workers: workerIds,
        clockOffsetMs: 0,
        clockUncertaintyMs: 0,
        startedAt: SIM_EPOCH_MS,
        ...(plan.allowDeadLetter !== undefined && { allowDeadLetter: plan.allowDeadLetter }),
        ...(this.terms.record !== undefined && { queueTerms: this.terms.record }),
        ...(plan.failAttempts !== undefined &&
          plan.failAttempts > 0 && { failAttempts: plan.failAttempts }),
      },
      events,
    };
  }

  /** A backend pid for a new connection: numbered within the run, so a seed gives one history. */
  newPid(): number {
    return (this.pids += 1);
  }

  private startWorker(id: string): void {
    const worker = new SimWorker(id, this);
    this.workers.set(id, worker);
    this.record({ kind: 'ready', at: Date.now(), pid: 0, wireFormat: 1 }, id);
    const skew = this.plan.clock?.[id];
    if (skew !== undefined)
      worker.setClock({ offsetMs: skew.offsetMs, driftPpm: skew.driftPpm ?? 0 });
    void worker.loop.run().catch(() => undefined);
  }

  /** A worker event, into the history (its time is the simulated clock, the database's). */
  record(event: WorkerEvent, worker: string): void {
    if (event.kind === 'ack' || event.kind === 'fail') this.settlements += 1;
    this.events.push(workerHistoryEvent({ workerId: worker, event, receivedAt: event.at }, 0));
  }

  private readonly partitions = new Map<string, Cut[]>();
  private readonly slows = new Map<string, Slow[]>();
  /** Faults that heal only at the run's end. */
  private readonly standing: (() => void)[] = [];
  /** The jitter of latencies: seeded, so that one seed gives one history. */
  readonly random: Random;

  /** A worker's partition windows: a restarted worker keeps its id, and so its link. */
  cuts(worker: string): Cut[] {
    let cuts = this.partitions.get(worker);
    if (cuts === undefined) this.partitions.set(worker, (cuts = []));
    return cuts;
  }

  /** A worker's latency windows. */
  latencies(worker: string): Slow[] {
    let slows = this.slows.get(worker);
    if (slows === undefined) this.slows.set(worker, (slows = []));
    return slows;
  }

  private strike(fault: SimFault): void {
    const worker = this.workers.get(fault.worker);
    if (worker === undefined) return;
    const id = `f${(this.faultIds += 1)}`;
    const mark = (phase: 'start' | 'end'): NemesisEvent => ({
      type: 'nemesis',
      t: Date.now(),
      phase,
      fault: fault.kind,
      target: fault.worker,
      id,
    });
    this.events.push(mark('start'));
    if (fault.kind === 'crash') {
      worker.kill();
      if (Number.isFinite(fault.forMs)) {
        setTimeout(() => {
          this.events.push(mark('end'));
          this.startWorker(fault.worker);
        }, fault.forMs);
      }
      return;
    }
    let heal = (): void => undefined;
    if (fault.kind === 'pause') worker.pause(fault.forMs);
    else if (fault.kind === 'partition') {
      this.cuts(fault.worker).push({
        from: Date.now(),
        to: Date.now() + fault.forMs,
        mode: fault.mode ?? 'blackhole',
        direction: fault.mode === 'down' ? 'both' : (fault.direction ?? 'both'),
      });
    } else if (fault.kind === 'latency') {
      this.latencies(fault.worker).push({
        from: Date.now(),
        to: Date.now() + fault.forMs,
        latencyMs: fault.latencyMs ?? 0,
        jitterMs: fault.jitterMs ?? 0,
        direction: fault.direction ?? 'both',
      });
    } else {
      // As a real clock fault: set on the worker now, set right when it heals — on the worker
      // of that moment (a restarted one too), if one is running.
      worker.setClock({ offsetMs: fault.offsetMs ?? 0, driftPpm: fault.driftPpm ?? 0 });
      heal = () => this.workers.get(fault.worker)?.setClock({ offsetMs: 0, driftPpm: 0 });
    }
    const end = (): void => {
      heal();
      this.events.push(mark('end'));
    };
    // A standing condition (a latency or clock fault without an end) lasts through the drain
    // and is healed with the run's end, as a real run's `healAll` does.
    if (Number.isFinite(fault.forMs)) setTimeout(end, fault.forMs);
    else this.standing.push(end);
  }
}

/** One simulated worker process: leaseproof's claim loop and heartbeat over a faulty link. */
class SimWorker {
  alive = true;
  readonly loop: ClaimLoop;
  private core: HeartbeatCore | undefined;
  private pausedUntil = 0;
  private skew: Skew = { offsetMs: 0, driftPpm: 0, setAt: 0 };
  private readonly client: SqlClient;
  private readonly effects: SqlClient;
  /** The process's connections: they end with it. */
  private readonly connections: SimConnection[];

  constructor(
    readonly id: string,
    private readonly run: SimRun,
  ) {
    const { queue } = run.plan;
    const { lease } = run;
    // Every statement of the adapter's goes over the worker's link, one by one: a fault acts
    // between two statements of one call, and the adapter's own error handling sees its errors.
    // A new process has new connections, each with its backend pid, which its calls report as
    // a real worker's do (the history matches each write to the call that made it by that pid,
    // a connection being serial): the claim loop's, and the heartbeat's own, as a real worker's
    // heartbeat thread has. Both cross the worker's link.
    const pid = run.newPid();
    const beatPid = run.newPid();
    const overLink = (client: SimConnection): SqlClient => ({
      query: <R extends Record<string, unknown> = Record<string, unknown>>(
        sql: string,
        params?: unknown[],
      ) => this.call(client, () => client.query<R>(sql, params)),
    });
    const claimConnection = run.db.client(id, pid);
    const beatConnection = run.db.client(id, beatPid);
    // Effects go over a direct connection that the worker's own faults do not cut.
    const effectsConnection = run.db.client(id, run.newPid());
    this.connections = [claimConnection, beatConnection, effectsConnection];
    this.client = overLink(claimConnection);
    const beat = overLink(beatConnection);
    this.effects = effectsConnection;
    // The worker's own clock: the simulation's, skewed as a clock fault sets it.
    const ctx: QueueContext = { workerId: id, lease, workerNow: () => Date.now() + this.skewMs() };
    const extend = hasLeaseExtension(queue)
      ? (claim: Claim) => queue.extend(beat, claim, ctx)
      : undefined;
    this.loop = new ClaimLoop({
      queue: {
        backendPid: () => pid,
        claim: () => queue.claim(this.client, ctx),
        ack: (claim, cancelled) =>
          queue.ack(this.client, claim, cancelled ? { ...ctx, handlerCancelled: true } : ctx),
        fail: (claim, error) => queue.fail(this.client, claim, error, ctx),
        ...(queue.checkpoint !== undefined && {
          checkpoint: (claim: Claim, cursor: string) =>
            queue.checkpoint!(this.client, claim, cursor, ctx),
        }),
      },
      heartbeat: {
        start: (claim, claimedAtAbs) => {
          this.core?.stop();
          this.core = new HeartbeatCore(
            claim,
            lease,
            extend,
            (event) => this.emit(event),
            () => this.loop.lost(claim.token),
            claimedAtAbs - performance.timeOrigin,
            () => true,
            () => beatPid,
          );
        },
        stop: () => this.core?.stop(),
      },
      watchdog: queue.worker?.watchdog ?? true,
      pollMs: lease.pollMs,
      emit: (event) => this.emit(event),
      effect: async (jobId, token, unit) => {
        // A paused process writes nothing: the effect waits for the pause to end.
        await this.resumed();
        await this.effects.query(
          'INSERT INTO leaseproof_effects (job_id, worker_id, token, unit) VALUES ($1, $2, $3, $4)',
          [jobId, id, token, unit],
        );
        return true;
      },
    });
  }

  kill(): void {
    this.alive = false;
    this.loop.abort();
    this.core?.stop();
    // The process's sockets close with it, and the server rolls back what they left open.
    for (const connection of this.connections) void connection.close();
  }

  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
  }

  /** Skews this worker's clock from now on, and reports it as a real worker does. */
  setClock(skew: { offsetMs: number; driftPpm: number }): void {
    this.skew = { ...skew, setAt: Date.now() };
    const now = Date.now();
    this.emit({ kind: 'clock', at: now, workerNow: now + this.skewMs(), realNow: now });
  }

  private skewMs(): number {
    const { offsetMs, driftPpm, setAt } = this.skew;
    return offsetMs + (driftPpm * (Date.now() - setAt)) / 1e6;
  }

  private emit(event: WorkerEvent): void {
    if (this.alive) this.run.record(event, this.id);
  }

  /**
   * One statement over this worker's link, bounded as a real worker bounds it (the lease: the
   * worker's client-side statement timeout). Half a round trip there, plus any latency on that
   * way at the sending moment; half back, plus any latency on the way back. A crashed worker's
   * statement never answers, a paused one's waits for the pause to end. A partition at the
   * arriving moment loses the statement (upstream, both) or lets it apply and loses the answer
   * (downstream); one that begins before the answer arrives loses the answer. A lost statement
   * or answer is an error at once (`reset`, `down`) or never answers (`blackhole`), and the
   * bound ends the wait; a statement the bound gave up on still applies when it arrives.
   */
  private async call<T>(connection: SimConnection, apply: () => Promise<T>): Promise<T> {
    await this.resumed();
    const transfer = this.transfer(connection, apply);
    transfer.catch(() => undefined);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('statement timed out')), this.run.lease.durationMs);
    });
    try {
      const result = await Promise.race([transfer, bound]);
      await this.resumed();
      return result;
    } catch (error) {
      // A paused process hears of its failed statement when it is continued.
      await this.resumed();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private async transfer<T>(connection: SimConnection, apply: () => Promise<T>): Promise<T> {
    const half = (this.run.plan.rttMs ?? 2) / 2;
    const there = half + this.latencyFrom(Date.now(), 'upstream');
    if (there > 0) await sleep(there);
    // A statement the worker gave up on still arrives: Toxiproxy's latency toxic delivers what it
    // holds before it passes the close on, and the server runs it (real runs kill fail-by-id on
    // late-fail-slow-network that way; dropping it here missed that kill).
    if (!this.alive) return never();
    const sent = this.cutAt(Date.now());
    if (sent !== undefined && sent.direction !== 'downstream') {
      return this.lost(connection, sent, half);
    }
    const result = await apply();
    if (sent !== undefined) return this.lost(connection, sent, half);
    const back = half + this.latencyFrom(Date.now(), 'downstream');
    if (back > 0) await sleep(back);
    const answered = this.cutAt(Date.now());
    if (answered !== undefined && answered.direction !== 'upstream') {
      return this.lost(connection, answered, 0);
    }
    return this.alive ? result : never();
  }

  /**
   * How long what is sent on `way` at `now` spends in the link's latency toxics. As Toxiproxy
   * runs them: one after another in the order they were added (two overlapping latencies add
   * up), each holding the data for its latency (± jitter) — but a toxic removed while it holds
   * the data lets it go at once ("don't drop any data on the floor"), so nothing is delivered
   * after the fault that delayed it has healed.
   */
  private latencyFrom(now: number, way: 'upstream' | 'downstream'): number {
    let t = now;
    for (const slow of this.run.latencies(this.id)) {
      if (slow.direction !== 'both' && slow.direction !== way) continue;
      if (!(slow.from <= t && t < slow.to)) continue;
      const jitter = slow.jitterMs === 0 ? 0 : (this.run.random.next() * 2 - 1) * slow.jitterMs;
      t = Math.min(t + Math.max(0, slow.latencyMs + jitter), slow.to);
    }
    return t - now;
  }

  private cutAt(now: number): Cut | undefined {
    return this.run.cuts(this.id).find((c) => c.from <= now && now < c.to);
  }

  /**
   * A statement or its answer lost to `cut`: the error the worker's connection reports at once
   * (`reset`, `down`), or no answer until the blackhole heals — Toxiproxy's `timeout` toxic
   * closes every connection that crosses it when it is removed, so a statement lost in it fails
   * then ("Connection terminated unexpectedly"; a real worker reconnects and claims at once) —
   * unless the statement bound ends the wait first.
   */
  private async lost(connection: SimConnection, cut: Cut, half: number): Promise<never> {
    if (cut.mode === 'blackhole') {
      const now = Date.now();
      const heal = Math.min(
        ...this.run
          .cuts(this.id)
          .filter((c) => c.mode === 'blackhole' && c.from <= now && now < c.to)
          .map((c) => c.to),
        cut.to,
      );
      if (!Number.isFinite(heal)) return never();
      await sleep(heal - now);
      if (!this.alive) return never();
      // The close reaches the server too: it rolls back what the connection left open.
      await connection.end();
      throw new Error('Connection terminated unexpectedly (the partition healed)');
    }
    if (half > 0) await sleep(half);
    if (!this.alive) return never();
    await connection.end();
    throw new Error(`connection ${cut.mode === 'down' ? 'refused' : 'reset'} (partition)`);
  }

  private async resumed(): Promise<void> {
    if (!this.alive) return never();
    const wait = this.pausedUntil - Date.now();
    if (wait > 0) await sleep(wait);
    if (!this.alive) return never();
  }
}

/** A crashed process's call: it never returns. */
function never<T>(): Promise<T> {
  return new Promise<T>(() => undefined);
}
