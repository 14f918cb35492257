import type pg from 'pg';
import type { StartedEnvironment } from '../../../src/env/types.js';
import { installAuditTrigger } from '../../../src/history/audit-trigger.js';
import type { QueueAdapter } from '../../../src/queue/types.js';
import { openQueueDb, type QueueDb } from '../../queue/queue-db.js';

/** A queue database with the audit trigger installed before any job is enqueued. */
export interface AuditedDb extends QueueDb {
  /** The connection that set the queue up and enqueues (`application_name` = `setup`). */
  setup: pg.Client;
  /** Enqueues `count` jobs of one 10 ms unit; returns their ids. */
  enqueue(count: number): Promise<string[]>;
}

/** Opens a queue database for `adapter` and installs the audit trigger on its lease table. */
export async function openAuditedDb(
  env: StartedEnvironment,
  adapter: QueueAdapter,
): Promise<AuditedDb> {
  const db = await openQueueDb(env, adapter);
  const setup = await db.client('setup');
  await installAuditTrigger(setup, adapter.audit);
  return {
    ...db,
    setup,
    enqueue: (count) =>
      adapter.enqueue(
        setup,
        Array.from({ length: count }, () => ({
          payload: { units: [{ ms: 10, sync: false, effect: false }] },
        })),
      ),
  };
}

/** A timestamptz column or expression of one row, as float8 ms — the same way the reader reads. */
export async function millis(
  client: pg.Client,
  sql: string,
  params: unknown[] = [],
): Promise<number | null> {
  const { rows } = await client.query<{ t: number | null }>(
    `SELECT (extract(epoch FROM (${sql})) * 1000)::float8 AS t`,
    params,
  );
  return rows[0]?.t ?? null;
}
