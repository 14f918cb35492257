import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { readAuditEvents } from '../../src/history/audit-reader.js';
import { installAuditTrigger } from '../../src/history/audit-trigger.js';
import { AuditDataError, AuditDescriptionError } from '../../src/history/history-errors.js';
import type { AuditEvent } from '../../src/history/types.js';
import { loadQueueAdapter } from '../../src/libraries/load-adapter.js';
import { unfinishedJobs } from '../../src/pool/queue-database.js';
import { referenceQueue } from '../../src/queue/reference-queue.js';
import type { QueueAdapter } from '../../src/queue/types.js';
import { nativeOnlyPrimitives } from '../../src/queue/native-only.js';
import { LEASE, context, openQueueDb, transaction } from '../queue/queue-db.js';
import deleteQueue from './fixtures/delete-queue.js';
import { millis, openAuditedDb } from './support/audited-db.js';

let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

const claimed = <T>(value: T | undefined): T => {
  expect(value, 'a claim was expected').toBeDefined();
  return value!;
};
/** The lease part of an audit event, for compact expectations. */
const lease = (e: AuditEvent | undefined) => e && { op: e.op, app: e.app, old: e.old, new: e.new };

describe('the audit trigger on the reference queue', () => {
  it('records the insert, claim, extension and ack with their images, times and connections', async () => {
    const db = await openAuditedDb(env, referenceQueue);
    try {
      const [job] = await db.enqueue(1);
      const w1 = await db.client('w1');
      const observer = await db.observer();
      const deadlineNow = () =>
        millis(observer, 'SELECT lease_expires_at FROM leaseproof_jobs WHERE id = $1', [job]);

      const claim = claimed(await referenceQueue.claim(w1, context('w1')));
      const grantedUntil = await deadlineNow();
      expect(await referenceQueue.extend(w1, claim, context('w1'))).toBe(true);
      const extendedUntil = await deadlineNow();
      expect(await referenceQueue.ack(w1, claim, context('w1'))).toBe(true);

      const events = await readAuditEvents(observer);
      expect(events.map(lease)).toEqual([
        {
          op: 'insert',
          app: 'setup',
          old: null,
          new: { holder: null, deadline: null, state: 'pending' },
        },
        {
          op: 'update',
          app: 'w1',
          old: { holder: null, deadline: null, state: 'pending' },
          new: { holder: claim.token, deadline: grantedUntil, state: 'held' },
        },
        {
          op: 'update',
          app: 'w1',
          old: { holder: claim.token, deadline: grantedUntil, state: 'held' },
          new: { holder: claim.token, deadline: extendedUntil, state: 'held' },
        },
        {
          op: 'update',
          app: 'w1',
          old: { holder: claim.token, deadline: extendedUntil, state: 'held' },
          new: { holder: null, deadline: null, state: 'completed' },
        },
      ]);
      for (const e of events) {
        expect(e.job).toBe(job);
        // Autocommit, yet not one instant: over the extended protocol the transaction starts
        // at Parse and the statement's clock is read again at Execute, a fraction of a ms later.
        expect(e.stmtT).toBeGreaterThanOrEqual(e.txnT);
        expect(e.stmtT - e.txnT).toBeLessThan(50);
        expect(e.t).toBeGreaterThanOrEqual(e.stmtT);
      }
      // The reference sets deadline = now() + lease, and txnT is that now(): to the microsecond.
      const [, grant, extension] = events;
      expect(grant!.new!.deadline! - grant!.txnT).toBeCloseTo(LEASE.durationMs, 2);
      expect(extension!.new!.deadline! - extension!.txnT).toBeCloseTo(LEASE.extendByMs, 2);
      expect(new Set(events.map((e) => e.xid)).size).toBe(4);
      expect(events.map((e) => e.t)).toEqual([...events.map((e) => e.t)].sort((a, b) => a - b));
    } finally {
      await db.close();
    }
  });

  it('leaves no audit row for a rolled-back change: only committed transitions count', async () => {
    const db = await openAuditedDb(env, referenceQueue);
    try {
      await db.enqueue(1);
      const w2 = await db.client('w2');
      const observer = await db.observer();
      const before = await readAuditEvents(observer);

      await w2.query('BEGIN');
      const claim = claimed(await referenceQueue.claim(w2, context('w2')));
      // Inside the transaction the trigger has written its row…
      const inside = await w2.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM leaseproof_audit WHERE app = 'w2'",
      );
      expect(inside.rows[0]?.n).toBe(1);
      // …and it goes with the transaction.
      await w2.query('ROLLBACK');
      expect(await readAuditEvents(observer)).toEqual(before);

      // The same claim committed is on record, with a later seq-ordered position.
      const again = claimed(await referenceQueue.claim(w2, context('w2')));
      expect(again.token).not.toBe(claim.token);
      const after = await readAuditEvents(observer);
      expect(after).toHaveLength(before.length + 1);
      expect(after.at(-1)?.new?.holder).toBe(again.token);
      expect(after.some((e) => e.new?.holder === claim.token)).toBe(false);
    } finally {
      await db.close();
    }
  });

  it('records a multi-row transaction with one xid, and a checkpoint as an update with equal images', async () => {
    const db = await openAuditedDb(env, referenceQueue);
    try {
      await db.enqueue(2);
      const w1 = await db.client('w1');
      const first = await transaction(w1, async () => [
        claimed(await referenceQueue.claim(w1, context('w1'))),
        claimed(await referenceQueue.claim(w1, context('w1'))),
      ]);
      expect(await referenceQueue.checkpoint!(w1, first[0]!, 'cursor-1', context('w1'))).toBe(true);
      const events = await readAuditEvents(await db.observer());
      const claims = events.filter((e) => e.new?.state === 'held' && e.old?.state === 'pending');
      expect(claims).toHaveLength(2);
      expect(claims[0]!.xid).toBe(claims[1]!.xid);
      const checkpoint = events.at(-1)!;
      expect(checkpoint.op).toBe('update');
      expect(checkpoint.old).toEqual(checkpoint.new);
      expect(checkpoint.new?.holder).toBe(first[0]!.token);
    } finally {
      await db.close();
    }
  });

  it('can be installed twice without recording a change twice', async () => {
    const db = await openAuditedDb(env, referenceQueue);
    try {
      await installAuditTrigger(db.setup, referenceQueue.audit);
      await db.enqueue(3);
      expect(await readAuditEvents(await db.observer())).toHaveLength(3);
    } finally {
      await db.close();
    }
  });
});

describe('the audit trigger on other queues', () => {
  it('records the DELETE of a queue that completes by deleting the row', async () => {
    const db = await openAuditedDb(env, deleteQueue);
    try {
      const [job] = await db.enqueue(1);
      const w1 = await db.client('w1');
      const claim = claimed(await deleteQueue.claim(w1, context('w1')));
      expect(await deleteQueue.ack(w1, claim, context('w1'))).toBe(true);
      const events = await readAuditEvents(await db.observer());
      expect(events.map((e) => e.op)).toEqual(['insert', 'update', 'delete']);
      const completion = events[2]!;
      expect(completion).toMatchObject({ job, app: 'w1', new: null });
      expect(completion.old).toEqual(events[1]!.new);
      expect(completion.old).toMatchObject({ holder: claim.token, state: 'held' });
    } finally {
      await db.close();
    }
  });

  it('records the example tiny queue (examples/tiny-queue.ts), a retried failure included', async () => {
    const tiny = await loadQueueAdapter('./examples/tiny-queue.ts');
    const db = await openAuditedDb(env, tiny);
    try {
      await db.enqueue(2);
      const w1 = await db.client('w1');
      const a = claimed(await tiny.claim(w1, context('w1')));
      const b = claimed(await tiny.claim(w1, context('w1')));
      expect(await tiny.ack(w1, a, context('w1'))).toBe(true);
      expect(await tiny.fail(w1, b, 'boom', context('w1'))).toBe(true);
      const events = await readAuditEvents(await db.observer());
      const states = (job: string) =>
        events.filter((e) => e.job === job).map((e) => `${e.old?.state}>${e.new?.state}`);
      expect(states(a.jobId)).toEqual(['undefined>pending', 'pending>held', 'held>completed']);
      // Its fail offers the job again while attempts remain (max 5): back to pending.
      expect(states(b.jobId)).toEqual(['undefined>pending', 'pending>held', 'held>pending']);
      const grant = events.find((e) => e.new?.holder === a.token)!;
      const row = await millis(w1, 'SELECT locked_until FROM tiny_jobs WHERE id = $1', [a.jobId]);
      expect(grant.new?.deadline).toBe(row);
    } finally {
      await db.close();
    }
  });
});

describe('a bad audit description', () => {
  const withExpressions = (
    expressions: Partial<QueueAdapter['audit']['expressions']>,
    table = referenceQueue.audit.table,
  ): QueueAdapter['audit'] => ({
    ...referenceQueue.audit,
    table,
    expressions: { ...referenceQueue.audit.expressions, ...expressions },
  });

  const installError = async (audit: QueueAdapter['audit']): Promise<unknown> => {
    const db = await openQueueDb(env, referenceQueue);
    try {
      return await installAuditTrigger(await db.client('setup'), audit).then(
        () => undefined,
        (error: unknown) => error,
      );
    } finally {
      await db.close();
    }
  };

  it('is refused with the table and the expression named: a missing column', async () => {
    const error = await installError(withExpressions({ state: 'r.lease_state' }));
    expect(error).toBeInstanceOf(AuditDescriptionError);
    const message = (error as Error).message;
    expect(message).toContain('leaseproof_jobs');
    expect(message).toContain('state expression `r.lease_state`');
    expect(message).toMatch(/column r\.lease_state does not exist/);
  });

  it('is refused when it prepares over the table but would fail in the trigger', async () => {
    // A set-returning expression is fine in a SELECT list; in the trigger's assignment it would
    // fail every statement of the queue.
    const error = await installError(withExpressions({ holder: 'generate_series(1, 2)::text' }));
    expect(error).toBeInstanceOf(AuditDescriptionError);
    expect((error as Error).message).toMatch(
      /the holder expression `generate_series\(1, 2\)::text` does not evaluate over the row r: .*more than one row/,
    );
  });

  it('is refused when the table does not exist', async () => {
    const error = await installError(withExpressions({}, 'no_such_jobs'));
    expect(error).toBeInstanceOf(AuditDescriptionError);
    expect((error as Error).message).toMatch(/table "no_such_jobs" does not exist/);
  });

  it('is refused when an expression is a second statement in disguise, and nothing runs', async () => {
    const db = await openQueueDb(env, referenceQueue);
    try {
      const setup = await db.client('setup');
      const sneaky = withExpressions({ jobId: 'r.id::text; DROP TABLE leaseproof_jobs; SELECT 1' });
      await expect(installAuditTrigger(setup, sneaky)).rejects.toThrow(
        /jobId expression .* does not evaluate/,
      );
      const { rows } = await setup.query<{ ok: boolean }>(
        "SELECT to_regclass('leaseproof_jobs') IS NOT NULL AS ok",
      );
      expect(rows[0]?.ok).toBe(true);
    } finally {
      await db.close();
    }
  });

  it('whose state expression yields a value outside LeaseState is caught when read', async () => {
    const db = await openQueueDb(env, referenceQueue);
    try {
      const setup = await db.client('setup');
      await installAuditTrigger(setup, withExpressions({ state: 'r.status' }));
      await referenceQueue.enqueue(setup, [{ payload: { units: [] } }]);
      await referenceQueue.claim(await db.client('w1'), context('w1'));
      const error: unknown = await readAuditEvents(setup).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuditDataError);
      expect((error as Error).message).toMatch(/row 2 \(job 1\): state "claimed" is not one of/);
    } finally {
      await db.close();
    }
  });

  it('has no audit to read when the trigger was never installed', async () => {
    const db = await openQueueDb(env, referenceQueue);
    try {
      await expect(readAuditEvents(await db.observer())).rejects.toThrow(
        /no leaseproof_audit table .* install the audit trigger/,
      );
    } finally {
      await db.close();
    }
  });
});

/**
 * A queue shaped like procrastinate: a job row says which worker holds it, and the worker's own
 * row keeps the lease alive (`last_heartbeat` + 1 s). Only setup and enqueue are used here.
 */
const livenessQueue: QueueAdapter = {
  name: 'liveness',
  description: 'A test queue whose lease lives in its workers’ heartbeat rows.',
  audit: {
    table: 'lv_jobs',
    expressions: {
      jobId: 'r.id::text',
      holder: "CASE WHEN r.status = 'doing' THEN r.worker_id::text END",
      deadline: `CASE WHEN r.status = 'doing' THEN (SELECT w.last_heartbeat FROM lv_workers w
        WHERE w.id = r.worker_id) + interval '1 second' END`,
      state:
        "CASE r.status WHEN 'doing' THEN 'held' WHEN 'done' THEN 'completed' ELSE 'pending' END",
    },
    completion: 'update',
    liveness: {
      table: 'lv_workers',
      holds: "r.worker_id = l.id AND r.status = 'doing'",
      deadline: "l.last_heartbeat + interval '1 second'",
    },
  },
  ...nativeOnlyPrimitives('liveness'),
  async setup(db) {
    await db.query(`CREATE TABLE lv_workers (id int PRIMARY KEY, last_heartbeat timestamptz NOT NULL);
      CREATE TABLE lv_jobs (id bigserial PRIMARY KEY, status text NOT NULL DEFAULT 'todo',
        worker_id int REFERENCES lv_workers(id) ON DELETE SET NULL)`);
  },
  async teardown(db) {
    await db.query('DROP TABLE IF EXISTS lv_jobs, lv_workers');
  },
  async enqueue(db, jobs) {
    const { rows } = await db.query<{ id: string }>(
      'INSERT INTO lv_jobs SELECT FROM generate_series(1, $1::int) RETURNING id::text AS id',
      [jobs.length],
    );
    return rows.map((r) => r.id);
  },
};

describe('the audit of a lease kept alive in another table (audit.liveness)', () => {
  it('records a heartbeat as an extension of every job its worker holds, and of no other', async () => {
    const db = await openAuditedDb(env, livenessQueue);
    try {
      const [job1, job2] = await db.enqueue(3);
      const w1 = await db.client('w1');
      const w2 = await db.client('w2');
      await db.setup.query('INSERT INTO lv_workers VALUES (1, now()), (2, now()), (3, now())');
      await w1.query("UPDATE lv_jobs SET status = 'doing', worker_id = 1 WHERE id = $1", [job1]);
      await w2.query("UPDATE lv_jobs SET status = 'doing', worker_id = 2 WHERE id = $1", [job2]);
      const observer = await db.observer();
      const before = await readAuditEvents(observer);
      await new Promise((r) => setTimeout(r, 20));
      await w1.query('UPDATE lv_workers SET last_heartbeat = now() WHERE id = 1');
      // Worker 3 holds nothing: its heartbeat extends nothing.
      await db.setup.query('UPDATE lv_workers SET last_heartbeat = now() WHERE id = 3');
      const after = (await readAuditEvents(observer)).slice(before.length);
      const granted = before.find((e) => e.job === job1 && e.app === 'w1')!.new!;
      const heartbeat = await millis(
        observer,
        "SELECT last_heartbeat + interval '1 second' FROM lv_workers WHERE id = 1",
      );
      expect(after.map(lease)).toEqual([
        {
          op: 'update',
          app: 'w1',
          old: granted,
          new: { holder: '1', deadline: heartbeat, state: 'held' },
        },
      ]);
      expect(after[0]!.job).toBe(job1);
      expect(after[0]!.liveness).toBe(true);
      expect(heartbeat!).toBeGreaterThan(granted.deadline!);
    } finally {
      await db.close();
    }
  });

  it('is refused with the expression named when it does not evaluate', async () => {
    const broken: QueueAdapter = {
      ...livenessQueue,
      audit: {
        ...livenessQueue.audit,
        liveness: { ...livenessQueue.audit.liveness!, deadline: 'l.no_such_column' },
      },
    };
    await expect(openAuditedDb(env, broken)).rejects.toThrow(
      /liveness deadline `l.no_such_column` does not evaluate over lv_jobs r and lv_workers l/,
    );
  });
});

/**
 * procrastinate's shape with its own work beside the run's in the same table: the stalled-job
 * recipe is a periodic task whose jobs are rows of the job table (`task = 'recipe'`).
 */
const periodicQueue: QueueAdapter = {
  ...livenessQueue,
  name: 'periodic',
  audit: { ...livenessQueue.audit, jobRows: "r.task = 'run'" },
  async setup(db) {
    await livenessQueue.setup(db);
    await db.query("ALTER TABLE lv_jobs ADD COLUMN task text NOT NULL DEFAULT 'run'");
  },
};

describe("the audit of a table that also holds the library's own work (audit.jobRows)", () => {
  it("records the run's jobs only: the periodic task's rows, its grant and heartbeats are not", async () => {
    const db = await openAuditedDb(env, periodicQueue);
    try {
      const [job] = await db.enqueue(1);
      const w1 = await db.client('w1');
      await db.setup.query('INSERT INTO lv_workers VALUES (1, now())');
      const { rows } = await w1.query<{ id: string }>(
        "INSERT INTO lv_jobs (task) VALUES ('recipe') RETURNING id::text AS id",
      );
      const recipe = rows[0]!.id;
      await w1.query("UPDATE lv_jobs SET status = 'doing', worker_id = 1 WHERE id IN ($1, $2)", [
        job,
        recipe,
      ]);
      await w1.query('UPDATE lv_workers SET last_heartbeat = now() WHERE id = 1');
      // The recipe's job puts the run's job back (procrastinate's retry_job), then finishes.
      await w1.query("UPDATE lv_jobs SET status = 'todo', worker_id = NULL WHERE id = $1", [job]);
      await w1.query("UPDATE lv_jobs SET status = 'done' WHERE id = $1", [recipe]);
      const events = await readAuditEvents(await db.observer());
      expect(new Set(events.map((e) => e.job))).toEqual(new Set([job]));
      expect(events.map((e) => [e.op, e.old?.state ?? null, e.new?.state ?? null])).toEqual([
        ['insert', null, 'pending'],
        ['update', 'pending', 'held'],
        ['update', 'held', 'held'],
        ['update', 'held', 'pending'],
      ]);
      // The drain waits for the run's job, not for the library's own.
      expect(await unfinishedJobs(db.setup, periodicQueue)).toBe(1);
      await db.setup.query("UPDATE lv_jobs SET status = 'todo' WHERE id = $1", [recipe]);
      expect(await unfinishedJobs(db.setup, periodicQueue)).toBe(1);
    } finally {
      await db.close();
    }
  });

  it('is refused with the condition named when it does not evaluate', async () => {
    const broken: QueueAdapter = {
      ...periodicQueue,
      audit: { ...periodicQueue.audit, jobRows: 'r.no_such_column' },
    };
    await expect(openAuditedDb(env, broken)).rejects.toThrow(
      /the jobRows condition `r.no_such_column` does not evaluate over the row r/,
    );
  });
});

/**
 * A queue shaped like River: no heartbeat, and a rescuer that runs inside whichever worker leads,
 * marking the rows it rescues (`rescues + 1`). Only setup and enqueue are used here.
 */
const rescuerQueue: QueueAdapter = {
  name: 'rescuer',
  description: 'A test queue whose own sweep runs inside a worker process.',
  audit: {
    table: 'rs_jobs',
    expressions: {
      jobId: 'r.id::text',
      holder: "CASE WHEN r.state = 'running' THEN r.attempt::text END",
      deadline: "CASE WHEN r.state = 'running' THEN r.attempted_at + interval '1 second' END",
      state:
        "CASE r.state WHEN 'running' THEN 'held' WHEN 'done' THEN 'completed' ELSE 'pending' END",
    },
    completion: 'update',
    sweep: 'r.rescues > o.rescues',
  },
  ...nativeOnlyPrimitives('rescuer'),
  async setup(db) {
    await db.query(`CREATE TABLE rs_jobs (id bigserial PRIMARY KEY, state text NOT NULL DEFAULT
      'available', attempt int NOT NULL DEFAULT 0, attempted_at timestamptz,
      rescues int NOT NULL DEFAULT 0)`);
  },
  async teardown(db) {
    await db.query('DROP TABLE IF EXISTS rs_jobs');
  },
  async enqueue(db, jobs) {
    const { rows } = await db.query<{ id: string }>(
      'INSERT INTO rs_jobs SELECT FROM generate_series(1, $1::int) RETURNING id::text AS id',
      [jobs.length],
    );
    return rows.map((r) => r.id);
  },
};

describe("the audit of a library's own sweep run inside a worker (audit.sweep)", () => {
  it('records the sweep\'s write as "<worker>:sweep", and the same worker\'s own writes as its own', async () => {
    const db = await openAuditedDb(env, rescuerQueue);
    try {
      const [job] = await db.enqueue(1);
      const w1 = await db.client('w1');
      const w2 = await db.client('w2');
      const fetch =
        "UPDATE rs_jobs SET state = 'running', attempt = attempt + 1, attempted_at = now() WHERE id = $1";
      await w1.query(fetch, [job]);
      // w2 leads: its rescuer returns w1's job; then w2 fetches it as a worker.
      await w2.query(
        "UPDATE rs_jobs SET state = 'retryable', rescues = rescues + 1 WHERE id = $1",
        [job],
      );
      await w2.query(fetch, [job]);
      const events = await readAuditEvents(await db.observer());
      expect(events.map((e) => [e.op, e.app, e.old?.state, e.new?.state])).toEqual([
        ['insert', 'setup', undefined, 'pending'],
        ['update', 'w1', 'pending', 'held'],
        ['update', 'w2:sweep', 'held', 'pending'],
        ['update', 'w2', 'pending', 'held'],
      ]);
    } finally {
      await db.close();
    }
  });

  it('is refused with the condition named when it does not evaluate', async () => {
    const broken = { ...rescuerQueue, audit: { ...rescuerQueue.audit, sweep: 'r.no_such > 0' } };
    await expect(openAuditedDb(env, broken)).rejects.toThrow(
      /rs_jobs: the sweep condition `r.no_such > 0` does not evaluate over the rows o and r/,
    );
  });
});
