/**
 * The lease semantics every correct queue shares, checked against the database through the
 * adapter's audit description (never through what the adapter returns alone). The reference
 * queue and the example tiny queue both run this suite; a known-bad variant would fail it.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import type { Claim, ExtendingQueueAdapter } from '../../src/queue/types.js';
import { within } from '../support/pg.js';
import {
  LEASE,
  context,
  openQueueDb,
  outlive,
  readLease,
  transaction,
  withLease,
  type QueueDb,
} from './queue-db.js';

/** Starts one embedded environment for the file; returns a getter for it. */
export function useEnvironment(): () => StartedEnvironment {
  let env: StartedEnvironment | undefined;
  beforeAll(async () => {
    env = await new EmbeddedEnvironmentProvider().start();
  });
  afterAll(async () => {
    await env?.stop();
  });
  return () => {
    if (env === undefined) throw new Error('the environment did not start');
    return env;
  };
}

/** A fresh database per test with the adapter set up; returns a getter for it. */
export function useQueueDb(
  env: () => StartedEnvironment,
  adapter: () => ExtendingQueueAdapter,
): () => QueueDb {
  let queue: QueueDb | undefined;
  beforeEach(async () => {
    queue = await openQueueDb(env(), adapter());
  });
  afterEach(async () => {
    await queue?.close();
    queue = undefined;
  });
  return () => {
    if (queue === undefined) throw new Error('no queue database');
    return queue;
  };
}

/** Claims and asserts that a claim was granted. */
export function granted(claim: Claim | undefined): Claim {
  expect(claim, 'a claim was expected to be granted').toBeDefined();
  return claim!;
}

/** Defines the shared lease-semantics tests for `adapter` (call inside a `describe`). */
export function leaseSemantics(
  env: () => StartedEnvironment,
  adapter: () => ExtendingQueueAdapter,
): void {
  const queue = useQueueDb(env, adapter);
  const a = context('worker-a');
  const b = context('worker-b');
  const job = { payload: { units: 1 } };

  it('grants a claim whose deadline is the server now() + lease, to the microsecond', async () => {
    const q = adapter();
    const c1 = await queue().client('worker-a');
    const [id] = await q.enqueue(c1, [job]);
    const { claim, lease } = await transaction(c1, async () => {
      const claim = granted(await q.claim(c1, a));
      return { claim, lease: await readLease(c1, q, claim.jobId) };
    });
    expect(claim).toMatchObject({ jobId: id, attempt: 1, payload: job.payload });
    expect(lease.state).toBe('held');
    expect(lease.holder).toBe(claim.token);
    expect(lease.leftMs).toBeCloseTo(LEASE.durationMs, 3);
  });

  it('never grants one job to two concurrent claims, and a locked row does not block (SKIP LOCKED)', async () => {
    const q = adapter();
    const c1 = await queue().client('worker-a');
    const c2 = await queue().client('worker-b');
    const ids = await q.enqueue(c1, [job, job]);
    await c1.query('BEGIN');
    // worker-a's claim holds its row lock until COMMIT; worker-b must skip it, not wait.
    const first = granted(await q.claim(c1, a));
    const second = await within(q.claim(c2, b), 2_000);
    await c1.query('COMMIT');
    expect(second.done, 'the second claim waited for the first one’s row lock').toBe(true);
    const secondClaim = granted(second.done ? second.value : undefined);
    expect([first.jobId, secondClaim.jobId].sort()).toEqual([...ids].sort());
  });

  it('grants each of 30 jobs to exactly one of 6 workers claiming at once', async () => {
    const q = adapter();
    const workers = ['w1', 'w2', 'w3', 'w4', 'w5', 'w6'];
    const clients = await Promise.all(workers.map((w) => queue().client(w)));
    const ids = await q.enqueue(
      clients[0]!,
      Array.from({ length: 30 }, () => job),
    );
    const long = (w: string) => withLease(context(w), 60_000);
    const claimed = await Promise.all(
      clients.map(async (client, i) => {
        const mine: string[] = [];
        for (;;) {
          const claim = await q.claim(client, long(workers[i]!));
          if (claim === undefined) return mine;
          mine.push(claim.jobId);
        }
      }),
    );
    const all = claimed.flat();
    expect(all.length, 'a job was granted twice').toBe(new Set(all).size);
    expect([...all].sort()).toEqual([...ids].sort());
  });

  it('does not grant a job whose lease has not expired', async () => {
    const q = adapter();
    const c1 = await queue().client('worker-a');
    const c2 = await queue().client('worker-b');
    await q.enqueue(c1, [job]);
    const claim = granted(await q.claim(c1, withLease(a, 10_000)));
    expect(await q.claim(c2, b)).toBeUndefined();
    const lease = await readLease(await queue().observer(), q, claim.jobId);
    expect(lease).toMatchObject({ state: 'held', holder: claim.token });
  });

  it('re-grants an expired claim with a new token and the next attempt', async () => {
    const q = adapter();
    const c1 = await queue().client('worker-a');
    const c2 = await queue().client('worker-b');
    await q.enqueue(c1, [job]);
    const first = granted(await q.claim(c1, a));
    await outlive(LEASE.durationMs);
    const second = granted(await q.claim(c2, b));
    expect(second.jobId).toBe(first.jobId);
    expect(second.token).not.toBe(first.token);
    expect(second.attempt).toBe(first.attempt + 1);
    const lease = await readLease(await queue().observer(), q, first.jobId);
    expect(lease).toMatchObject({ state: 'held', holder: second.token });
  });

  it('extends a held claim to the server now() + extendBy', async () => {
    const q = adapter();
    const c1 = await queue().client('worker-a');
    await q.enqueue(c1, [job]);
    const claim = granted(await q.claim(c1, a));
    const before = await readLease(c1, q, claim.jobId);
    const { extended, lease } = await transaction(c1, async () => {
      const extended = await q.extend(c1, claim, a);
      return { extended, lease: await readLease(c1, q, claim.jobId) };
    });
    expect(extended).toBe(true);
    expect(lease.holder).toBe(claim.token);
    expect(lease.leftMs).toBeCloseTo(LEASE.extendByMs, 3);
    expect(lease.deadline!.getTime()).toBeGreaterThan(before.deadline!.getTime());
  });

  it('refuses to extend an expired claim even when nobody has reclaimed the job (strict)', async () => {
    const q = adapter();
    const c1 = await queue().client('worker-a');
    await q.enqueue(c1, [job]);
    const claim = granted(await q.claim(c1, a));
    const before = await readLease(c1, q, claim.jobId);
    await outlive(LEASE.durationMs);
    expect(await q.extend(c1, claim, a)).toBe(false);
    const after = await readLease(await queue().observer(), q, claim.jobId);
    expect(after.deadline).toEqual(before.deadline);
    expect(after.leftMs!).toBeLessThan(0);
  });

  it('refuses to extend with a stale token after the job was reclaimed', async () => {
    const q = adapter();
    const c1 = await queue().client('worker-a');
    const c2 = await queue().client('worker-b');
    await q.enqueue(c1, [job]);
    const stale = granted(await q.claim(c1, a));
    await outlive(LEASE.durationMs);
    const current = granted(await q.claim(c2, withLease(b, 10_000)));
    const before = await readLease(c2, q, current.jobId);
    expect(await q.extend(c1, stale, a)).toBe(false);
    const after = await readLease(await queue().observer(), q, current.jobId);
    expect(after).toEqual({ ...before, leftMs: after.leftMs });
    expect(after.holder).toBe(current.token);
  });

  it('commits an ack while the claim is held, and the job is not granted again', async () => {
    const q = adapter();
    const c1 = await queue().client('worker-a');
    await q.enqueue(c1, [job]);
    const claim = granted(await q.claim(c1, a));
    expect(await q.ack(c1, claim, a)).toBe(true);
    const lease = await readLease(await queue().observer(), q, claim.jobId);
    expect(lease.state).toBe('completed');
    await outlive(LEASE.durationMs);
    expect(await q.claim(c1, a)).toBeUndefined();
  });

  it('rejects the ack of an expired claim that nobody reclaimed (strict), leaving the job claimable', async () => {
    const q = adapter();
    const c1 = await queue().client('worker-a');
    const c2 = await queue().client('worker-b');
    await q.enqueue(c1, [job]);
    const claim = granted(await q.claim(c1, a));
    await outlive(LEASE.durationMs);
    expect(await q.ack(c1, claim, a)).toBe(false);
    const lease = await readLease(await queue().observer(), q, claim.jobId);
    expect(lease).toMatchObject({ state: 'held', holder: claim.token });
    expect(granted(await q.claim(c2, b)).attempt).toBe(2);
  });

  it("rejects a stale holder's ack after a reclaim; the new holder's ack commits", async () => {
    const q = adapter();
    const c1 = await queue().client('worker-a');
    const c2 = await queue().client('worker-b');
    await q.enqueue(c1, [job]);
    const stale = granted(await q.claim(c1, a));
    await outlive(LEASE.durationMs);
    const current = granted(await q.claim(c2, b));
    expect(await q.ack(c1, stale, a)).toBe(false);
    const observer = await queue().observer();
    expect(await readLease(observer, q, stale.jobId)).toMatchObject({
      state: 'held',
      holder: current.token,
    });
    expect(await q.ack(c2, current, b)).toBe(true);
    expect((await readLease(observer, q, stale.jobId)).state).toBe('completed');
  });

  it('commits a fail while held and rejects one from a lost claim', async () => {
    const q = adapter();
    const c1 = await queue().client('worker-a');
    const c2 = await queue().client('worker-b');
    const [held, lost] = await q.enqueue(c1, [job, job]);
    const observer = await queue().observer();

    const first = granted(await q.claim(c1, withLease(a, 10_000)));
    expect(first.jobId).toBe(held);
    // Both claimed before the fail: a queue that retries at once would hand the failed job out
    // again to the next claim.
    const expiring = granted(await q.claim(c2, b));
    expect(expiring.jobId).toBe(lost);
    expect(await q.fail(c1, first, 'handler threw', a)).toBe(true);
    expect((await readLease(observer, q, held!)).state).not.toBe('held');

    await outlive(LEASE.durationMs);
    expect(await q.fail(c2, expiring, 'too late', b)).toBe(false);
    expect(await readLease(observer, q, lost!)).toMatchObject({
      state: 'held',
      holder: expiring.token,
    });
  });

  it('writes a checkpoint while held, rejects it once lost, and the next claim resumes from it', async (ctx) => {
    const q = adapter();
    if (q.checkpoint === undefined) return ctx.skip('this queue has no checkpoint');
    const c1 = await queue().client('worker-a');
    const c2 = await queue().client('worker-b');
    await q.enqueue(c1, [job]);
    const claim = granted(await q.claim(c1, a));
    expect(claim.cursor ?? null).toBeNull();
    expect(await q.checkpoint(c1, claim, 'unit-3', a)).toBe(true);
    await outlive(LEASE.durationMs);
    expect(await q.checkpoint(c1, claim, 'unit-4', a)).toBe(false);
    const next = granted(await q.claim(c2, b));
    expect(next.cursor).toBe('unit-3');
  });
}
