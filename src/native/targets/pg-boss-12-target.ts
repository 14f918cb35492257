/**
 * pg-boss 12's own worker loop as a native worker, under Node 22 with the pg-boss installed in
 * `.tools/npm` (its folder in `LEASEPROOF_PG_BOSS_DIR`): `work()` — its polling fetch, its job
 * heartbeat (a timer on the event loop that `touch()`es `heartbeat_on`, fenced to the attempt it
 * fetched, and aborts the job's `signal` when the row is no longer its claim), its handler timeout
 * (`expireInSeconds`), its awaited `complete()` / `fail()` (fenced to the attempt, #925) — and its
 * supervisor (`failJobsByTimeout`, `failJobsByHeartbeat`), in a second instance named
 * `<worker>:sweep` as for pg-boss 10 (see `pg-boss-target.ts`).
 *
 * The job's `signal` reaches leaseproof's handler plan, which checks it between units: a handler
 * whose claim pg-boss found gone stops at its next cancellation point.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PG_BOSS_QUEUE, PG_BOSS_SCHEMA } from '../../libraries/pg-boss/adapter.js';
import type { NativeTarget, NativeWorker } from '../native-worker.js';
import { settingSeconds } from './pg-boss-target.js';
import { pgBoss12Value } from '../../libraries/pg-boss/settings.js';

interface WorkJob {
  id: string;
  data: Record<string, unknown> | null;
  retryCount: number;
  signal: AbortSignal;
}

// The part of pg-boss 12's API a native worker uses.
interface PgBossInstance {
  on(event: 'error' | 'warning', listener: (error: unknown) => void): void;
  start(): Promise<unknown>;
  stop(options: { graceful?: boolean; wait?: boolean; timeout?: number }): Promise<void>;
  work(
    name: string,
    options: Record<string, unknown>,
    handler: (jobs: WorkJob[]) => Promise<unknown>,
  ): Promise<string>;
}

type PgBossClass = new (options: Record<string, unknown>) => PgBossInstance;

/**
 * pg-boss from the folder the controller installed (`<dir>/node_modules/pg-boss`), an ES module:
 * resolved from that folder, never from leaseproof's own node_modules (which hold pg-boss 10).
 */
export async function importPgBoss12(): Promise<PgBossClass> {
  const dir = process.env.LEASEPROOF_PG_BOSS_DIR;
  if (dir === undefined || dir === '') {
    throw new Error('pg-boss 12 target: LEASEPROOF_PG_BOSS_DIR names no pg-boss folder');
  }
  const entry = createRequire(join(dir, 'package.json')).resolve('pg-boss');
  const module = (await import(pathToFileURL(entry).href)) as { PgBoss: PgBossClass };
  return module.PgBoss;
}

/** pg-boss 12's `work()` and supervisor as a native target. */
export class PgBoss12Target implements NativeTarget {
  private boss: PgBossInstance | undefined;
  private sweeper: PgBossInstance | undefined;
  private stopped: (() => void) | undefined;

  async prepare(worker: NativeWorker): Promise<void> {
    const PgBoss = await importPgBoss12();
    const { databaseUrl, workerId, lease, settings } = worker.config;
    const seconds = (name: string): number =>
      settingSeconds(settings, name, (l) => pgBoss12Value(name, l), lease);
    const common = {
      connectionString: databaseUrl,
      schema: PG_BOSS_SCHEMA,
      migrate: false,
      schedule: false,
    };
    const boss = new PgBoss({ ...common, application_name: workerId, max: 3, supervise: false });
    const sweeper = new PgBoss({
      ...common,
      application_name: `${workerId}:sweep`,
      max: 1,
      supervise: true,
      superviseIntervalSeconds: seconds('superviseIntervalSeconds'),
      monitorIntervalSeconds: seconds('monitorIntervalSeconds'),
    });
    // pg-boss emits its loop's errors (a fetch or a heartbeat on a cut connection) and goes on.
    boss.on('error', (error) => worker.log(`pg-boss: ${String(error)}`));
    boss.on('warning', (warning) => worker.log(`pg-boss warning: ${JSON.stringify(warning)}`));
    sweeper.on('error', (error) => worker.log(`pg-boss supervisor: ${String(error)}`));
    await boss.start();
    await sweeper.start();
    this.boss = boss;
    this.sweeper = sweeper;
  }

  async run(worker: NativeWorker): Promise<void> {
    const boss = this.boss;
    if (boss === undefined) throw new Error('pg-boss 12 target: run before prepare');
    const { lease, settings } = worker.config;
    const done = new Promise<void>((resolve) => (this.stopped = resolve));
    await boss.work(
      PG_BOSS_QUEUE,
      {
        batchSize: 1,
        // retryCount names the attempt; in early 12.x (12.12.0) only the full row carries it.
        includeMetadata: true,
        pollingIntervalSeconds: settingSeconds(
          settings,
          'pollingIntervalSeconds',
          (l) => pgBoss12Value('pollingIntervalSeconds', l),
          lease,
        ),
        // No heartbeatRefreshSeconds: pg-boss's own, half of the job's heartbeatSeconds.
      },
      async ([job]) => {
        if (job === undefined) return;
        // The holder the audit shows: each fetch after the first increments retry_count, and
        // pg-boss 12 fences complete / fail / touch on that pair.
        await worker.runJob({
          jobId: job.id,
          token: `${job.id}#${job.retryCount}`,
          attempt: job.retryCount + 1,
          payload: job.data ?? {},
          signal: job.signal,
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
    await sweeper?.stop({ graceful: false, wait: true });
    await boss?.stop({ graceful: true, wait: true, timeout: 30_000 });
    this.stopped?.();
  }
}
