import type { SqlClient } from '../queue/types.js';
import type { EffectEvent } from './types.js';

const PAGE = 10_000;

interface EffectRow extends Record<string, unknown> {
  id: string;
  t: number;
  worker_id: string;
  job_id: string;
  token: string;
  unit: number;
}

const SELECT = `SELECT id::text AS id, (extract(epoch FROM at) * 1000)::float8 AS t,
  worker_id, job_id, token, unit
  FROM leaseproof_effects e WHERE e.id > $1::bigint ORDER BY e.id LIMIT ${PAGE}`;

/**
 * Reads the effects the handlers recorded (`leaseproof_effects`), in insertion order. A database
 * without the table has no effects: a queue prepared without the harness's effects table.
 */
export async function readEffectEvents(client: SqlClient): Promise<EffectEvent[]> {
  const { rows: exists } = await client.query<{ ok: boolean }>(
    "SELECT to_regclass('leaseproof_effects') IS NOT NULL AS ok",
  );
  if (exists[0]?.ok !== true) return [];
  const events: EffectEvent[] = [];
  for (let after = '0'; ;) {
    const { rows } = await client.query<EffectRow>(SELECT, [after]);
    for (const row of rows) {
      events.push({
        type: 'effect',
        t: row.t,
        worker: row.worker_id,
        job: row.job_id,
        token: row.token,
        unit: row.unit,
      });
    }
    if (rows.length < PAGE) return events;
    after = rows[rows.length - 1]!.id;
  }
}
