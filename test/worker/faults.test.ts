import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { waitForDrain } from '../../src/pool/queue-database.js';
import type { ReceivedEvent } from '../../src/pool/worker-process.js';
import type { WorkerEvent } from '../../src/worker/types.js';
import { startQueueRun, units, type QueueRun } from '../support/queue-run.js';
import { processTable } from '../support/processes.js';
import { TRANSITIONS_SQL, type Transition } from '../support/transitions.js';

let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

const LEASE = { durationMs: 1_000, heartbeatMs: 200, extendByMs: 1_000, pollMs: 50 };

type Of<K extends WorkerEvent['kind']> = ReceivedEvent & { event: WorkerEvent & { kind: K } };
const eventsOf = <K extends WorkerEvent['kind']>(
  run: QueueRun,
  workerId: string,
  kind: K,
): Of<K>[] => run.pool.worker(workerId).events.filter((e): e is Of<K> => e.event.kind === kind);

/** Waits for the first claim of the run; returns the claiming worker's id and its token. */
async function firstClaim(
  run: QueueRun,
): Promise<{ holder: string; other: string; token: string }> {
  const claim = await Promise.any(
    run.pool.workers.map((w) => w.waitFor((e) => e.kind === 'claim' && e.outcome === 'ok', 10_000)),
  );
  const holder = claim.workerId;
  const other = run.pool.workers.find((w) => w.workerId !== holder)?.workerId ?? '';
  const token = claim.event.kind === 'claim' ? (claim.event.token ?? '') : '';
  return { holder, other, token };
}

const transitions = (run: QueueRun): Promise<Transition[]> =>
  run.sql<Transition>('SELECT * FROM test_transitions ORDER BY seq');

describe('a worker blackholed past its lease', () => {
  it('has its handler aborted by the watchdog within one heartbeat period, and another worker completes the job', async () => {
    await using run = await startQueueRun(env, {
      queue: 'reference',
      workers: 2,
      lease: LEASE,
      plans: [units(30, 100)],
      beforeStart: TRANSITIONS_SQL,
    });
    const { holder, other, token } = await firstClaim(run);
    const a = run.pool.worker(holder);
    await a.waitFor((e) => e.kind === 'unit' && e.unit === 3, 5_000);
    const proxy = run.pool.proxy(holder);
    for (const stream of ['upstream', 'downstream'] as const) {
      await proxy.addToxic({
        name: `blackhole-${stream}`,
        type: 'timeout',
        stream,
        attributes: { timeout: 0 },
      });
    }
    const lost = await a.waitFor((e) => e.kind === 'lost' && e.token === token, 5_000);
    const abort = await a.waitFor((e) => e.kind === 'abort' && e.token === token, 5_000);
    await waitForDrain(run.database, run.adapter, 15_000);
    await proxy.heal();

    // The watchdog: aborted at the next unit boundary, within one heartbeat period of the loss.
    expect(abort.event.at - lost.event.at).toBeLessThanOrEqual(LEASE.heartbeatMs);
    // No effect of the lost claim after the abort…
    const effectsAfter = eventsOf(run, holder, 'effect').filter(
      (e) => e.event.token === token && e.event.at > abort.event.at,
    );
    expect(effectsAfter).toEqual([]);
    // …and no ack from it.
    expect(eventsOf(run, holder, 'ack').filter((e) => e.event.token === token)).toEqual([]);

    // The database says: the other worker claimed it after expiry and completed it.
    const rows = await transitions(run);
    const completions = rows.filter((t) => t.new_status === 'completed');
    expect(completions).toHaveLength(1);
    expect(completions[0]?.app).toBe(other);
    expect(completions[0]?.old_token).not.toBe(token);
    const reclaim = rows.find(
      (t) => t.app === other && t.new_status === 'claimed' && t.old_token === token,
    );
    expect(reclaim).toBeDefined();
    const [job] = await run.sql<{ attempts: number; claimed_by: string }>(
      'SELECT attempts, claimed_by FROM leaseproof_jobs',
    );
    expect(job).toEqual({ attempts: 2, claimed_by: other });
  });

  it('without a watchdog (no-watchdog) keeps performing effects after the loss, and its late ack is rejected', async () => {
    await using run = await startQueueRun(env, {
      queue: 'no-watchdog',
      workers: 2,
      lease: LEASE,
      plans: [units(25, 100)],
      beforeStart: TRANSITIONS_SQL,
    });
    const { holder, other, token } = await firstClaim(run);
    const a = run.pool.worker(holder);
    await a.waitFor((e) => e.kind === 'unit' && e.unit === 3, 5_000);
    const proxy = run.pool.proxy(holder);
    await proxy.addToxic({
      name: 'blackhole',
      type: 'timeout',
      stream: 'upstream',
      attributes: { timeout: 0 },
    });
    const lost = await a.waitFor((e) => e.kind === 'lost' && e.token === token, 5_000);
    await sleep(300);
    // Healed before the handler ends, so that its ack reaches the database and is judged there.
    await proxy.heal();
    await a.waitFor((e) => e.kind === 'ack' && e.phase === 'complete' && e.token === token, 10_000);
    await waitForDrain(run.database, run.adapter, 15_000);

    const effectsAfterLoss = eventsOf(run, holder, 'effect').filter(
      (e) => e.event.token === token && e.event.at > lost.event.at + LEASE.heartbeatMs + 100,
    );
    expect(effectsAfterLoss.length).toBeGreaterThan(5);
    const recorded = await run.sql<{ n: number }>(
      'SELECT count(*)::int AS n FROM leaseproof_effects WHERE token = $1',
      [token],
    );
    expect(recorded[0]?.n).toBe(25);
    const rows = await transitions(run);
    const completions = rows.filter((t) => t.new_status === 'completed');
    expect(completions.map((t) => t.app)).toEqual([other]);
    expect(eventsOf(run, holder, 'abort')).toEqual([]);
  });
});

describe('a worker SIGSTOPped past its lease and resumed', () => {
  // One synchronous unit: on SIGCONT the handler ends at once and acks before the worker's
  // event loop could hear from its heartbeat thread — the stale ack reaches the database.
  const pausePastLease = async (
    queue: string,
  ): Promise<{ run: QueueRun; holder: string; other: string; token: string }> => {
    const run = await startQueueRun(env, {
      queue,
      workers: 2,
      lease: LEASE,
      plans: [[{ ms: 1_500, sync: true, effect: false }]],
      beforeStart: TRANSITIONS_SQL,
    });
    const { holder, other, token } = await firstClaim(run);
    const a = run.pool.worker(holder);
    await a.waitFor((e) => e.kind === 'unit', 5_000);
    await sleep(300);
    a.pause();
    await sleep(100);
    expect(processTable().find((p) => p.pid === a.pid)?.state).toBe('T');
    await sleep(2_400);
    a.resume();
    expect(processTable().find((p) => p.pid === a.pid)?.state).not.toBe('T');
    await a.waitFor((e) => e.kind === 'ack' && e.phase === 'complete' && e.token === token, 10_000);
    await waitForDrain(run.database, run.adapter, 15_000);
    return { run, holder, other, token };
  };

  it('has its ack rejected by the reference queue', async () => {
    const { run, holder, other, token } = await pausePastLease('reference');
    await using _ = run;
    const ack = eventsOf(run, holder, 'ack').find(
      (e) => e.event.phase === 'complete' && e.event.token === token,
    );
    expect(ack?.event.outcome).toBe('fail');
    const completions = (await transitions(run)).filter((t) => t.new_status === 'completed');
    expect(completions.map((t) => t.app)).toEqual([other]);
  });

  it('has its stale ack committed by unconditional-ack (the test can tell)', async () => {
    const { run, holder, token } = await pausePastLease('unconditional-ack');
    await using _ = run;
    const ack = eventsOf(run, holder, 'ack').find(
      (e) => e.event.phase === 'complete' && e.event.token === token,
    );
    expect(ack?.event.outcome).toBe('ok');
    const completions = (await transitions(run)).filter((t) => t.new_status === 'completed');
    expect(completions.map((t) => t.app)).toContain(holder);
  });
});

describe('synchronous units that block the event loop longer than the lease', () => {
  const blockTheLoop = async (queue: string) => {
    const run = await startQueueRun(env, {
      queue,
      workers: 2,
      lease: LEASE,
      plans: [units(3, 800, { sync: true, effect: false })],
      beforeStart: TRANSITIONS_SQL,
    });
    const { holder, token } = await firstClaim(run);
    // Not a drain: under main-thread-heartbeat no attempt ever outlives its lease, so the job
    // passes from worker to worker for as long as one cares to watch.
    await run.pool
      .worker(holder)
      .waitFor((e) => e.kind === 'ack' && e.phase === 'complete' && e.token === token, 20_000);
    const [job] = await run.sql<{ attempts: number }>('SELECT attempts FROM leaseproof_jobs');
    return { run, holder, token, attempts: job?.attempts };
  };

  it('lose no lease with the heartbeat on its own thread', async () => {
    const { run, holder, token, attempts } = await blockTheLoop('reference');
    await using _ = run;
    expect(attempts).toBe(1);
    expect(eventsOf(run, holder, 'lost')).toEqual([]);
    const extensions = (await transitions(run)).filter(
      (t) => t.old_status === 'claimed' && t.new_status === 'claimed',
    );
    expect(extensions.length).toBeGreaterThanOrEqual(5);
    const ack = eventsOf(run, holder, 'ack').find(
      (e) => e.event.phase === 'complete' && e.event.token === token,
    );
    expect(ack?.event.outcome).toBe('ok');
  });

  it('lose the lease with main-thread-heartbeat', async () => {
    const { run, holder, token, attempts } = await blockTheLoop('main-thread-heartbeat');
    await using _ = run;
    expect(attempts).toBeGreaterThanOrEqual(2);
    const ack = eventsOf(run, holder, 'ack').find(
      (e) => e.event.phase === 'complete' && e.event.token === token,
    );
    expect(ack?.event.outcome).toBe('fail');
  });
});

describe("a worker's clock skewed by ±1 h", () => {
  const HOUR = 3_600_000;
  const deadlineOffsets = async (queue: string, offsetMs: number) => {
    const run = await startQueueRun(env, {
      queue,
      workers: 1,
      lease: LEASE,
      plans: [units(4, 150, { effect: false })],
      beforeStart: TRANSITIONS_SQL,
      clock: () => ({ offsetMs }),
    });
    const w = run.pool.worker('w1');
    w.setClock({ offsetMs });
    const clock = await w.waitFor((e) => e.kind === 'clock', 5_000);
    // The first attempt's ack, whatever it says: with worker-clock-lease and a clock behind,
    // every deadline is already past and the job is never finished.
    await w.waitFor(
      (e) => (e.kind === 'ack' && e.phase === 'complete') || e.kind === 'lost',
      10_000,
    );
    // deadline − database time of the statement that set it, for every grant and extension.
    const rows = await run.sql<{ lead_ms: number }>(
      `SELECT extract(epoch FROM new_deadline - at) * 1000 AS lead_ms FROM test_transitions
        WHERE new_status = 'claimed'`,
    );
    return { run, leads: rows.map((r) => Number(r.lead_ms)), clock };
  };

  for (const offsetMs of [HOUR, -HOUR]) {
    it(`${offsetMs > 0 ? '+' : '-'}1 h: the reference's deadlines stay on the database clock; worker-clock-lease's are off by the skew`, async () => {
      const reference = await deadlineOffsets('reference', offsetMs);
      await using _r = reference.run;
      const skewSeen =
        reference.clock.event.kind === 'clock'
          ? reference.clock.event.workerNow - reference.clock.event.realNow
          : 0;
      expect(Math.abs(skewSeen - offsetMs)).toBeLessThan(1_000);
      expect(reference.leads.length).toBeGreaterThanOrEqual(2);
      for (const lead of reference.leads)
        expect(Math.abs(lead - LEASE.durationMs)).toBeLessThan(50);

      const bad = await deadlineOffsets('worker-clock-lease', offsetMs);
      await using _b = bad.run;
      expect(bad.leads.length).toBeGreaterThanOrEqual(1);
      for (const lead of bad.leads)
        expect(Math.abs(lead - (LEASE.durationMs + offsetMs))).toBeLessThan(1_000);
    });
  }
});
