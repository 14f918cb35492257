/**
 * One run in simulated time against a queue adapter's **own SQL** on PGlite: the adapter's
 * setup, leaseproof's audit trigger and effects table, its enqueue; workers running leaseproof's
 * real worker code (`ClaimLoop`, `runHandler`, `HeartbeatCore` from `src/worker/`) calling the
 * adapter's claim / extend / ack / fail / checkpoint over simulated connections; faults as
 * scheduling decisions (a crash ends a worker's calls and timers until it restarts, a pause
 * holds its statements and effects — its timers run on, so a unit cut by the pause ends at once
 * when it is continued, as a SIGSTOPped one does — and a partition makes its statements time
 * out unapplied); and the history in the format of a real run, for the same checkers. One seed,
 * one history, byte for byte.
 *
 * What it does not model, and says so: row-lock waits between concurrent transactions (PGlite
 * runs one statement at a time), a database restart, CPU starvation, a slow link's latency
 * beyond a fixed round trip, a skewed worker clock, and a blocked event loop (a synchronous unit
 * is a wait the watchdog cannot cut, on a heartbeat thread of its own: a queue whose heartbeat
 * shares the handler's thread is not told apart). A failure found here is a lead: it is
 * confirmed on a real run before it is reported (issue 25).
 */
import FakeTimers from '@sinonjs/fake-timers';
import { installAuditTrigger } from '../../history/audit-trigger.js';
import { readAuditEvents } from '../../history/audit-reader.js';
import { readEffectEvents } from '../../history/effects-reader.js';
import type { History, HistoryEvent, NemesisEvent } from '../../history/types.js';
import { HISTORY_VERSION } from '../../history/types.js';
import { workerHistoryEvent } from '../../history/worker-events.js';
import { unfinishedJobs } from '../../pool/queue-database.js';
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
import type { SimDatabase } from './sim-database.js';

/** A fault the simulation schedules: on one worker, from `atMs` for `forMs`. */
export interface SimFault {
  kind: 'crash' | 'pause' | 'partition';
  worker: string;
  atMs: number;
  /** A crash's restart delay; a pause's or partition's length. */
  forMs: number;
}

/** What to simulate. */
export interface SimRunPlan {
  /** The history's scenario name. */
  scenario: string;
  seed: number;
  queue: QueueAdapter;
  workers: number;
  lease: LeaseSettings;
  /** One handler plan per job, enqueued at the start. */
  plans: UnitPlan[][];
  faults: SimFault[];
  /** The link's round trip, ms (default 1). */
  rttMs?: number;
  /** The run ends here even if not drained, ms after the start (default 120 000). */
  horizonMs?: number;
}

/** Where simulated time starts: a fixed instant, so two runs of a seed agree to the byte. */
export const SIM_EPOCH_MS = Date.UTC(2026, 0, 1);

// How often the drain is looked at, ms of simulated time.
const DRAIN_CHECK_MS = 50;

/** Runs `plan` on `db` in simulated time and returns its history. One run at a time per `db`. */
export async function simulateRun(db: SimDatabase, plan: SimRunPlan): Promise<History> {
  await db.reset(plan.seed);
  const clock = FakeTimers.install({
    now: SIM_EPOCH_MS,
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'],
    loopLimit: Number.MAX_SAFE_INTEGER,
  });
  try {
    return await new SimRun(db, plan, clock).run();
  } finally {
    clock.uninstall();
  }
}

type Clock = ReturnType<typeof FakeTimers.install>;

class SimRun {
  readonly events: HistoryEvent[] = [];
  private readonly workers = new Map<string, SimWorker>();
  private readonly controller: SqlClient;
  private faultIds = 0;

  constructor(
    readonly db: SimDatabase,
    readonly plan: SimRunPlan,
    private readonly clock: Clock,
  ) {
    this.controller = db.client('leaseproof-controller');
  }

  async run(): Promise<History> {
    const { plan, controller } = this;
    const setupCtx = {
      lease: plan.lease,
      databaseUrl: 'pglite',
      applicationName: 'leaseproof-controller',
    };
    await plan.queue.setup(controller, setupCtx);
    await controller.query(EFFECTS_DDL);
    await installAuditTrigger(controller, plan.queue.audit);
    // A synchronous unit blocks a real worker's main thread, not its heartbeat thread: to the
    // handler it is a wait the watchdog cannot cut, which an asynchronous unit already is
    // between its cancellation points. A busy loop would never end on a fake clock.
    const ids = await plan.queue.enqueue(
      controller,
      plan.plans.map((units) => ({
        payload: { units: units.map((u) => ({ ...u, sync: false })) },
      })),
      setupCtx,
    );
    ids.forEach((job, i) => {
      const units = plan.plans[i] ?? [];
      this.events.push({
        type: 'job',
        t: Date.now(),
        job,
        units: units.length,
        maxUnitMs: Math.max(0, ...units.map((u) => u.ms)),
      });
    });
    const workerIds = Array.from({ length: plan.workers }, (_, i) => `w${i + 1}`);
    for (const id of workerIds) this.startWorker(id);
    for (const fault of plan.faults) {
      setTimeout(() => this.strike(fault), fault.atMs);
    }
    const horizon = Date.now() + (plan.horizonMs ?? 120_000);
    let drained = false;
    let lastCheck = -Infinity;
    while (Date.now() < horizon) {
      await this.db.settled();
      if (Date.now() - lastCheck >= DRAIN_CHECK_MS) {
        lastCheck = Date.now();
        drained = (await unfinishedJobs(controller, plan.queue)) === 0;
        if (drained) break;
      }
      await this.clock.nextAsync();
    }
    for (const worker of this.workers.values()) worker.kill();
    await this.db.settled();
    const end = Date.now();
    const audit = await readAuditEvents(controller);
    const effects = await readEffectEvents(controller);
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
        lease: plan.lease,
        workers: workerIds,
        clockOffsetMs: 0,
        clockUncertaintyMs: 0,
        startedAt: SIM_EPOCH_MS,
      },
      events,
    };
  }

  private startWorker(id: string): void {
    const worker = new SimWorker(id, this);
    this.workers.set(id, worker);
    this.record({ kind: 'ready', at: Date.now(), pid: 0, wireFormat: 1 }, id);
    void worker.loop.run().catch(() => undefined);
  }

  /** A worker event, into the history (its time is the simulated clock, the database's). */
  record(event: WorkerEvent, worker: string): void {
    this.events.push(workerHistoryEvent({ workerId: worker, event, receivedAt: event.at }, 0));
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
      setTimeout(() => {
        this.events.push(mark('end'));
        this.startWorker(fault.worker);
      }, fault.forMs);
      return;
    }
    if (fault.kind === 'pause') worker.pause(fault.forMs);
    else worker.partition(fault.forMs);
    setTimeout(() => this.events.push(mark('end')), fault.forMs);
  }
}

/** One simulated worker process: leaseproof's claim loop and heartbeat over a faulty link. */
class SimWorker {
  alive = true;
  readonly loop: ClaimLoop;
  private core: HeartbeatCore | undefined;
  private pausedUntil = 0;
  private partitionedUntil = 0;
  private readonly client: SqlClient;
  private readonly effects: SqlClient;

  constructor(
    readonly id: string,
    private readonly run: SimRun,
  ) {
    const { queue, lease } = run.plan;
    this.client = run.db.client(id);
    // Effects go over a direct connection that the worker's own faults do not cut.
    this.effects = run.db.client(id);
    const ctx: QueueContext = { workerId: id, lease, workerNow: () => Date.now() };
    const extend = hasLeaseExtension(queue)
      ? (claim: Claim) => this.call(() => queue.extend(this.client, claim, ctx))
      : undefined;
    this.loop = new ClaimLoop({
      queue: {
        claim: () => this.call(() => queue.claim(this.client, ctx)),
        ack: (claim) => this.call(() => queue.ack(this.client, claim, ctx)),
        fail: (claim, error) => this.call(() => queue.fail(this.client, claim, error, ctx)),
        ...(queue.checkpoint !== undefined && {
          checkpoint: (claim: Claim, cursor: string) =>
            this.call(() => queue.checkpoint!(this.client, claim, cursor, ctx)),
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
  }

  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
  }

  partition(ms: number): void {
    this.partitionedUntil = Math.max(this.partitionedUntil, Date.now() + ms);
  }

  private emit(event: WorkerEvent): void {
    if (this.alive) this.run.record(event, this.id);
  }

  /** One statement over this worker's link: half a round trip there, half back, faults between. */
  private async call<T>(apply: () => Promise<T>): Promise<T> {
    const half = (this.run.plan.rttMs ?? 1) / 2;
    await this.resumed();
    if (this.cutOff()) return this.timeOut();
    if (half > 0) await sleep(half);
    if (!this.alive) return never();
    if (this.cutOff()) return this.timeOut();
    const result = await apply();
    if (half > 0) await sleep(half);
    await this.resumed();
    return this.alive ? result : never();
  }

  private cutOff(): boolean {
    return Date.now() < this.partitionedUntil;
  }

  /** A statement into a partition: no reply within the statement bound (the lease). */
  private async timeOut(): Promise<never> {
    await sleep(this.run.plan.lease.durationMs);
    if (!this.alive) return never();
    throw new Error('statement timed out (partition)');
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
