import type { RunDatabase } from '../env/types.js';
import { prepareQueue } from '../pool/queue-database.js';
import type { JobSpec, QueueAdapter, SetupContext } from '../queue/types.js';
import { installAuditTrigger } from './audit-trigger.js';

/**
 * `prepareQueue` with the audit trigger: sets up the queue's schema and the effects table,
 * installs the trigger, and only then enqueues `jobs` — so every job's insert is on record.
 * Returns the job ids. `ctx` carries the run's lease to a queue whose lease is set per queue or
 * per job (pg-boss).
 */
export async function prepareAuditedQueue(
  database: RunDatabase,
  adapter: QueueAdapter,
  jobs: JobSpec[],
  ctx?: SetupContext,
): Promise<string[]> {
  return prepareQueue(database, adapter, jobs, {
    ctx,
    beforeEnqueue: (client) => installAuditTrigger(client, adapter.audit),
  });
}
