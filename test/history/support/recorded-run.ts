import type { RunDatabase, StartedEnvironment } from '../../../src/env/types.js';
import { prepareAuditedQueue } from '../../../src/history/audited-queue.js';
import { HistoryRecorder } from '../../../src/history/recorder.js';
import { withRunClient } from '../../../src/pool/queue-database.js';
import { WorkerPool } from '../../../src/pool/worker-pool.js';
import { loadQueueAdapter } from '../../../src/libraries/load-adapter.js';
import type { LeaseSettings, QueueAdapter } from '../../../src/queue/types.js';
import type { UnitPlan } from '../../../src/worker/types.js';

/** A real run whose history is being recorded: audit trigger in place before the jobs. */
export interface RecordedRun extends AsyncDisposable {
  database: RunDatabase;
  adapter: QueueAdapter;
  recorder: HistoryRecorder;
  pool: WorkerPool;
  jobIds: string[];
  /** Runs SQL on the run database directly. */
  sql<R extends Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
}

/**
 * The executor's set-up, in its order — recorder (clock offset) → schema, audit trigger, jobs →
 * the jobs' plans → workers, whose events go straight to the recorder — handed to the test
 * instead of a timeline: for a fault that must strike at a worker's event (an ack sent into a
 * cut link), which a plan's timed faults cannot aim at. Anything a timed fault can do, a test
 * runs through `executeRun`.
 */
export async function startRecordedRun(
  env: StartedEnvironment,
  options: {
    scenario: string;
    queue: string;
    workers: number;
    lease: LeaseSettings;
    plans: UnitPlan[][];
  },
): Promise<RecordedRun> {
  const database = await env.createDatabase();
  const adapter = await loadQueueAdapter(options.queue);
  const recorder = await HistoryRecorder.start({
    database,
    scenario: options.scenario,
    seed: 0,
    queue: adapter.name,
    lease: options.lease,
    workers: Array.from({ length: options.workers }, (_, i) => `w${i + 1}`),
    env,
  });
  const jobIds = await prepareAuditedQueue(
    database,
    adapter,
    options.plans.map((units) => ({ payload: { units } })),
  );
  await recorder.recordJobs(jobIds, options.plans);
  const pool = await WorkerPool.start({
    env,
    database,
    queue: options.queue,
    workers: options.workers,
    lease: options.lease,
    onEvent: recorder.onWorkerEvent,
  });
  return {
    database,
    adapter,
    recorder,
    pool,
    jobIds,
    sql: (text, params) =>
      withRunClient(database, async (c) => (await c.query(text, params)).rows as never),
    async [Symbol.asyncDispose]() {
      await pool.stop();
      await database.drop();
    },
  };
}
