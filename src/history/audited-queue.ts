import type { RunDatabase } from '../env/types.js';
import { withRunClient } from '../pool/queue-database.js';
import type { JobSpec, QueueAdapter, SetupContext } from '../queue/types.js';
import { EFFECTS_DDL } from '../worker/effects.js';
import { installAuditTrigger } from './audit-trigger.js';
import { adapterDeadline, adapterLoadTimeoutMs } from '../queue/adapter-deadline.js';

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
  return withRunClient(database, async (client) => {
    const name = `queue adapter "${adapter.name}"`;
    await adapterDeadline(adapter.setup(client, ctx), adapterLoadTimeoutMs(), `${name}: setup()`);
    await client.query(EFFECTS_DDL);
    await installAuditTrigger(client, adapter.audit);
    if (jobs.length === 0) return [];
    return adapterDeadline(
      adapter.enqueue(client, jobs, ctx),
      adapterLoadTimeoutMs(),
      `${name}: enqueue() of ${jobs.length} job(s)`,
    );
  });
}
