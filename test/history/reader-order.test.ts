import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { readAuditEvents } from '../../src/history/audit-reader.js';
import { prepareAuditedQueue } from '../../src/history/audited-queue.js';
import { readEffectEvents } from '../../src/history/effects-reader.js';
import { referenceQueue } from '../../src/queue/reference-queue.js';

// Both readers page through their tables 10,000 rows at a time, by a bigint sequence that the
// query also returns as text: the order must be the number's, not the text's (1, 10, 100, 2, …),
// or rows come back shuffled and a page boundary skips some.
let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

const ROWS = 10_050;

describe('history readers over more than one page', () => {
  it('read every audit row and every effect once, in the order they were written', async () => {
    const database = await env.createDatabase();
    const client = new pg.Client({ connectionString: database.url });
    try {
      const jobs = Array.from({ length: ROWS }, (_, n) => ({ payload: { n } }));
      const ids = await prepareAuditedQueue(database, referenceQueue, jobs);
      await client.connect();
      const audit = await readAuditEvents(client);
      expect(audit).toHaveLength(ROWS);
      expect(audit.map((e) => e.job)).toEqual(ids);
      await client.query(
        `INSERT INTO leaseproof_effects (job_id, worker_id, token, unit)
         SELECT n::text, 'w1', 't', 0 FROM generate_series(1, ${ROWS}) AS n`,
      );
      const effects = await readEffectEvents(client);
      expect(effects.map((e) => e.job)).toEqual(ids.map((_, i) => String(i + 1)));
    } finally {
      await client.end().catch(() => undefined);
      await database.drop();
    }
  }, 60_000);
});
