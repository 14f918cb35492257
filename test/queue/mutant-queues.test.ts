/**
 * Each known-bad variant's bug, shown on a real database with the adapter's own SQL, next to the
 * reference doing the same calls right. These are the one-line wrong queues of the mutation
 * matrix: if a variant stopped being wrong here, its row in `leaseproof mutants` would mean
 * nothing.
 */
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { referenceQueue } from '../../src/queue/reference-queue.js';
import {
  KNOWN_BAD_VARIANTS,
  extendFromClaimTimeQueue,
  failByIdQueue,
  fenceWithoutDeadlineQueue,
  leaseInSecondsQueue,
  reclaimIgnoresStateQueue,
  retryOnWorkerClockQueue,
  reusedTokenQueue,
  selectThenUpdateQueue,
  unlockedClaimQueue,
} from '../../src/queue/known-bad-queues.js';
import { CHECKER_NAMES } from '../../src/checker/index.js';
import { builtInQueue } from '../../src/libraries/registry.js';
import type { ExtendingQueueAdapter, SqlClient } from '../../src/queue/types.js';
import { granted, useEnvironment } from './lease-semantics.js';
import { LEASE, context, withQueueDb, outlive, readLease, transaction } from './queue-db.js';

const HOUR = 3_600_000;
const env = useEnvironment();

/** Runs `fn` with a fresh database set up for `q`, closed afterwards. */
const withQueue = <T>(
  q: ExtendingQueueAdapter,
  fn: (client: (workerId: string) => Promise<pg.Client>) => Promise<T>,
): Promise<T> => withQueueDb(env(), q, fn);

describe('the catalogue', () => {
  it('names, for every variant, a real checker and a built-in queue', () => {
    expect(KNOWN_BAD_VARIANTS.length).toBeGreaterThanOrEqual(12);
    for (const v of KNOWN_BAD_VARIANTS) {
      expect(CHECKER_NAMES).toContain(v.catches);
      expect(builtInQueue(v.queue.name)).toBe(v.queue);
      expect(v.queue.audit).toEqual(referenceQueue.audit);
    }
    expect(new Set(KNOWN_BAD_VARIANTS.map((v) => v.queue.name)).size).toBe(
      KNOWN_BAD_VARIANTS.length,
    );
  });
});

describe('fence-without-deadline: an expired claim nobody re-claimed can still write', () => {
  it.each([
    { q: referenceQueue, commits: false },
    { q: fenceWithoutDeadlineQueue, commits: true },
  ])('$q.name', async ({ q, commits }) => {
    await withQueue(q, async (client) => {
      const c = await client('worker-a');
      const a = context('worker-a');
      await q.enqueue(c, [{ payload: {} }]);
      const claim = granted(await q.claim(c, a));
      await outlive(LEASE.durationMs);
      expect(await q.extend(c, claim, a)).toBe(commits);
      await outlive(LEASE.extendByMs);
      expect(await q.checkpoint!(c, claim, 'x', a)).toBe(commits);
      expect(await q.ack(c, claim, a)).toBe(commits);
      const state = (await readLease(await client('observer'), q, claim.jobId)).state;
      expect(state).toBe(commits ? 'completed' : 'held');
    });
  });
});

describe('reused-token: a re-claim keeps the token, so the stale holder passes the fence', () => {
  it.each([
    { q: referenceQueue, sameToken: false },
    { q: reusedTokenQueue, sameToken: true },
  ])('$q.name', async ({ q, sameToken }) => {
    await withQueue(q, async (client) => {
      const [ca, cb] = await Promise.all([client('worker-a'), client('worker-b')]);
      const a = context('worker-a');
      await q.enqueue(ca, [{ payload: {} }]);
      const stale = granted(await q.claim(ca, a));
      await outlive(LEASE.durationMs);
      const current = granted(await q.claim(cb, context('worker-b')));
      expect(current.jobId).toBe(stale.jobId);
      expect(current.token === stale.token).toBe(sameToken);
      expect(await q.ack(ca, stale, a)).toBe(sameToken);
    });
  });
});

describe('reclaim-ignores-state: a completed job whose old deadline passed is claimed again', () => {
  it.each([
    { q: referenceQueue, reclaimed: false },
    { q: reclaimIgnoresStateQueue, reclaimed: true },
  ])('$q.name', async ({ q, reclaimed }) => {
    await withQueue(q, async (client) => {
      const c = await client('worker-a');
      const a = context('worker-a');
      await q.enqueue(c, [{ payload: {} }]);
      const claim = granted(await q.claim(c, a));
      expect(await q.ack(c, claim, a)).toBe(true);
      await outlive(LEASE.durationMs);
      const again = await q.claim(c, a);
      expect(again?.jobId).toBe(reclaimed ? claim.jobId : undefined);
    });
  });
});

/**
 * One job; worker a claims through `through(a's connection, gate)`, which holds a's claim at the
 * gate; worker b claims while a is held; then the gate opens. The job ids a and b took.
 */
async function raceClaims(
  q: ExtendingQueueAdapter,
  through: (ca: pg.Client, gate: Promise<void>) => SqlClient,
): Promise<string[]> {
  return withQueue(q, async (client) => {
    const [ca, cb] = await Promise.all([client('worker-a'), client('worker-b')]);
    await q.enqueue(ca, [{ payload: {} }]);
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const claimA = q.claim(through(ca, gate), context('worker-a'));
    // a reaches its gate, then b claims (and finishes, or waits on a) before the gate opens.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const claimB = q.claim(cb, context('worker-b'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    open();
    return (await Promise.all([claimA, claimB])).filter((c) => c !== undefined).map((c) => c.jobId);
  });
}

describe('select-then-update: two workers that look at once both take the job', () => {
  // Worker a's statements wait at a gate after its first one (the claim's SELECT, or the whole
  // one-statement claim), so worker b's claim runs in between: the interleaving a race produces.
  it.each([
    { q: referenceQueue, bothHold: false },
    { q: selectThenUpdateQueue, bothHold: true },
  ])('$q.name', async ({ q, bothHold }) => {
    const holders = await raceClaims(q, (ca, gate) => {
      let statements = 0;
      return {
        query: async (sql, params) => {
          statements += 1;
          if (statements > 1) await gate;
          return ca.query(sql, params);
        },
      };
    });
    expect(holders).toEqual(bothHold ? ['1', '1'] : ['1']);
  });
});

describe('unlocked-claim: two claims in flight at once both take the job', () => {
  // Worker a's claim runs in a transaction left open (its row lock held) while worker b's claim
  // starts; then a commits. b found the same row, waited for a's lock, and — the row re-checked
  // on the id alone — takes the job too. With FOR UPDATE SKIP LOCKED, b skips the locked row.
  it.each([
    { q: referenceQueue, bothHold: false },
    { q: unlockedClaimQueue, bothHold: true },
  ])('$q.name', async ({ q, bothHold }) => {
    const holders = await raceClaims(q, (ca, gate) => ({
      query: async (sql, params) => {
        await ca.query('BEGIN');
        const result = await ca.query(sql, params);
        await gate;
        await ca.query('COMMIT');
        return result;
      },
    }));
    expect(holders).toEqual(bothHold ? ['1', '1'] : ['1']);
  });
});

describe('extend-from-claim-time: an extension does not move the deadline past the first lease', () => {
  it.each([
    { q: referenceQueue, movesTo: 'now + extendBy' },
    { q: extendFromClaimTimeQueue, movesTo: 'claim + extendBy' },
  ])('$q.name', async ({ q, movesTo }) => {
    await withQueue(q, async (client) => {
      const c = await client('worker-a');
      const a = context('worker-a');
      await q.enqueue(c, [{ payload: {} }]);
      const claim = granted(await q.claim(c, a));
      await new Promise((resolve) => setTimeout(resolve, 150));
      const leftMs = await transaction(c, async () => {
        expect(await q.extend(c, claim, a)).toBe(true);
        return (await readLease(c, q, claim.jobId)).leftMs!;
      });
      if (movesTo === 'now + extendBy') expect(leftMs).toBeCloseTo(LEASE.extendByMs, 3);
      else expect(leftMs).toBeLessThan(LEASE.extendByMs - 140);
    });
  });
});

describe('lease-in-seconds: milliseconds read as seconds', () => {
  it.each([
    { q: referenceQueue, leaseMs: LEASE.durationMs },
    { q: leaseInSecondsQueue, leaseMs: LEASE.durationMs * 1000 },
  ])('$q.name grants $leaseMs ms', async ({ q, leaseMs }) => {
    await withQueue(q, async (client) => {
      const c = await client('worker-a');
      await q.enqueue(c, [{ payload: {} }]);
      const leftMs = await transaction(c, async () => {
        const claim = granted(await q.claim(c, context('worker-a')));
        return (await readLease(c, q, claim.jobId)).leftMs!;
      });
      expect(leftMs).toBeCloseTo(leaseMs, 3);
    });
  });
});

describe('fail-by-id: the late fail of a lost claim re-opens a job another worker completed', () => {
  it.each([
    { q: referenceQueue, reopened: false },
    { q: failByIdQueue, reopened: true },
  ])('$q.name', async ({ q, reopened }) => {
    await withQueue(q, async (client) => {
      const [ca, cb] = await Promise.all([client('worker-a'), client('worker-b')]);
      const a = context('worker-a');
      await q.enqueue(ca, [{ payload: {} }]);
      const stale = granted(await q.claim(ca, a));
      await outlive(LEASE.durationMs);
      const b = context('worker-b');
      const current = granted(await q.claim(cb, b));
      expect(await q.ack(cb, current, b)).toBe(true);
      expect(await q.fail(ca, stale, 'late error', a)).toBe(reopened);
      const state = (await readLease(await client('observer'), q, stale.jobId)).state;
      expect(state).toBe(reopened ? 'pending' : 'completed');
    });
  });
});

describe("retry-on-worker-clock: a retry is scheduled on the failing worker's Date", () => {
  it.each([
    { q: referenceQueue, retried: true },
    { q: retryOnWorkerClockQueue, retried: false },
  ])('$q.name, worker clock 1 h ahead', async ({ q, retried }) => {
    await withQueue(q, async (client) => {
      const c = await client('worker-a');
      const ahead = context('worker-a', { workerNow: () => Date.now() + HOUR });
      await q.enqueue(c, [{ payload: {} }]);
      const claim = granted(await q.claim(c, ahead));
      expect(await q.fail(c, claim, 'transient', ahead)).toBe(true);
      // The reference's first backoff is 100 ms on the server's clock.
      await outlive(100);
      const again = await q.claim(c, ahead);
      expect(again?.jobId).toBe(retried ? claim.jobId : undefined);
    });
  });
});
