/**
 * pg-boss 10's own worker loop as a native worker: `work()` — its polling fetch (one job at a
 * time), its handler timeout (`expireInSeconds`, after which it fails the job while the handler
 * runs on), its `complete()` / `fail()` — and its supervisor's `maintain()` (`expire()`: active
 * jobs past `started_on + expire_in` back to retry), each on a pg-boss pool of its own through
 * the worker's proxy.
 *
 * The supervisor runs in a second pg-boss instance of the same process, not in the working one
 * as a default pg-boss does, for one reason: its connections are named `<worker>:sweep`, so the
 * audit attributes its `expire()` — a release of somebody else's claim — to a sweep, not to this
 * worker. Its code, timer and cross-instance throttle (`maintained_on`) are pg-boss's own.
 */
import { PG_BOSS, PG_BOSS_QUEUE, PG_BOSS_SCHEMA } from '../../libraries/pg-boss/adapter.js';
import { pgBoss10Value } from '../../libraries/pg-boss/settings.js';
import { requireLibrary } from '../../libraries/load-library.js';
import type { LeaseSettings } from '../../queue/types.js';
import type { NativeTarget, NativeWorker } from '../native-worker.js';

/**
 * A setting's run value in seconds, as pg-boss takes it: the run's settled value from the worker
 * config (ms), or — from an older controller that sends none — pg-boss's default compressed to
 * the lease (the same rule, settled here).
 */
export function settingSeconds(
  settings: Readonly<Record<string, number>> | undefined,
  name: string,
  fallback: (lease: LeaseSettings) => number,
  lease: LeaseSettings,
): number {
  return (settings?.[name] ?? fallback(lease)) / 1000;
}

interface WorkJob {
  id: string;
  data: Record<string, unknown> | null;
  retryCount: number;
}

// The part of pg-boss 10's API a native worker uses.
interface PgBossInstance {
  on(event: 'error', listener: (error: unknown) => void): void;
  start(): Promise<unknown>;
  stop(options: {
    graceful?: boolean;
    wait?: boolean;
    timeout?: number;
    close?: boolean;
  }): Promise<void>;
  work(
    name: string,
    options: Record<string, unknown>,
    handler: (jobs: WorkJob[]) => Promise<unknown>,
  ): Promise<string>;
}

type PgBossClass = new (options: Record<string, unknown>) => PgBossInstance;

/** pg-boss's `work()` and supervisor as a native target. */
export class PgBossTarget implements NativeTarget {
  private boss: PgBossInstance | undefined;
  private sweeper: PgBossInstance | undefined;
  private stopped: (() => void) | undefined;

  async prepare(worker: NativeWorker): Promise<void> {
    const PgBoss = requireLibrary<PgBossClass>(PG_BOSS);
    const { databaseUrl, workerId, lease, settings } = worker.config;
    const common = {
      connectionString: databaseUrl,
      schema: PG_BOSS_SCHEMA,
      migrate: false,
      schedule: false,
    };
    const boss = new PgBoss({ ...common, application_name: workerId, max: 2, supervise: false });
    const sweeper = new PgBoss({
      ...common,
      application_name: `${workerId}:sweep`,
      max: 1,
      supervise: true,
      maintenanceIntervalSeconds: settingSeconds(
        settings,
        'maintenanceIntervalSeconds',
        (l) => pgBoss10Value('maintenanceIntervalSeconds', l),
        lease,
      ),
    });
    // pg-boss emits its loop's errors (a fetch on a cut connection) and goes on polling.
    boss.on('error', (error) => worker.log(`pg-boss: ${String(error)}`));
    sweeper.on('error', (error) => worker.log(`pg-boss supervisor: ${String(error)}`));
    await boss.start();
    await sweeper.start();
    this.boss = boss;
    this.sweeper = sweeper;
  }

  async run(worker: NativeWorker): Promise<void> {
    const boss = this.boss;
    if (boss === undefined) throw new Error('pg-boss target: run before prepare');
    const done = new Promise<void>((resolve) => (this.stopped = resolve));
    await boss.work(
      PG_BOSS_QUEUE,
      {
        batchSize: 1,
        includeMetadata: true,
        pollingIntervalSeconds: settingSeconds(
          worker.config.settings,
          'pollingIntervalSeconds',
          (l) => pgBoss10Value('pollingIntervalSeconds', l),
          worker.config.lease,
        ),
      },
      async ([job]) => {
        if (job === undefined) return;
        // The holder the audit shows: pg-boss has no claim token; each fetch after the first
        // increments retry_count.
        await worker.runJob({
          jobId: job.id,
          token: `${job.id}#${job.retryCount}`,
          attempt: job.retryCount + 1,
          payload: job.data ?? {},
        });
      },
    );
    if (worker.stopping) await this.stop();
    await done;
  }

  async stop(): Promise<void> {
    const { boss, sweeper } = this;
    this.boss = undefined;
    this.sweeper = undefined;
    // pg-boss's graceful stop: no more fetches, the job in hand finished and completed.
    await sweeper?.stop({ graceful: false, wait: true });
    await boss?.stop({ graceful: true, wait: true, timeout: 30_000 });
    this.stopped?.();
  }
}
