import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GRAPHILE_WORKER,
  graphileWorkerQueue,
  GRAPHILE_SCHEMA,
} from '../../src/libraries/graphile-worker/adapter.js';
import {
  rescaleResetLocked,
  rescaleRetryDelay,
} from '../../src/libraries/graphile-worker/terms.js';
import { libraryVersion } from '../../src/libraries/load-library.js';
import { pgBossQueue } from '../../src/libraries/pg-boss/adapter.js';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { RunDatabase, StartedEnvironment } from '../../src/env/types.js';
import { readAuditEvents } from '../../src/history/audit-reader.js';
import { prepareAuditedQueue } from '../../src/history/audited-queue.js';
import { MAINTENANCE_APP } from '../../src/pool/maintenance-loop.js';
import { AdapterError } from '../../src/queue/adapter-error.js';
import type { Claim, LeaseSettings, QueueAdapter, QueueContext } from '../../src/queue/types.js';
import { settleQueueTerms } from '../../src/scenario/queue-terms.js';

// Each library's primitives, one statement at a time on connections named like workers: what
// the adapter reports, and what the audit trigger records of it. No faults, no worker processes:
// the lease mechanics themselves.
let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

const REQUESTED: LeaseSettings = { durationMs: 400, heartbeatMs: 100, extendByMs: 400, pollMs: 20 };

interface Bench {
  database: RunDatabase;
  lease: LeaseSettings;
  ids: string[];
  client(app: string): Promise<pg.Client>;
  ctx(workerId: string): QueueContext;
  close(): Promise<void>;
}

async function bench(adapter: QueueAdapter, jobs = 1): Promise<Bench> {
  const database = await env.createDatabase();
  const { lease } = settleQueueTerms(adapter, REQUESTED);
  const specs = Array.from({ length: jobs }, (_, n) => ({ payload: { n } }));
  const ids = await prepareAuditedQueue(database, adapter, specs, { lease });
  const clients: pg.Client[] = [];
  return {
    database,
    lease,
    ids,
    async client(app) {
      const c = new pg.Client({ connectionString: database.url, application_name: app });
      await c.connect();
      clients.push(c);
      return c;
    },
    ctx: (workerId) => ({
      workerId,
      lease,
      workerNow: () => {
        throw new Error('a library adapter must not read the worker clock');
      },
    }),
    async close() {
      await Promise.all(clients.map((c) => c.end()));
      await database.drop();
    },
  };
}

function granted(claim: Claim | undefined): Claim {
  if (claim === undefined) throw new Error('expected a claim');
  return claim;
}

/** The audit rows of one job as `op app old→new`, states only. */
async function trail(b: Bench, job: string): Promise<string[]> {
  const c = await b.client('reader');
  return (await readAuditEvents(c))
    .filter((e) => e.job === job)
    .map((e) => `${e.op} ${e.app} ${e.old?.state ?? '-'}→${e.new?.state ?? '-'}`);
}

describe('pg-boss primitives', () => {
  it('claims with a deadline of statement time + the rounded lease, acks once, names claims by retry_count', async () => {
    const b = await bench(pgBossQueue);
    try {
      expect(b.lease.durationMs).toBe(1_000);
      const w1 = await b.client('w1');
      const claim = granted(await pgBossQueue.claim(w1, b.ctx('w1')));
      expect(claim).toMatchObject({ jobId: b.ids[0], token: `${b.ids[0]}#0`, attempt: 1 });
      const { rows } = await w1.query<{ left: number }>(
        `SELECT extract(epoch FROM (started_on + expire_in) - started_on) * 1000 AS left
           FROM pgboss.job WHERE id = $1`,
        [claim.jobId],
      );
      expect(Number(rows[0]?.left)).toBe(1_000);
      expect(await pgBossQueue.ack(w1, claim, b.ctx('w1'))).toBe(true);
      expect(await pgBossQueue.ack(w1, claim, b.ctx('w1'))).toBe(false);
      expect(await trail(b, claim.jobId)).toEqual([
        'insert leaseproof-controller -→pending',
        'update w1 pending→held',
        'update w1 held→completed',
      ]);
    } finally {
      await b.close();
    }
  });

  it("expire() releases a claim past its deadline; complete() is by id, so the stale holder's ack completes the job under the next claim", async () => {
    const b = await bench(pgBossQueue);
    try {
      const w1 = await b.client('w1');
      const w2 = await b.client('w2');
      const sweeper = await b.client(MAINTENANCE_APP);
      const first = granted(await pgBossQueue.claim(w1, b.ctx('w1')));
      // Before the deadline the sweep leaves it; after, pg-boss's own expire() moves it to retry.
      await pgBossQueue.maintenance!.run(sweeper, { lease: b.lease });
      expect(await pgBossQueue.claim(w2, b.ctx('w2'))).toBeUndefined();
      await sleep(b.lease.durationMs + 100);
      expect(await pgBossQueue.claim(w2, b.ctx('w2'))).toBeUndefined();
      await pgBossQueue.maintenance!.run(sweeper, { lease: b.lease });
      const second = granted(await pgBossQueue.claim(w2, b.ctx('w2')));
      expect(second).toMatchObject({ token: `${first.jobId}#1`, attempt: 2 });
      expect(await pgBossQueue.ack(w1, first, b.ctx('w1'))).toBe(true);
      expect(await pgBossQueue.ack(w2, second, b.ctx('w2'))).toBe(false);
      expect(await trail(b, first.jobId)).toEqual([
        'insert leaseproof-controller -→pending',
        'update w1 pending→held',
        // failJobsByTimeout's DELETE + re-INSERT, read as the one update it is.
        `update ${MAINTENANCE_APP} held→pending`,
        'update w2 pending→held',
        'update w1 held→completed',
      ]);
    } finally {
      await b.close();
    }
  });

  it('fail() sends a job to retry, and to dead (pg-boss failed) once its retries are spent', async () => {
    const b = await bench(pgBossQueue);
    try {
      const w1 = await b.client('w1');
      for (let attempt = 1; attempt <= 3; attempt += 1) {
        const claim = granted(await pgBossQueue.claim(w1, b.ctx('w1')));
        expect(claim.attempt).toBe(attempt);
        expect(await pgBossQueue.fail(w1, claim, `boom ${attempt}`, b.ctx('w1'))).toBe(true);
        await sleep(20);
      }
      expect(await pgBossQueue.claim(w1, b.ctx('w1'))).toBeUndefined();
      expect((await trail(b, b.ids[0]!)).slice(-2)).toEqual([
        'update w1 pending→held',
        'update w1 held→dead',
      ]);
    } finally {
      await b.close();
    }
  });
});

describe('graphile-worker primitives', () => {
  it('claims with deadline = locked_at + the rescaled lock timeout; completion is a DELETE', async () => {
    const b = await bench(graphileWorkerQueue);
    try {
      expect(b.lease.durationMs).toBe(400);
      const w1 = await b.client('w1');
      const claim = granted(await graphileWorkerQueue.claim(w1, b.ctx('w1')));
      expect(claim).toMatchObject({ jobId: b.ids[0], token: `${b.ids[0]}#1`, attempt: 1 });
      expect(await graphileWorkerQueue.ack(w1, claim, b.ctx('w1'))).toBe(true);
      expect(await graphileWorkerQueue.ack(w1, claim, b.ctx('w1'))).toBe(false);
      const events = await readAuditEvents(await b.client('reader'));
      const grant = events.find((e) => e.new?.state === 'held');
      // locked_at is now(): the transaction's time, so the deadline is exactly it + the lease.
      expect((grant?.new?.deadline ?? 0) - (grant?.txnT ?? 0)).toBeCloseTo(400, 3);
      expect(await trail(b, claim.jobId)).toEqual([
        'insert leaseproof-controller -→pending',
        'update w1 pending→held',
        'delete w1 held→-',
      ]);
    } finally {
      await b.close();
    }
  });

  it('frees an expired lock only through resetLockedAt with its 4 hours rescaled; the stale delete still commits', async () => {
    const b = await bench(graphileWorkerQueue);
    try {
      const w1 = await b.client('w1');
      const w2 = await b.client('w2');
      const sweeper = await b.client(MAINTENANCE_APP);
      const first = granted(await graphileWorkerQueue.claim(w1, b.ctx('w1')));
      await sleep(b.lease.durationMs + 100);
      // The claim predicate never looks at the lock's age: only the sweep frees it.
      expect(await graphileWorkerQueue.claim(w2, b.ctx('w2'))).toBeUndefined();
      await graphileWorkerQueue.maintenance!.run(sweeper, { lease: b.lease });
      const second = granted(await graphileWorkerQueue.claim(w2, b.ctx('w2')));
      expect(second).toMatchObject({ token: `${first.jobId}#2`, attempt: 2 });
      // graphile-worker's completeJobs deletes by id whoever holds the lock.
      expect(await graphileWorkerQueue.ack(w1, first, b.ctx('w1'))).toBe(true);
      expect(await graphileWorkerQueue.ack(w2, second, b.ctx('w2'))).toBe(false);
      expect(await trail(b, first.jobId)).toEqual([
        'insert leaseproof-controller -→pending',
        'update w1 pending→held',
        `update ${MAINTENANCE_APP} held→pending`,
        'update w2 pending→held',
        'delete w1 held→-',
      ]);
    } finally {
      await b.close();
    }
  });

  it("fails a job for a retry after exp(attempts) × the run's second, not exp(attempts) seconds", async () => {
    const b = await bench(graphileWorkerQueue);
    try {
      const w1 = await b.client('w1');
      const claim = granted(await graphileWorkerQueue.claim(w1, b.ctx('w1')));
      expect(await graphileWorkerQueue.fail(w1, claim, 'planned', b.ctx('w1'))).toBe(true);
      const reader = await b.client('reader');
      const { rows } = await reader.query<{ delay_ms: number }>(
        `SELECT extract(epoch FROM run_at - now()) * 1000 AS delay_ms FROM ${GRAPHILE_SCHEMA}._private_jobs`,
      );
      // 400 ms is 4 hours: k = 1/36000, so e¹ s is 0.076 ms — due by the time it is read. At
      // graphile-worker's scale (2.7 s, seven lock timeouts' worth of this run) it would not be.
      expect(Number(rows[0]?.delay_ms)).toBeLessThan(1);
      expect(granted(await graphileWorkerQueue.claim(w1, b.ctx('w1'))).attempt).toBe(2);
    } finally {
      await b.close();
    }
  });

  it('rescales exactly the two lock timeouts of resetLockedAt, and refuses a statement without them', () => {
    const rewrite = rescaleResetLocked(REQUESTED.durationMs);
    expect(rewrite("a < now() - interval '4 hours' and b < now() - interval '4 hours'")).toBe(
      "a < now() - interval '400 milliseconds' and b < now() - interval '400 milliseconds'",
    );
    expect(() => rewrite("a < now() - interval '1 day'")).toThrow(AdapterError);
    expect(() => rewrite("a < now() - interval '1 day'")).toThrow(
      /holds interval '4 hours' 0 time\(s\), not 2; leaseproof cannot compress it/,
    );
  });

  it("compresses failJobs' retry backoff by the run's factor, and refuses a statement without it", () => {
    const rewrite = rescaleRetryDelay(1_000 / 14_400);
    expect(
      rewrite(
        "run_at = greatest(now(), run_at) + (exp(least(attempts, 10)) * interval '1 second'),",
      ),
    ).toBe(
      "run_at = greatest(now(), run_at) + (exp(least(attempts, 10)) * interval '0.069 milliseconds'),",
    );
    expect(() => rewrite("run_at = now() + interval '1 second'")).toThrow(
      /its failJobs statement holds exp\(least\(attempts, 10\)\) \* interval '1 second' 0 time\(s\), not 1/,
    );
  });
});

describe('a library that is not installed', () => {
  it('is an AdapterError that says what to install', () => {
    const spec = { ...GRAPHILE_WORKER, name: 'no-such-queue-library-xyz' };
    expect(() => libraryVersion(spec)).toThrow(AdapterError);
    expect(() => libraryVersion(spec)).toThrow(
      /drives the no-such-queue-library-xyz package, which is not installed here: npm install --save-dev no-such-queue-library-xyz@\^0\.17\.0/,
    );
  });
});
