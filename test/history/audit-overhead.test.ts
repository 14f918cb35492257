import { afterAll, beforeAll, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { referenceQueue } from '../../src/queue/reference-queue.js';
import { context, openQueueDb, type QueueDb } from '../queue/queue-db.js';
import { openAuditedDb } from './support/audited-db.js';

let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

const CLAIMS = 1_000;
const BATCH = 50;

/** Claims `count` jobs one after another on `db`; returns each claim's time in ms. */
async function claimTimes(db: QueueDb, count: number): Promise<number[]> {
  const client = await db.client('w1');
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const start = performance.now();
    const claim = await referenceQueue.claim(client, context('w1'));
    times.push(performance.now() - start);
    if (claim === undefined) throw new Error('ran out of jobs');
  }
  return times;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

it(`the audit trigger does not make ${CLAIMS} reference claims much slower`, async () => {
  const plain = await openQueueDb(env, referenceQueue);
  const audited = await openAuditedDb(env, referenceQueue);
  try {
    const jobs = Array.from({ length: CLAIMS + BATCH }, () => ({ payload: { units: [] } }));
    await referenceQueue.enqueue(await plain.client('setup'), jobs);
    await referenceQueue.enqueue(audited.setup, jobs);
    // Warm both connections (plans, catalog caches) before timing.
    await claimTimes(plain, BATCH);
    await claimTimes(audited, BATCH);
    // Interleaved batches, so that whatever else the machine does falls on both alike.
    const without: number[] = [];
    const withAudit: number[] = [];
    for (let done = 0; done < CLAIMS; done += BATCH) {
      without.push(...(await claimTimes(plain, BATCH)));
      withAudit.push(...(await claimTimes(audited, BATCH)));
    }
    const figures = {
      claims: CLAIMS,
      withoutMedianMs: median(without),
      withMedianMs: median(withAudit),
      withoutMeanMs: mean(without),
      withMeanMs: mean(withAudit),
    };
    console.log(`audit trigger overhead: ${JSON.stringify(figures)}`);
    const { rows } = await audited.setup.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM leaseproof_audit',
    );
    // Every insert and every claim, warm-up included, is on record.
    expect(rows[0]?.n).toBe(2 * CLAIMS + 2 * BATCH);
    // Generous, for a busy two-core machine: the trigger adds well under a millisecond.
    expect(figures.withMedianMs - figures.withoutMedianMs).toBeLessThan(
      Math.max(0.5, figures.withoutMedianMs * 0.5),
    );
  } finally {
    await plain.close();
    await audited.close();
  }
});
