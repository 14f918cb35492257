/**
 * A complete leaseproof adapter for a small custom queue: one table, a `locked_until` deadline
 * set on the database's clock, a fresh token per claim that fences stale holders, and retries.
 * Copy it into your project (`cp node_modules/leaseproof/examples/tiny-queue.ts .`) and run
 * `npx leaseproof suite --queue ./tiny-queue.ts`.
 */
import type { Claim, QueueAdapter, SqlClient } from 'leaseproof';

// Held = this token, still running, deadline not passed: an expired claim is lost (strict).
const HELD = `id = $1::bigint AND token = $2::uuid AND state = 'running' AND locked_until >= now()`;
const inMs = (param: string) => `now() + ${param}::float8 * interval '1 millisecond'`;
type Row = { id: string; token: string; attempts: number; payload: Record<string, unknown> };

async function whileHeld(db: SqlClient, claim: Claim, set: string, arg?: unknown) {
  const params = arg === undefined ? [claim.jobId, claim.token] : [claim.jobId, claim.token, arg];
  const { rowCount } = await db.query(`UPDATE tiny_jobs SET ${set} WHERE ${HELD}`, params);
  return rowCount === 1;
}

const tinyQueue: QueueAdapter = {
  name: 'tiny',
  description: 'A small custom queue: a locked_until deadline, a token per claim, retries.',
  audit: {
    table: 'tiny_jobs',
    expressions: {
      jobId: 'r.id::text',
      holder: "CASE WHEN r.state = 'running' THEN r.token::text END",
      deadline: "CASE WHEN r.state = 'running' THEN r.locked_until END",
      state: "CASE r.state WHEN 'running' THEN 'held' ELSE r.state END",
    },
    completion: 'update',
  },
  async setup(db) {
    await db.query(`CREATE TABLE tiny_jobs (id bigserial PRIMARY KEY, payload jsonb NOT NULL,
      state text NOT NULL DEFAULT 'pending', -- pending | running | completed | failed
      attempts int NOT NULL DEFAULT 0, max_attempts int NOT NULL DEFAULT 5,
      token uuid, locked_until timestamptz, error text)`);
  },
  async teardown(db) {
    await db.query('DROP TABLE IF EXISTS tiny_jobs');
  },
  async enqueue(db, jobs) {
    const ids: string[] = [];
    for (const { payload, maxAttempts } of jobs) {
      const sql = `INSERT INTO tiny_jobs (payload, max_attempts) VALUES ($1, coalesce($2, 5))
        RETURNING id::text AS id`;
      ids.push((await db.query<{ id: string }>(sql, [payload, maxAttempts])).rows[0]!.id);
    }
    return ids;
  },
  async claim(db, ctx) {
    const { rows } = await db.query<Row>(
      `UPDATE tiny_jobs SET state = 'running', token = gen_random_uuid(),
         attempts = attempts + 1, locked_until = ${inMs('$1')}
       WHERE id = (SELECT id FROM tiny_jobs
         WHERE state = 'pending' OR (state = 'running' AND locked_until < now())
         ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING id::text, token::text, attempts, payload`,
      [ctx.lease.durationMs],
    );
    const row = rows[0];
    return row && { jobId: row.id, token: row.token, attempt: row.attempts, payload: row.payload };
  },
  extend: (db, claim, ctx) =>
    whileHeld(db, claim, `locked_until = ${inMs('$3')}`, ctx.lease.extendByMs),
  ack: (db, claim) => whileHeld(db, claim, `state = 'completed'`),
  // A failed attempt is offered again until its attempts run out. (A queue without retries is
  // a legitimate design too: it would set state = 'failed' here and declare `retries: false`.)
  fail: (db, claim, error) =>
    whileHeld(
      db,
      claim,
      `state = CASE WHEN attempts < max_attempts THEN 'pending' ELSE 'failed' END,
       token = NULL, locked_until = NULL, error = $3`,
      error,
    ),
};

export default tinyQueue;
