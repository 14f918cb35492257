/**
 * The tuning simulation: one sweep point, thousands of jobs, in milliseconds of wall time.
 *
 * The workers run the real worker code — `ClaimLoop` (claim, poll, watchdog, ack / fail),
 * `runHandler` and `HeartbeatCore` from `src/worker/`, the modules every worker process runs —
 * on @sinonjs/fake-timers, against `SimQueue`, the reference lease semantics in memory. Faults
 * act on a worker's link to the database as on a real process: a crash kills it (its calls never
 * return, its heartbeat stops) until it restarts as a fresh worker; a pause holds its calls until
 * it resumes; a partition makes its calls time out unapplied. One seed, one result.
 *
 * Fake timers are installed on the global clock for the duration of a call: simulations in one
 * thread run one after another (`simulatePoint` refuses to nest).
 */
import FakeTimers from '@sinonjs/fake-timers';
import type { Claim, LeaseSettings } from '../queue/types.js';
import { distribution } from '../checker/stats.js';
import { drawDuration, type DurationDistribution } from '../scenario/durations.js';
import { Random } from '../random.js';
import { ClaimLoop } from '../worker/claim-loop.js';
import { sleep } from '../worker/handler.js';
import { HeartbeatCore } from '../worker/heartbeat-core.js';
import type { UnitPlan, WorkerEvent } from '../worker/types.js';
import { SimQueue, type SimJob } from './sim-queue.js';
import type { ScheduledFault, SimPoint, SimResult, SimWorkload, Spread } from './sim-types.js';

const HOUR_MS = 3_600_000;
let running = false;

/** A fault window on one worker. */
interface FaultWindow {
  worker: string;
  kind: 'crash' | 'pause' | 'partition';
  from: number;
  to: number;
}

/** Simulates one point; deterministic for a seed. */
export async function simulatePoint(point: SimPoint, workload: SimWorkload): Promise<SimResult> {
  if (running) throw new Error('simulatePoint: one simulation at a time per thread');
  running = true;
  // Wall time from the process clock: `performance` is about to be a fake one.
  const wallStart = process.hrtime.bigint();
  const clock = FakeTimers.install({
    now: 0,
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'],
    loopLimit: Number.MAX_SAFE_INTEGER,
  });
  try {
    const world = new World(point, workload, clock);
    world.start();
    const horizon = world.horizonMs();
    // One timer at a time, then every promise it settled: `clock.next()` fires the earliest
    // timer. `nextAsync` does the same with two macrotask turns per timer, which cost more wall
    // time than the simulation itself (libuv's loop, not the worker code).
    await settledMicrotasks();
    let steps = 0;
    while (!world.drained() && clock.now < horizon && clock.countTimers() > 0) {
      clock.next();
      steps += 1;
      await settledMicrotasks();
    }
    world.finish();
    return world.result(Number(process.hrtime.bigint() - wallStart) / 1e6, steps);
  } finally {
    clock.uninstall();
    running = false;
  }
}

class World {
  readonly queue: SimQueue;
  readonly random: Random;
  readonly lease: LeaseSettings;
  readonly faults: FaultWindow[] = [];
  readonly crashStalls: { at: number; job: SimJob }[] = [];
  private readonly workers = new Map<string, SimWorker>();
  private stopped = false;
  private endMs = 0;

  constructor(
    readonly point: SimPoint,
    readonly workload: SimWorkload,
    private readonly clock: ReturnType<typeof FakeTimers.install>,
  ) {
    // Drawn jobs draw again on every attempt; given plans (a real run's) are the same each time.
    this.queue = new SimQueue(
      workload.maxAttempts,
      workload.plans === undefined ? () => this.drawJob() : undefined,
    );
    this.random = new Random(workload.seed);
    this.lease = {
      durationMs: point.leaseMs,
      heartbeatMs: point.heartbeatMs ?? point.leaseMs,
      extendByMs: point.extendByMs,
      pollMs: point.pollMs,
    };
  }

  now(): number {
    return this.clock.now;
  }

  start(): void {
    const { workload } = this;
    if (workload.plans !== undefined) {
      for (const plan of workload.plans) this.queue.enqueue(plan, 0);
    } else if (workload.arrivalsPerSecond === undefined) {
      for (let i = 0; i < workload.jobs; i += 1) this.queue.enqueue(this.drawJob(), 0);
    } else {
      this.arrive(0, workload.arrivalsPerSecond);
    }
    for (let i = 1; i <= workload.workers; i += 1) {
      const id = `w${i}`;
      this.spawn(id);
      this.scheduleFaults(id);
    }
    for (const fault of workload.schedule ?? []) {
      setTimeout(() => this.strike(fault.worker, fault.kind, fault.forMs), fault.atMs);
    }
  }

  /** One fault on one worker, now. */
  private strike(id: string, kind: ScheduledFault['kind'], ms: number): void {
    if (kind === 'crash') {
      this.crash(id, ms);
      return;
    }
    const worker = this.workers.get(id);
    if (kind === 'pause') worker?.pause(ms);
    else worker?.partition(ms);
    this.faults.push({ worker: id, kind, from: this.now(), to: this.now() + ms });
  }

  /** Where the simulation gives up on jobs that never finish (see `simHorizonMs`). */
  horizonMs(): number {
    const arrivals =
      this.workload.arrivalsPerSecond === undefined
        ? 0
        : (this.workload.jobs / this.workload.arrivalsPerSecond) * 1000;
    return simHorizonMs(
      this.queue.jobs.map((job) => job.row.units),
      arrivals,
      this.workload,
      this.point,
    );
  }

  drained(): boolean {
    return this.queue.drained(this.workload.plans?.length ?? this.workload.jobs);
  }

  finish(): void {
    this.stopped = true;
    this.endMs = this.now();
    this.queue.settle(this.endMs);
    for (const worker of this.workers.values()) worker.kill();
  }

  spawn(id: string): void {
    const worker = new SimWorker(id, this);
    this.workers.set(id, worker);
    void worker.loop.run();
  }

  private drawJob(): UnitPlan[] {
    const total = drawDuration(this.workload.duration, this.random);
    const units = Math.max(1, this.workload.units);
    return Array.from({ length: units }, () => ({ ms: total / units, sync: false, effect: false }));
  }

  private arrive(n: number, perSecond: number): void {
    if (n >= this.workload.jobs) return;
    this.queue.enqueue(this.drawJob(), this.now());
    const gap = this.exponential(1000 / perSecond);
    setTimeout(() => this.arrive(n + 1, perSecond), gap);
  }

  private exponential(meanMs: number): number {
    return -Math.log(1 - this.random.next()) * meanMs;
  }

  private scheduleFaults(id: string): void {
    const f = this.workload.faults;
    const every = (perHour: number, strike: () => void): void => {
      if (perHour <= 0) return;
      const next = (): void => {
        if (this.stopped) return;
        strike();
        setTimeout(next, this.exponential(HOUR_MS / perHour));
      };
      setTimeout(next, this.exponential(HOUR_MS / perHour));
    };
    every(f.crashesPerWorkerHour, () => this.crash(id, f.restartAfterMs));
    every(f.pausesPerWorkerHour, () =>
      this.strike(id, 'pause', drawDuration(f.pause, this.random)),
    );
    every(f.partitionsPerWorkerHour, () =>
      this.strike(id, 'partition', drawDuration(f.partition, this.random)),
    );
  }

  private crash(id: string, restart: number): void {
    const worker = this.workers.get(id);
    if (worker === undefined || !worker.alive) return;
    worker.kill();
    const now = this.now();
    this.faults.push({ worker: id, kind: 'crash', from: now, to: now + restart });
    for (const job of this.queue.jobs) {
      const last = job.claims[job.claims.length - 1];
      if (job.row.state === 'held' && last?.worker === id) this.crashStalls.push({ at: now, job });
    }
    setTimeout(() => {
      if (!this.stopped) this.spawn(id);
    }, restart);
  }

  /** Whether `worker` was under a fault at some moment of [from, to]. */
  faulted(worker: string, from: number, to: number): boolean {
    return this.faults.some((f) => f.worker === worker && f.from <= to && f.to >= from);
  }

  result(wallMs: number, steps: number): SimResult {
    const { queue, workload } = this;
    const jobs = queue.jobs.length;
    let duplicates = 0;
    let duplicatedJobs = 0;
    let faultDuplicates = 0;
    let unexplained = 0;
    let completed = 0;
    let dead = 0;
    for (const job of queue.jobs) {
      if (job.row.state === 'completed') completed += 1;
      if (job.row.state === 'dead') dead += 1;
      let executedBefore = false;
      if (job.claims.filter((c) => c.executed).length > 1) duplicatedJobs += 1;
      job.claims.forEach((claim, i) => {
        const lostAt = claim.end === 'expired' ? claim.expiredAt : NaN;
        if (claim.end === 'expired' && !this.faulted(claim.worker, claim.grantedAt, lostAt)) {
          unexplained += 1;
        }
        if (!claim.executed) return;
        if (executedBefore) {
          duplicates += 1;
          const previous = job.claims[i - 1]!;
          const until = Number.isNaN(previous.expiredAt) ? claim.grantedAt : previous.expiredAt;
          if (this.faulted(previous.worker, previous.grantedAt, until)) faultDuplicates += 1;
        }
        executedBefore = true;
      });
    }
    const stalls = this.crashStalls.flatMap(({ at, job }) => {
      const next = job.claims.find((c) => c.grantedAt > at);
      return next === undefined ? [] : [next.grantedAt - at];
    });
    return simResultOf({
      point: this.point,
      jobs,
      completed,
      dead,
      duplicates,
      duplicatedJobs,
      faultDuplicates,
      unexplained,
      stalls,
      extensions: queue.extendWrites,
      workers: workload.workers,
      simulatedMs: this.endMs,
      wallMs,
      steps,
    });
  }
}

/** One simulated worker process: the real claim loop and heartbeat core over a faulty link. */
class SimWorker {
  alive = true;
  readonly loop: ClaimLoop;
  private core: HeartbeatCore | undefined;
  private pausedUntil = 0;
  private partitionedUntil = 0;

  constructor(
    readonly id: string,
    private readonly world: World,
  ) {
    const { queue, lease, point } = world;
    const extend =
      point.heartbeatMs === null
        ? undefined
        : (claim: Claim) => this.call(() => queue.extend(id, claim, world.now(), lease.extendByMs));
    this.loop = new ClaimLoop({
      queue: {
        claim: () => this.call(() => queue.claim(id, world.now(), lease.durationMs)),
        ack: (claim) => this.call(() => queue.ack(id, claim, world.now())),
        fail: (claim) => this.call(() => queue.fail(id, claim, world.now())),
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
      watchdog: true,
      pollMs: lease.pollMs,
      emit: (event) => this.emit(event),
      effect: () => Promise.resolve(true),
    });
  }

  kill(): void {
    this.alive = false;
    this.loop.abort();
    this.core?.stop();
  }

  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.world.now() + ms);
  }

  partition(ms: number): void {
    this.partitionedUntil = Math.max(this.partitionedUntil, this.world.now() + ms);
  }

  private emit(event: WorkerEvent): void {
    if (this.alive && event.kind === 'unit') this.world.queue.executed(event.jobId, event.token);
  }

  /** One statement over this worker's link: half a round trip there, half back, faults between. */
  private async call<T>(apply: () => T): Promise<T> {
    const half = this.world.workload.rttMs / 2;
    await this.resumed();
    if (this.cutOff()) return this.timeOut();
    if (half > 0) await sleep(half);
    if (!this.alive) return never();
    if (this.cutOff()) return this.timeOut();
    const result = apply();
    if (half > 0) await sleep(half);
    await this.resumed();
    return this.alive ? result : never();
  }

  private cutOff(): boolean {
    return this.world.now() < this.partitionedUntil;
  }

  /** A statement into a partition: no reply within the statement timeout (the lease). */
  private async timeOut(): Promise<never> {
    await sleep(this.world.lease.durationMs);
    if (!this.alive) return never();
    throw new Error('statement timed out (partition)');
  }

  private async resumed(): Promise<void> {
    if (!this.alive) return never();
    const wait = this.pausedUntil - this.world.now();
    if (wait > 0) await sleep(wait);
    if (!this.alive) return never();
  }
}

/**
 * Where a simulation gives up on jobs that never finish (a job longer than its lease with no
 * heartbeat is claimed again and again, as the reference queue would): twice the last arrival,
 * three times the work shared by the workers, twenty times the longest job plus its lease and a
 * poll, and ten of the longest fault.
 */
export function simHorizonMs(
  plans: readonly UnitPlan[][],
  lastArrivalMs: number,
  workload: Pick<SimWorkload, 'rttMs' | 'workers' | 'faults'>,
  point: SimPoint,
): number {
  let longest = 0;
  let work = 0;
  for (const units of plans) {
    const ms = units.reduce((sum, u) => sum + u.ms, 0);
    longest = Math.max(longest, ms);
    work += ms + workload.rttMs * 3;
  }
  const f = workload.faults;
  const faultMs = Math.max(f.restartAfterMs, upper(f.pause), upper(f.partition));
  const { leaseMs, pollMs } = point;
  return (
    lastArrivalMs * 2 +
    (3 * work) / workload.workers +
    20 * (longest + leaseMs + pollMs) +
    10 * faultMs
  );
}

/** The longest a duration of this distribution is meant to be (its p99.9 or its maximum). */
function upper(d: DurationDistribution): number {
  switch (d.dist) {
    case 'fixed':
      return d.ms;
    case 'uniform':
      return d.maxMs;
    case 'lognormal':
      return d.p999Ms;
    case 'empirical':
      return Math.max(...d.samplesMs);
  }
}

/**
 * Resolves once every microtask queued before it, and every one those queue, has run — with no
 * macrotask turn: Node runs a `process.nextTick` queued from a microtask only once the microtask
 * queue is empty, then the microtasks that tick queued, and so on, before it returns to the event
 * loop.
 */
export function settledMicrotasks(): Promise<void> {
  return new Promise((resolve) => queueMicrotask(() => process.nextTick(resolve)));
}

/** A crashed process's call: it never returns. */
function never<T>(): Promise<T> {
  return new Promise<T>(() => undefined);
}

/** What a simulation counted, before it is put per 1,000 jobs and per second. */
export interface SimCounts {
  point: SimPoint;
  jobs: number;
  completed: number;
  dead: number;
  /** Executions beyond a job's first. */
  duplicates: number;
  /** Jobs executed more than once. */
  duplicatedJobs: number;
  /** Duplicates after a claim lost while its holder was under a fault. */
  faultDuplicates: number;
  /** Expiries with no fault on the holder. */
  unexplained: number;
  /** Each crash stall, ms. */
  stalls: number[];
  /** Extension statements sent. */
  extensions: number;
  workers: number;
  simulatedMs: number;
  wallMs: number;
  steps: number;
}

/** A simulation's counts as its `SimResult`. */
export function simResultOf(c: SimCounts): SimResult {
  const per1000 = (n: number): number => (c.jobs === 0 ? 0 : (n * 1000) / c.jobs);
  const seconds = Math.max(c.simulatedMs, 1) / 1000;
  const writes = c.extensions / seconds;
  return {
    point: c.point,
    jobs: c.jobs,
    completed: c.completed,
    dead: c.dead,
    unfinished: c.jobs - c.completed - c.dead,
    duplicatesPer1000: per1000(c.duplicates),
    duplicatedJobsPer1000: per1000(c.duplicatedJobs),
    faultDuplicatesPer1000: per1000(c.faultDuplicates),
    leaseDuplicatesPer1000: per1000(c.duplicates - c.faultDuplicates),
    unexplainedExpiriesPer1000: per1000(c.unexplained),
    crashStallMs: spread(c.stalls),
    heartbeatWritesPerWorkerSecond: writes / Math.max(1, c.workers),
    heartbeatWritesPerSecond: writes,
    throughputPerSecond: c.completed / seconds,
    simulatedMs: c.simulatedMs,
    wallMs: c.wallMs,
    steps: c.steps,
  };
}

/** `distribution`'s figures, NaN when nothing was measured (not zero: no stall is not a 0 ms stall). */
export function spread(values: number[]): Spread {
  if (values.length === 0) return { count: 0, p50: NaN, p99: NaN, max: NaN };
  return distribution(values);
}
