import { setTimeout as sleep } from 'node:timers/promises';
import type { StartedEnvironment } from '../env/types.js';
import { prepareAuditedQueue } from '../history/audited-queue.js';
import { HistoryRecorder } from '../history/recorder.js';
import type { History } from '../history/types.js';
import { createFaults } from '../nemesis/create-fault.js';
import type { FaultSpec } from '../nemesis/fault-spec.js';
import type { NemesisContext, TimedFault } from '../nemesis/types.js';
import { unfinishedJobs, waitForDrain, withRunClient } from '../pool/queue-database.js';
import { MaintenanceLoop } from '../pool/maintenance-loop.js';
import { WorkerPool } from '../pool/worker-pool.js';
import { loadQueueAdapter } from '../libraries/load-adapter.js';
import type { LeaseSettings } from '../queue/types.js';
import type { StatedSettings } from '../queue/library-settings.js';
import type { ClockSkew, UnitPlan } from '../worker/types.js';
import { settleQueueTerms, statedSettingsOf } from './queue-terms.js';

/**
 * One run: a workload, lease settings, workers and a fault timeline — plain data (it survives
 * `JSON.stringify`), so one plan can be run any number of times, side by side or again after a
 * starved run: each run makes its own fault objects from the specs.
 */
export interface RunPlan {
  /** Name in the history and reports. */
  scenario: string;
  /** The seed the workload was drawn from. */
  seed: number;
  /** Built-in queue name or adapter path. */
  queue: string;
  /** Number of workers. */
  workers: number;
  /** Lease settings. */
  lease: LeaseSettings;
  /** One handler plan per job. */
  plans: UnitPlan[][];
  /** Attempts before dead-lettering (queue default when absent). */
  maxAttempts?: number;
  /** Handlers commit a cursor after each unit and resume from it (long jobs). */
  checkpoint?: boolean;
  /** The first this-many attempts of every job fail after their last unit (retries). */
  failAttempts?: number;
  /** Handlers do not check their abort signal: a cancelled handler runs on to its end. */
  ignoresAbort?: boolean;
  /** Jobs enqueued per second while the workers run; absent: all at once, before they start. */
  enqueueRatePerSecond?: number;
  /** Whether dead-lettered jobs count as done. */
  allowDeadLetter?: boolean;
  /** Initial clock skew by worker id (`w1`…), if any. */
  clock?: Readonly<Record<string, ClockSkew>>;
  /** The fault timeline, as a scenario states it: each fault with its `atMs` (and `forMs`). */
  faults: FaultSpec[];
  /** How long to wait for every job to finish once the faults are healed. */
  drainTimeoutMs: number;
  /**
   * A library's own settings the user states, by library (`river`: `{ JobTimeout: '10m' }`),
   * and where they were stated (for errors). The run's queue takes its own library's.
   */
  librarySettings?: {
    /** From the scenario's `settings` block, by library key. */
    byLibrary: Readonly<Record<string, StatedSettings>>;
    /** From the command line (`--setting Name=value`): the run's queue's library. */
    command?: StatedSettings;
    /** Where they were stated, for errors (the scenario file, `--setting`). */
    source: string;
  };
}

/** Where a run is, for a progress line. */
export interface RunProgress {
  /** setup → faults → drain → history. */
  phase: 'setup' | 'faults' | 'drain' | 'history';
  /** Jobs in a terminal state. */
  jobsDone: number;
  /** Jobs enqueued. */
  jobsTotal: number;
  /** Faults active now, as `kind@target`. */
  activeFaults: string[];
}

/** What a run produced. */
export interface RunOutcome {
  /** The history, on the database clock; it ends with an `end` event unless interrupted. */
  history: History;
  /** Whether every job finished before the drain timeout. */
  drained: boolean;
  /** Whether `signal` cut the run short: the history is what was recorded until then. */
  interrupted: boolean;
}

/** How a run may be cut short. */
export interface RunControl {
  /**
   * Aborting it (Ctrl-C) ends the fault timeline and the drain at once; faults are healed, the
   * workers stopped, and the history recorded so far is read and returned without an `end`
   * event — a cut history, judged on what was recorded and reported as incomplete.
   */
  signal?: AbortSignal | undefined;
}

/**
 * Runs one plan in a fresh database of `env`: queue schema and audit trigger → jobs → workers
 * → the fault timeline (each fault healing after its `forMs`) → heal everything → drain → stop
 * the workers → read the history. Everything it starts it stops, also on failure. The plan is
 * only read: the fault objects of the timeline are this run's own.
 */
export async function executeRun(
  env: StartedEnvironment,
  plan: RunPlan,
  onProgress?: (progress: RunProgress) => void,
  control: RunControl = {},
): Promise<RunOutcome> {
  const { signal } = control;
  signal?.throwIfAborted();
  // A fault is started and healed once: a plan run twice needs new ones each time.
  const faults = createFaults(plan.faults);
  const jobsTotal = plan.plans.length;
  const active = new Set<string>();
  let phase: RunProgress['phase'] = 'setup';
  let jobsDone = 0;
  const tell = (): void =>
    onProgress?.({ phase, jobsDone, jobsTotal, activeFaults: [...active].sort() });
  tell();
  const database = await env.createDatabase();
  try {
    const adapter = await loadQueueAdapter(plan.queue);
    const workerIds = Array.from({ length: plan.workers }, (_, i) => `w${i + 1}`);
    // The lease the run uses: the scenario's, unless the queue states other terms (a lease in
    // whole seconds, a rescaled library constant), which the history then carries.
    const skewsClock =
      Object.keys(plan.clock ?? {}).length > 0 || plan.faults.some((f) => f.kind === 'clock');
    const terms = settleQueueTerms(
      adapter,
      plan.lease,
      skewsClock,
      statedSettingsOf(adapter, plan),
    );
    const lease = terms.lease;
    const recorder = await HistoryRecorder.start({
      database,
      scenario: plan.scenario,
      seed: plan.seed,
      queue: plan.queue,
      lease,
      workers: workerIds,
      env,
      ...(plan.allowDeadLetter !== undefined && { allowDeadLetter: plan.allowDeadLetter }),
      ...(plan.failAttempts !== undefined && { failAttempts: plan.failAttempts }),
      ...(terms.record !== undefined && { queueTerms: terms.record }),
    });
    const specs = plan.plans.map((units) => ({
      payload: {
        units,
        ...(plan.checkpoint === true && { checkpoint: true }),
        ...(plan.ignoresAbort === true && { ignoresAbort: true }),
        ...(plan.failAttempts !== undefined &&
          plan.failAttempts > 0 && {
            failAttempts: plan.failAttempts,
          }),
      },
      ...(plan.maxAttempts !== undefined && { maxAttempts: plan.maxAttempts }),
    }));
    const rate = plan.enqueueRatePerSecond;
    const setupCtx = {
      lease,
      databaseUrl: database.url,
      applicationName: 'leaseproof-controller',
      ...(terms.settings !== undefined && { settings: terms.settings }),
    };
    const ids = await prepareAuditedQueue(
      database,
      adapter,
      rate === undefined ? specs : [],
      setupCtx,
    );
    await recorder.recordJobs(ids, rate === undefined ? plan.plans : []);
    const pool = await WorkerPool.start({
      env,
      database,
      queue: plan.queue,
      workers: plan.workers,
      lease,
      ...(terms.settings !== undefined && { settings: terms.settings.values }),
      onEvent: recorder.onWorkerEvent,
      ...(plan.clock && { clock: (i: number) => plan.clock?.[`w${i + 1}`] }),
      shutdownTimeoutMs: (i: number) => shutdownTimeoutOf(plan, `w${i + 1}`),
      held: true,
    });
    // Jobs arrive one by one at the scenario's rate, while the workers run and faults strike.
    const enqueueAtRate = async (perSecond: number): Promise<void> => {
      const started = performance.now();
      for (const [i, spec] of specs.entries()) {
        await sleep(
          Math.max(0, (i * 1000) / perSecond - (performance.now() - started)),
          undefined,
          {
            signal,
          },
        );
        const [id] = await withRunClient(database, (c) => adapter.enqueue(c, [spec], setupCtx));
        if (id !== undefined) await recorder.recordJobs([id], [plan.plans[i] ?? []]);
      }
    };
    let drained = false;
    let interrupted = false;
    // Progress is read from the queue's own table, as the drain is: what the database says.
    const ticker = onProgress
      ? setInterval(() => {
          void withRunClient(database, (c) => unfinishedJobs(c, adapter))
            .then((left) => {
              jobsDone = jobsTotal - left;
              tell();
            })
            .catch(() => undefined);
        }, 500)
      : undefined;
    let ctx: NemesisContext | undefined;
    // The library's own background sweep, if it has one: through the faults and the drain.
    let maintenance: MaintenanceLoop | undefined;
    try {
      if (adapter.maintenance !== undefined) {
        maintenance = MaintenanceLoop.start(database, adapter.maintenance, setupCtx, (pass) =>
          recorder.recordSweep(pass),
        );
      }
      ctx = {
        env,
        pool,
        record: (r) => {
          const key = `${r.fault}@${r.target}`;
          if (r.phase === 'start') active.add(key);
          else active.delete(key);
          recorder.recordNemesis(r);
          tell();
        },
      };
      phase = 'faults';
      tell();
      // Each part stops by itself on an abort (its sleeps reject), so that nothing — no fault,
      // no enqueue — is still under way when the heal and the pool stop below run.
      await Promise.all([
        runTimeline(ctx, faults, () => pool.release(), signal),
        rate === undefined ? undefined : enqueueAtRate(rate),
      ]);
      phase = 'drain';
      tell();
      // A worker that ended by itself makes the run an error at once: no drain can follow it.
      const failure = (): Error | undefined => pool.workerFailure();
      drained = await waitForDrain(
        database,
        adapter,
        // A library whose recovery horizon is long in this run (River rescues after 60 leases
        // at its defaults) gets the time to recover: three leases and a sweep, at least.
        Math.max(
          plan.drainTimeoutMs,
          3 * lease.durationMs + (terms.record?.maintenance?.intervalMs ?? 0),
        ),
        100,
        signal,
        failure,
      ).then(
        () => true,
        (error: unknown) => {
          if (signal?.aborted === true || error === failure()) throw error;
          return false;
        },
      );
    } catch (error) {
      if (!(signal?.aborted === true && isAbort(error))) throw error;
      interrupted = true;
    } finally {
      clearInterval(ticker);
      // Standing conditions (a clock fault without `for`) end with the run, not the timeline.
      if (ctx !== undefined) await healAll(ctx, faults);
      await Promise.all([pool.stop(), maintenance?.stop()]);
    }
    phase = 'history';
    jobsDone = drained ? jobsTotal : jobsDone;
    tell();
    recorder.recordWorkerEvents(pool.events());
    const history = await recorder.finish({ drained, cut: interrupted });
    return { history, drained, interrupted };
  } finally {
    await database.drop();
  }
}

/**
 * Starts each fault at its time and heals it after its `for`. Faults of time zero are in force
 * before `begin` is called (the pool's release: workers start claiming then), so "a clock 90 min
 * ahead at 0s" skews the first claim too; every other time counts from `begin`.
 *
 * A fault without `for` is not healed here: a crash or a stall ends by itself, a database
 * restart once the server is back, and a clock or toxic (latency, bandwidth, slicer) fault
 * without `for` is a standing condition — a host whose clock is wrong, a link that stays slow —
 * that lasts through the drain, until `healAll` at the run's end. Whatever happens, every fault
 * with a `for` is healed when this returns — no worker stays paused, no proxy stays cut while
 * the queue drains — and where the timeline did not run to its end (an abort, a fault that
 * failed) every proxy is healed too.
 */
export async function runTimeline(
  ctx: NemesisContext,
  faults: TimedFault[],
  begin: () => void = () => undefined,
  signal?: AbortSignal,
): Promise<void> {
  let ran = false;
  try {
    for (const { atMs, fault } of faults) if (atMs <= 0) await fault.start(ctx);
    begin();
    const started = performance.now();
    // allSettled, not all: on an abort every branch must have stopped (no fault may start after
    // the heal below) before this returns.
    const ends = await Promise.allSettled(
      faults.map(async ({ atMs, forMs, fault }) => {
        if (atMs > 0) {
          await sleep(Math.max(0, atMs - (performance.now() - started)), undefined, { signal });
          await fault.start(ctx);
        }
        if (forMs !== undefined) {
          await sleep(forMs, undefined, { signal });
          await fault.heal(ctx);
        }
      }),
    );
    const failed = ends.find((e) => e.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    ran = true;
  } finally {
    const lasting = faults.filter((f) => f.forMs !== undefined);
    // A whole-proxy heal after a timeline that ran would also lift a standing latency.
    if (ran) for (const { fault } of lasting) await fault.heal(ctx).catch(() => undefined);
    else await healAll(ctx, lasting);
  }
}

/**
 * The shutdown timeout a worker is started with: that of the first `stop` aimed at it. A worker
 * knows its own timeout, as a deployed one does from its settings; a SIGTERM carries none.
 */
function shutdownTimeoutOf(plan: RunPlan, worker: string): number | undefined {
  const stop = plan.faults.find((f) => f.kind === 'stop' && f.worker === worker);
  return stop?.kind === 'stop' ? stop.timeoutMs : undefined;
}

/** Whether `error` is an abort (the signal's reason, or a timer's AbortError). */
function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/** Heals these faults and every proxy (idempotent: a healed fault is not healed twice). */
export async function healAll(ctx: NemesisContext, faults: TimedFault[]): Promise<void> {
  for (const { fault } of faults) await fault.heal(ctx).catch(() => undefined);
  await Promise.allSettled(ctx.pool.proxies.map((p) => p.heal()));
}
