/**
 * The contract a queue's primitives must keep, checked one call at a time on a fresh database
 * with no faults: the conformance test any queue implementation can run before a suite — a
 * TypeScript adapter or a program in another language behind the primitives protocol. Each
 * check is a plain statement with what was seen; a failed one names the call and the rows.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { loadQueueAdapter } from '../libraries/load-adapter.js';
import type { RunDatabase, StartedEnvironment } from '../env/types.js';
import { describeError } from '../errors.js';
import { readAuditEvents } from '../history/audit-reader.js';
import { prepareAuditedQueue } from '../history/audited-queue.js';
import type { AuditEvent } from '../history/types.js';
import { MAINTENANCE_APP } from '../pool/maintenance-loop.js';
import type { Claim, LeaseSettings, QueueAdapter, QueueContext } from '../queue/types.js';
import { isNativeOnly } from '../queue/native-only.js';
import { settleQueueTerms } from '../scenario/queue-terms.js';

/** One statement of the contract and whether the queue kept it. */
export interface ConformanceCheck {
  /** What is checked, as a sentence. */
  name: string;
  /** `pass`, `fail`, or `skip` (the queue lacks the operation, or an earlier check failed). */
  outcome: 'pass' | 'fail' | 'skip';
  /** What was seen (on a failure: what was expected instead). */
  detail: string;
}

/** The conformance of one queue. */
export interface ConformanceReport {
  /** The queue as given (`--queue`). */
  queue: string;
  /** The queue's own name. */
  name?: string;
  /** Every check, in order. */
  checks: ConformanceCheck[];
  /** True when no check failed. */
  passed: boolean;
}

/** The lease the checks use: short, so that an expiry is waited out in a second. */
export const CONFORMANCE_LEASE: LeaseSettings = {
  durationMs: 600,
  heartbeatMs: 150,
  extendByMs: 600,
  pollMs: 20,
};

class CheckFailed extends Error {}

function expectThat(condition: boolean, detail: string): void {
  if (!condition) throw new CheckFailed(detail);
}

/**
 * Checks `queue` (a built-in name or an adapter path) against the primitives contract in a fresh
 * database of `env`, which it drops afterwards. Never throws for what the queue does: a call that
 * throws is a failed check with the error.
 */
export async function checkPrimitives(
  env: StartedEnvironment,
  queue: string,
): Promise<ConformanceReport> {
  const checks: ConformanceCheck[] = [];
  const report = (): ConformanceReport => ({
    queue,
    ...(adapter !== undefined && { name: adapter.name }),
    checks,
    passed: checks.every((c) => c.outcome !== 'fail'),
  });
  let adapter: QueueAdapter | undefined;
  let blocked: string | undefined;
  const check = async (name: string, body: () => Promise<string>, needs = true): Promise<void> => {
    if (blocked !== undefined) {
      checks.push({ name, outcome: 'skip', detail: `not run: ${blocked}` });
      return;
    }
    if (!needs) return;
    try {
      checks.push({ name, outcome: 'pass', detail: await body() });
    } catch (error) {
      const detail =
        error instanceof CheckFailed ? error.message : `threw: ${describeError(error)}`;
      checks.push({ name, outcome: 'fail', detail });
    }
  };
  const skip = (name: string, why: string) => checks.push({ name, outcome: 'skip', detail: why });

  await check('the queue loads and describes itself', async () => {
    adapter = await loadQueueAdapter(queue);
    return `"${adapter.name}": ${adapter.description}`;
  });
  if (adapter === undefined) return report();
  if (isNativeOnly(adapter)) {
    // A native-only queue refuses primitives by design (nativeOnlyPrimitives): nothing to check.
    checks.push({
      name: 'the primitives contract',
      outcome: 'skip',
      detail:
        `"${adapter.name}" runs only in native mode (its library's own worker loop): it exposes ` +
        'no primitives; check its worker with `leaseproof conform --worker`',
    });
    return report();
  }
  const q = adapter;
  const { lease } = settleQueueTerms(q, CONFORMANCE_LEASE);
  const database = await env.createDatabase();
  const clients: pg.Client[] = [];
  try {
    const client = async (app: string): Promise<pg.Client> => {
      const c = new pg.Client({ connectionString: database.url, application_name: app });
      await c.connect();
      clients.push(c);
      return c;
    };
    const ctx = (workerId: string): QueueContext => ({
      workerId,
      lease,
      workerNow: () => Date.now(),
      databaseUrl: database.url,
    });
    const reader = await client('leaseproof-conformance');
    const audit = async (job: string): Promise<AuditEvent[]> =>
      (await readAuditEvents(reader)).filter((e) => e.job === job);
    const w = { w1: await client('w1'), w2: await client('w2'), w3: await client('w3') };
    let ids: string[] = [];
    await check('setup and enqueue: three jobs, three distinct ids', async () => {
      ids = await prepareAuditedQueue(
        database,
        q,
        [1, 2, 3].map((n) => ({ payload: { n } })),
        {
          lease,
        },
      );
      expectThat(
        ids.length === 3 && new Set(ids).size === 3,
        `enqueue returned ${JSON.stringify(ids)}`,
      );
      return `ids ${ids.join(', ')}`;
    });
    if (ids.length !== 3) blocked = 'enqueue failed';

    let a: Claim | undefined;
    let b: Claim | undefined;
    await check(
      'claim grants a pending job to its caller, under a lease of the run’s length',
      async () => {
        a = await q.claim(w.w1, ctx('w1'));
        expectThat(a !== undefined, 'claim returned nothing with three jobs pending');
        const claim = a!;
        expectThat(ids.includes(claim.jobId), `claimed job ${claim.jobId}, not one enqueued`);
        expectThat(claim.attempt === 1 && claim.token !== '', `claim ${JSON.stringify(claim)}`);
        const grant = (await audit(claim.jobId)).findLast((e) => e.new?.state === 'held');
        expectThat(grant !== undefined, 'the audit recorded no grant (state held) for it');
        expectThat(
          grant!.app === 'w1',
          `the grant was written by "${grant!.app}", not by w1's connection`,
        );
        const granted = grant!.new!.deadline! - grant!.stmtT;
        expectThat(
          Math.abs(granted - lease.durationMs) <= Math.max(50, lease.durationMs * 0.1),
          `the deadline is ${granted.toFixed(0)} ms after the grant's statement; the lease is ${lease.durationMs} ms`,
        );
        if (q.backendPid !== undefined && grant!.pid !== undefined) {
          expectThat(
            q.backendPid() === grant!.pid,
            `backendPid() said ${String(q.backendPid())}, the grant came from ${grant!.pid}`,
          );
        }
        return `job ${claim.jobId}, token ${claim.token}, deadline +${granted.toFixed(0)} ms (database clock)`;
      },
    );
    if (a === undefined) blocked ??= 'the first claim failed';

    await check(
      'claims are exclusive: a second worker gets another job and another token',
      async () => {
        b = await q.claim(w.w2, ctx('w2'));
        expectThat(b !== undefined, 'claim returned nothing with two jobs pending');
        expectThat(b!.jobId !== a!.jobId, `w2 got job ${b!.jobId}, which w1 holds`);
        expectThat(b!.token !== a!.token, 'both claims have the same token');
        return `job ${b!.jobId}`;
      },
    );
    if (b === undefined) blocked ??= 'the second claim failed';

    if (q.extend === undefined) {
      skip('extend moves the deadline while held', 'the queue has no extend (no heartbeat)');
    } else {
      const extend = q.extend.bind(q);
      await check('extend moves the deadline while held', async () => {
        const before = (await audit(a!.jobId)).findLast((e) => e.new?.state === 'held')!.new!
          .deadline!;
        await sleep(50);
        const held = await extend(w.w1, a!, ctx('w1'));
        expectThat(held, 'extend returned false for a claim held well within its lease');
        const after = (await audit(a!.jobId)).findLast((e) => e.new?.state === 'held')!.new!
          .deadline!;
        expectThat(after > before, 'the audit shows no later deadline after it');
        return `deadline moved by ${(after - before).toFixed(0)} ms`;
      });
    }

    await check('ack commits while held, written by the holder', async () => {
      expectThat(
        await q.ack(w.w1, a!, ctx('w1')),
        'ack returned false for a claim held within its lease',
      );
      const done = (await audit(a!.jobId)).at(-1);
      const completed =
        q.audit.completion === 'delete' ? done?.op === 'delete' : done?.new?.state === 'completed';
      expectThat(
        completed && done?.app === 'w1',
        `the job's last audit row is ${JSON.stringify(done)}`,
      );
      return `job ${a!.jobId} completed by w1`;
    });

    let retried: Claim | undefined;
    // Claims granted to w3 while it waits for the retry (the third job, offered first by a queue
    // whose retries wait out a backoff): held, to let one of them expire below.
    const others: Claim[] = [];
    await check(
      'fail commits while held, and a queue with retries offers the job again',
      async () => {
        expectThat(
          await q.fail(w.w2, b!, 'conformance: planned failure', ctx('w2')),
          'fail returned false for a held claim',
        );
        if (q.retries === false) return 'no retries declared: the job stays failed';
        // A retry may be scheduled after a backoff: keep claiming for a while.
        const until = Date.now() + 10_000;
        while (retried === undefined && Date.now() < until) {
          const next = await q.claim(w.w3, ctx('w3'));
          if (next?.jobId === b!.jobId) retried = next;
          else if (next !== undefined) others.push(next);
          else await sleep(100);
        }
        expectThat(retried !== undefined, `job ${b!.jobId} was not offered again within 10 s`);
        expectThat(
          retried!.attempt === 2 && retried!.token !== b!.token,
          `the retry's claim is ${JSON.stringify(retried)}`,
        );
        return `job ${b!.jobId} claimed again: attempt 2, a new token`;
      },
    );

    let stale: Claim | undefined;
    let fresh: Claim | undefined;
    await check('an expired claim is offered again, under a new token', async () => {
      const heldByW3 = [...(retried ? [retried] : []), ...others];
      if (heldByW3.length === 0) {
        const next = await q.claim(w.w3, ctx('w3'));
        if (next !== undefined) heldByW3.push(next);
      }
      expectThat(heldByW3.length > 0, 'nothing left to claim');
      await sleep(lease.durationMs + 200);
      if (q.maintenance !== undefined) {
        await q.maintenance.run(await client(MAINTENANCE_APP), {
          lease,
          databaseUrl: database.url,
          applicationName: MAINTENANCE_APP,
        });
      }
      const until = Date.now() + 5_000;
      while (fresh === undefined && Date.now() < until) {
        const next = await q.claim(w.w1, ctx('w1'));
        stale = heldByW3.find((c) => c.jobId === next?.jobId);
        if (stale !== undefined) fresh = next;
        else await sleep(100);
      }
      expectThat(
        fresh !== undefined && stale !== undefined,
        `none of w3's jobs (${heldByW3.map((c) => c.jobId).join(', ')}) was offered again within 5 s of its lease running out`,
      );
      expectThat(fresh!.token !== stale!.token, "the new claim has the expired one's token");
      return `job ${stale!.jobId} re-claimed by w1 after w3's lease ran out`;
    });
    if (fresh === undefined) blocked ??= 'no job was re-claimed after an expiry';

    if (q.extend === undefined) {
      skip('extend by the expired holder is refused', 'the queue has no extend');
    } else {
      const extend = q.extend.bind(q);
      await check('extend by the expired holder is refused, and writes nothing', async () => {
        const before = (await audit(stale!.jobId)).length;
        expectThat(
          !(await extend(w.w3, stale!, ctx('w3'))),
          'extend returned true for a claim another worker holds now',
        );
        const after = await audit(stale!.jobId);
        expectThat(after.length === before, `it wrote ${JSON.stringify(after.slice(before))}`);
        return 'refused';
      });
    }
    await check('ack by the expired holder is refused, and writes nothing', async () => {
      const before = (await audit(stale!.jobId)).length;
      expectThat(
        !(await q.ack(w.w3, stale!, ctx('w3'))),
        'ack returned true for a claim another worker holds now',
      );
      const after = await audit(stale!.jobId);
      expectThat(after.length === before, `it wrote ${JSON.stringify(after.slice(before))}`);
      return 'refused';
    });
    await check("the new holder's ack commits", async () => {
      expectThat(await q.ack(w.w1, fresh!, ctx('w1')), 'ack returned false');
      return `job ${fresh!.jobId} completed by w1`;
    });
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    await dropQuietly(database);
  }
  return report();
}

async function dropQuietly(database: RunDatabase): Promise<void> {
  await database.drop().catch(() => undefined);
}
