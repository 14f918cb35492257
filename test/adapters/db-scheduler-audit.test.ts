import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { readAuditEvents } from '../../src/history/audit-reader.js';
import { dbSchedulerQueue } from '../../src/libraries/db-scheduler/adapter.js';
import { prepareQueueAdapter } from '../../src/libraries/load-adapter.js';
import { openAuditedDb } from '../history/support/audited-db.js';
import { haveJava, javaSkipReason } from '../support/java.js';

let env: StartedEnvironment;
beforeAll(async () => {
  if (!haveJava) return;
  await prepareQueueAdapter('db-scheduler');
  env = await new EmbeddedEnvironmentProvider().start();
}, 300_000);
afterAll(async () => {
  await env?.stop();
});

// db-scheduler's own writes, as its JdbcTaskRepository makes them (pick, reschedule), with the
// instants a JVM would bind. Setup without a run's terms: a 30 s lease at db-scheduler's
// defaults, so OnFailureRetryLater is 5 min × 30 s / 30 min = 5 s.
const PICK = `UPDATE scheduled_tasks SET picked = true, picked_by = $2, last_heartbeat = now(),
  version = version + 1 WHERE task_instance = $1 AND picked = false`;
const RESCHEDULE = `UPDATE scheduled_tasks SET picked = false, picked_by = NULL,
  last_heartbeat = NULL, last_failure = now(), execution_time = now() + $2::interval,
  consecutive_failures = consecutive_failures + 1, version = version + 1
  WHERE task_instance = $1 AND picked = true`;

describe.skipIf(!haveJava)(`the audit of db-scheduler's revives${javaSkipReason}`, () => {
  it("records a revive as the detector's sweep however long it took, and a failure's retry as the worker's", async () => {
    const db = await openAuditedDb(env, dbSchedulerQueue);
    try {
      const [job] = await db.enqueue(1);
      const w1 = await db.client('w1');
      const w2 = await db.client('w2');
      await w1.query(PICK, [job, 'w1']);
      // w2's detector revives it 3 s after the now it read before its query: more than half
      // the retry delay, as a run's 100 ms revive is of its 167 ms delay (a loaded or skewed
      // detector reviving several executions), which no longer tells it from a failure.
      await w2.query(RESCHEDULE, [job, '3 seconds']);
      await w2.query(PICK, [job, 'w2']);
      // The handler fails: OnFailureRetryLater reschedules to its failure time + 5 s exactly.
      await w2.query(RESCHEDULE, [job, '5 seconds']);
      const events = await readAuditEvents(await db.observer());
      expect(events.map((e) => [e.op, e.app, e.old?.state, e.new?.state])).toEqual([
        ['insert', 'setup', undefined, 'pending'],
        ['update', 'w1', 'pending', 'held'],
        ['update', 'w2:sweep', 'held', 'pending'],
        ['update', 'w2', 'pending', 'held'],
        ['update', 'w2', 'held', 'pending'],
      ]);
    } finally {
      await db.close();
    }
  }, 60_000);
});
