import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { referenceQueue } from '../../src/queue/reference-queue.js';
import {
  extendFromClaimTimeQueue,
  failByIdQueue,
  fenceWithoutDeadlineQueue,
  leaseInSecondsQueue,
  mainThreadHeartbeatQueue,
  noWatchdogQueue,
  reclaimIgnoresStateQueue,
  retryOnWorkerClockQueue,
  reusedTokenQueue,
  unconditionalAckQueue,
  watchdogBetweenJobsQueue,
  shutdownStopsHeartbeatQueue,
  ackAfterCancelQueue,
  workerClockLeaseQueue,
} from '../../src/queue/known-bad-queues.js';
import type { ExtendingQueueAdapter, QueueContext, SqlClient } from '../../src/queue/types.js';
import { granted, useEnvironment } from './lease-semantics.js';
import {
  LEASE,
  context,
  withQueueDb,
  outlive,
  readLease,
  transaction,
  withLease,
} from './queue-db.js';

const HOUR = 3_600_000;
const env = useEnvironment();

/** Runs `fn` with a fresh database set up for `q`, closed afterwards. */
const withQueue = <T>(
  q: ExtendingQueueAdapter,
  fn: (client: (workerId: string) => Promise<pg.Client>) => Promise<T>,
): Promise<T> => withQueueDb(env(), q, fn);

describe('each variant differs from the reference in one respect only', () => {
  interface Statement {
    op: string;
    sql: string;
    result: unknown;
  }

  // The same benign sequence of calls, recording every statement the adapter sends.
  async function statementsOf(q: ExtendingQueueAdapter): Promise<Statement[]> {
    return withQueue(q, async (client) => {
      const pgClient = await client('worker-a');
      const log: Statement[] = [];
      let op = '';
      const db: SqlClient = {
        query: (sql, params) => {
          log.push({ op, sql, result: undefined });
          return pgClient.query(sql, params);
        },
      };
      const ctx: QueueContext = context('worker-a', { workerNow: () => Date.now() });
      const step = async <T>(name: string, call: () => Promise<T>): Promise<T> => {
        op = name;
        const result = await call();
        log[log.length - 1]!.result = typeof result === 'boolean' ? result : typeof result;
        return result;
      };
      await step('teardown', () => q.teardown(db));
      await step('setup', () => q.setup(db));
      await step('enqueue', () =>
        q.enqueue(db, [{ payload: {} }, { payload: {}, maxAttempts: 1 }]),
      );
      const first = granted(await step('claim', () => q.claim(db, ctx)));
      await step('extend', () => q.extend(db, first, ctx));
      await step('checkpoint', () => q.checkpoint!(db, first, 'c', ctx));
      await step('ack', () => q.ack(db, first, ctx));
      const second = granted(await step('claim', () => q.claim(db, ctx)));
      await step('fail', () => q.fail(db, second, 'e', ctx));
      return log;
    });
  }

  it.each([
    { variant: unconditionalAckQueue, sqlDiffers: ['ack'], worker: undefined },
    { variant: workerClockLeaseQueue, sqlDiffers: ['claim', 'extend'], worker: undefined },
    { variant: mainThreadHeartbeatQueue, sqlDiffers: [], worker: { heartbeat: 'event-loop' } },
    { variant: noWatchdogQueue, sqlDiffers: [], worker: { watchdog: false } },
    {
      variant: fenceWithoutDeadlineQueue,
      sqlDiffers: ['extend', 'checkpoint', 'ack', 'fail'],
      worker: undefined,
    },
    { variant: reusedTokenQueue, sqlDiffers: ['claim'], worker: undefined },
    { variant: reclaimIgnoresStateQueue, sqlDiffers: ['claim'], worker: undefined },
    { variant: extendFromClaimTimeQueue, sqlDiffers: ['extend'], worker: undefined },
    { variant: leaseInSecondsQueue, sqlDiffers: ['claim', 'extend'], worker: undefined },
    { variant: failByIdQueue, sqlDiffers: ['fail'], worker: undefined },
    { variant: retryOnWorkerClockQueue, sqlDiffers: ['fail'], worker: undefined },
    { variant: watchdogBetweenJobsQueue, sqlDiffers: [], worker: { watchdog: 'between-jobs' } },
    // Differs only on the ack of a handler its worker cancelled (see its own test below).
    { variant: ackAfterCancelQueue, sqlDiffers: [], worker: undefined },
    {
      variant: shutdownStopsHeartbeatQueue,
      sqlDiffers: [],
      worker: { shutdown: 'stops-heartbeat' },
    },
    // select-then-update sends one statement more per claim: its own test shows the race.
  ])('$variant.name', async ({ variant, sqlDiffers, worker }) => {
    const reference = await statementsOf(referenceQueue);
    const statements = await statementsOf(variant);
    expect(statements.map((s) => s.op)).toEqual(reference.map((s) => s.op));
    // On a sequence where nothing goes wrong, every variant answers as the reference does.
    expect(statements.map((s) => s.result)).toEqual(reference.map((s) => s.result));
    const differs = statements.filter((s, i) => s.sql !== reference[i]!.sql).map((s) => s.op);
    expect([...new Set(differs)]).toEqual(sqlDiffers);
    expect(variant.audit).toEqual(referenceQueue.audit);
    expect(variant.worker).toEqual(worker);
    expect(referenceQueue.worker).toBeUndefined();
    expect(variant.name).not.toBe(referenceQueue.name);
  });
});

describe('unconditional-ack commits the stale acks the reference rejects', () => {
  it.each([
    { q: referenceQueue, staleAck: false, stateAfterStaleAck: 'held' },
    { q: unconditionalAckQueue, staleAck: true, stateAfterStaleAck: 'completed' },
  ])(
    '$q.name: ack of a claim replaced by another worker',
    async ({ q, staleAck, stateAfterStaleAck }) => {
      await withQueue(q, async (client) => {
        const [c1, c2, observer] = await Promise.all(
          ['worker-a', 'worker-b', 'observer'].map(client),
        );
        const a = context('worker-a');
        const b = withLease(context('worker-b'), 10_000);
        await q.enqueue(c1!, [{ payload: {} }]);
        const stale = granted(await q.claim(c1!, a));
        await outlive(LEASE.durationMs);
        const current = granted(await q.claim(c2!, b));

        expect(await q.ack(c1!, stale, a)).toBe(staleAck);
        const lease = await readLease(observer!, q, stale.jobId);
        expect(lease.state).toBe(stateAfterStaleAck);
        // The reference's row still shows worker-b's claim; the bad queue's row is done while
        // worker-b is still working under a claim it believes it holds.
        // Worker-b's own ack then commits in both, which for the bad queue is a second completion.
        expect(await q.ack(c2!, current, b)).toBe(true);
        expect((await readLease(observer!, q, stale.jobId)).state).toBe('completed');
      });
    },
  );

  it.each([
    { q: referenceQueue, committed: false, state: 'held' },
    { q: unconditionalAckQueue, committed: true, state: 'completed' },
  ])('$q.name: ack of an expired claim nobody reclaimed', async ({ q, committed, state }) => {
    await withQueue(q, async (client) => {
      const c1 = await client('worker-a');
      const a = context('worker-a');
      await q.enqueue(c1, [{ payload: {} }]);
      const claim = granted(await q.claim(c1, a));
      await outlive(LEASE.durationMs);
      expect(await q.ack(c1, claim, a)).toBe(committed);
      expect((await readLease(await client('observer'), q, claim.jobId)).state).toBe(state);
    });
  });
});

describe('ack-after-cancel acks by job id only what its worker had cancelled', () => {
  it.each([
    { cancelled: false, committed: false, state: 'held' },
    { cancelled: true, committed: true, state: 'completed' },
  ])(
    'the ack of an expired claim, the handler cancelled: $cancelled',
    async ({ cancelled, committed, state }) => {
      const q = ackAfterCancelQueue;
      await withQueue(q, async (client) => {
        const c1 = await client('worker-a');
        const a = context('worker-a');
        await q.enqueue(c1, [{ payload: {} }]);
        const claim = granted(await q.claim(c1, a));
        await outlive(LEASE.durationMs);
        const ctx = cancelled ? { ...a, handlerCancelled: true } : a;
        expect(await q.ack(c1, claim, ctx)).toBe(committed);
        expect((await readLease(await client('observer'), q, claim.jobId)).state).toBe(state);
      });
    },
  );
});

describe('worker-clock-lease moves deadlines with the worker clock; the reference does not', () => {
  const skewed = (skewMs: number): QueueContext =>
    context('worker-a', { workerNow: () => Date.now() + skewMs });

  // Claims in a transaction and returns deadline − now() as the server computes it.
  async function grantedLease(q: ExtendingQueueAdapter, ctx: QueueContext): Promise<number> {
    return withQueue(q, async (client) => {
      const c1 = await client('worker-a');
      await q.enqueue(c1, [{ payload: {} }]);
      return transaction(c1, async () => {
        const claim = granted(await q.claim(c1, ctx));
        return (await readLease(c1, q, claim.jobId)).leftMs!;
      });
    });
  }

  it.each([+HOUR, -HOUR])('skew %i ms', async (skewMs) => {
    // The same host's clocks: the controller's Date and the server agree within a few ms.
    const bad = await grantedLease(workerClockLeaseQueue, skewed(skewMs));
    expect(Math.abs(bad - (LEASE.durationMs + skewMs))).toBeLessThan(250);
    expect(await grantedLease(referenceQueue, skewed(skewMs))).toBeCloseTo(LEASE.durationMs, 3);
    // context() without overrides throws from workerNow: the reference never asked for it.
    expect(await grantedLease(referenceQueue, context('worker-a'))).toBeCloseTo(
      LEASE.durationMs,
      3,
    );
  });

  it('extends by the worker clock too', async () => {
    const q = workerClockLeaseQueue;
    await withQueue(q, async (client) => {
      const c1 = await client('worker-a');
      const ctx = skewed(HOUR);
      await q.enqueue(c1, [{ payload: {} }]);
      const claim = granted(await q.claim(c1, ctx));
      const leftMs = await transaction(c1, async () => {
        expect(await q.extend(c1, claim, ctx)).toBe(true);
        return (await readLease(c1, q, claim.jobId)).leftMs!;
      });
      expect(Math.abs(leftMs - (LEASE.extendByMs + HOUR))).toBeLessThan(250);
    });
  });

  it.each([
    { q: referenceQueue, regranted: false },
    { q: workerClockLeaseQueue, regranted: true },
  ])('$q.name: a worker 1 h behind loses its claim at once', async ({ q, regranted }) => {
    await withQueue(q, async (client) => {
      const [c1, c2] = await Promise.all([client('worker-a'), client('worker-b')]);
      await q.enqueue(c1, [{ payload: {} }]);
      const behind = context('worker-a', { workerNow: () => Date.now() - HOUR });
      const first = granted(await q.claim(c1, withLease(behind, 10_000)));
      const second = await q.claim(c2, context('worker-b', { workerNow: () => Date.now() }));
      expect(second?.jobId).toBe(regranted ? first.jobId : undefined);
    });
  });
});
