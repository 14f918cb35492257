import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { createReferenceQueue, referenceQueue } from '../../src/queue/reference-queue.js';
import { REFERENCE_TABLE } from '../../src/queue/reference-schema.js';
import { granted, leaseSemantics, useEnvironment, useQueueDb } from './lease-semantics.js';
import { LEASE, context, outlive, transaction, withLease } from './queue-db.js';

// The row as the table has it, with the backoff left until available_at measured by the server.
async function jobRow(client: pg.Client, id: string) {
  const { rows } = await client.query<{
    status: string;
    attempts: number;
    max_attempts: number;
    claimed_by: string | null;
    claim_token: string | null;
    last_error: string | null;
    cursor: string | null;
    payload: unknown;
    wait_ms: string;
  }>(
    `SELECT *, extract(epoch FROM available_at - now()) * 1000 AS wait_ms
     FROM ${REFERENCE_TABLE} WHERE id = $1::bigint`,
    [id],
  );
  const row = rows[0];
  if (row === undefined) throw new Error(`job ${id} is missing`);
  return { ...row, waitMs: Number(row.wait_ms) };
}

const env = useEnvironment();

describe('the reference queue: shared lease semantics', () => {
  leaseSemantics(env, () => referenceQueue);
});

describe('the reference queue: its own table', () => {
  const queue = useQueueDb(env, () => referenceQueue);
  const q = referenceQueue;
  const a = context('worker-a');

  it('enqueues in input order with the default of 5 attempts, and records who claimed', async () => {
    const c1 = await queue().client('worker-a');
    const ids = await q.enqueue(c1, [
      { payload: { n: 1 } },
      { payload: { n: 2 }, maxAttempts: 2 },
      { payload: { n: 3 } },
    ]);
    const rows = await Promise.all(ids.map((id) => jobRow(c1, id)));
    expect(rows.map((r) => [r.payload, r.max_attempts, r.status])).toEqual([
      [{ n: 1 }, 5, 'pending'],
      [{ n: 2 }, 2, 'pending'],
      [{ n: 3 }, 5, 'pending'],
    ]);
    const claim = granted(await q.claim(c1, a));
    expect(claim.jobId).toBe(ids[0]);
    expect(await jobRow(c1, claim.jobId)).toMatchObject({
      status: 'claimed',
      attempts: 1,
      claimed_by: 'worker-a',
      claim_token: claim.token,
    });
    expect(await q.enqueue(c1, [])).toEqual([]);
  });

  it('retries a failed attempt after a backoff computed in SQL, then dead-letters', async () => {
    const c1 = await queue().client('worker-a');
    const [id] = await q.enqueue(c1, [{ payload: {}, maxAttempts: 3 }]);
    const failInTx = (claim: Parameters<typeof q.fail>[1], error: string) =>
      transaction(c1, async () => ({
        ok: await q.fail(c1, claim, error, a),
        row: await jobRow(c1, id!),
      }));

    const first = granted(await q.claim(c1, a));
    const afterFirst = await failInTx(first, 'boom 1');
    expect(afterFirst.ok).toBe(true);
    expect(afterFirst.row).toMatchObject({ status: 'pending', last_error: 'boom 1' });
    expect(afterFirst.row.waitMs).toBeCloseTo(100, 3); // base · 2^0
    expect(await q.claim(c1, a), 'claimed during its backoff').toBeUndefined();
    await outlive(100);

    const second = granted(await q.claim(c1, a));
    expect(second.attempt).toBe(2);
    const afterSecond = await failInTx(second, 'boom 2');
    expect(afterSecond.row.waitMs).toBeCloseTo(200, 3); // base · 2^1
    await outlive(200);

    const third = granted(await q.claim(c1, a));
    expect(third.attempt).toBe(3);
    const afterThird = await failInTx(third, 'boom 3');
    expect(afterThird.ok).toBe(true);
    expect(afterThird.row).toMatchObject({ status: 'dead', last_error: 'boom 3', attempts: 3 });
    await outlive(400);
    expect(await q.claim(c1, a), 'a dead job was claimed').toBeUndefined();
  });

  it('caps the backoff', async () => {
    const capped = createReferenceQueue({ retry: { baseMs: 100, capMs: 150 } });
    const c1 = await queue().client('worker-a');
    const [id] = await capped.enqueue(c1, [{ payload: {} }]);
    await capped.fail(c1, granted(await capped.claim(c1, a)), 'x', a);
    await outlive(100);
    const second = granted(await capped.claim(c1, a));
    const row = await transaction(c1, async () => {
      await capped.fail(c1, second, 'y', a);
      return jobRow(c1, id!);
    });
    expect(row.waitMs).toBeCloseTo(150, 3);
  });

  it('does not change a row on a rejected fail', async () => {
    const c1 = await queue().client('worker-a');
    const [id] = await q.enqueue(c1, [{ payload: {}, maxAttempts: 1 }]);
    const claim = granted(await q.claim(c1, a));
    await outlive(LEASE.durationMs);
    const before = await jobRow(c1, id!);
    expect(await q.fail(c1, claim, 'late', a)).toBe(false);
    const after = await jobRow(c1, id!);
    expect({ ...after, waitMs: 0, wait_ms: '' }).toEqual({ ...before, waitMs: 0, wait_ms: '' });
    expect(after.status).toBe('claimed');
  });

  it('keeps the checkpointed cursor in the table and hands it to the next claim', async () => {
    const c1 = await queue().client('worker-a');
    const c2 = await queue().client('worker-b');
    const [id] = await q.enqueue(c1, [{ payload: {} }]);
    const claim = granted(await q.claim(c1, a));
    expect(await q.checkpoint!(c1, claim, 'row-1000', a)).toBe(true);
    expect((await jobRow(c1, id!)).cursor).toBe('row-1000');
    await outlive(LEASE.durationMs);
    expect(await q.checkpoint!(c1, claim, 'row-2000', a)).toBe(false);
    expect((await jobRow(c1, id!)).cursor).toBe('row-1000');
    const next = granted(await q.claim(c2, withLease(context('worker-b'), 10_000)));
    expect(next).toMatchObject({ jobId: id, attempt: 2, cursor: 'row-1000' });
  });
});
