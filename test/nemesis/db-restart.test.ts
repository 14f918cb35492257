import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import { isAlive, listProcessRecords } from '../../src/env/process-registry.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { createFault } from '../../src/nemesis/create-fault.js';
import { waitForDrain } from '../../src/pool/queue-database.js';
import { connect, within } from '../support/pg.js';
import { processTable } from '../support/processes.js';
import { startQueueRun, units } from '../support/queue-run.js';
import { nemesisContext } from './support.js';

let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

const LEASE = { durationMs: 1_000, heartbeatMs: 200, extendByMs: 1_000, pollMs: 50 };
const JOBS = Array.from({ length: 60 }, () => units(2, 30, { effect: true }));

/** The postmaster this environment's leftover records name. */
async function recordedPostmasters(): Promise<number[]> {
  const records = await listProcessRecords();
  return records.filter((r) => r.runId === env.runId && r.kind === 'postgres').map((r) => r.pid);
}

describe('db-restart, mode restart', () => {
  it('breaks every connection, refuses new ones while down, then serves the same data from a new postmaster', async () => {
    await using run = await startQueueRun(env, {
      queue: 'reference',
      workers: 2,
      lease: LEASE,
      plans: JOBS,
    });
    const [before] = await recordedPostmasters();
    expect(before).toBeDefined();
    const held = await connect(run.database.url);
    const rowsBefore = await run.sql<{ n: number }>(
      'SELECT count(*)::int AS n FROM leaseproof_jobs',
    );
    const { ctx, records } = nemesisContext(env, run.pool);
    const [timed, ...rest] = createFault({
      kind: 'db-restart',
      atMs: 0,
      forMs: 800,
      mode: 'restart',
    });
    expect(rest).toEqual([]);
    // It ends itself once the database is back: no timer heals it.
    expect(timed?.forMs).toBeUndefined();

    const restarting = timed!.fault.start(ctx);
    await sleep(300);
    // Down: a new connection is refused.
    const during = await within(
      connect(run.database.url, 500).then(
        (c) => c.end().then(() => 'connected'),
        () => 'refused',
      ),
      1_000,
    );
    expect(during).toEqual({ done: true, value: 'refused' });
    await restarting;

    // The connection held across the restart is broken…
    await expect(held.query('SELECT 1')).rejects.toThrow();
    await held.end().catch(() => undefined);
    // …a new one works, on the same data, served by a new postmaster whose record replaced the old.
    const rowsAfter = await run.sql<{ n: number }>(
      'SELECT count(*)::int AS n FROM leaseproof_jobs',
    );
    expect(rowsAfter).toEqual(rowsBefore);
    expect(rowsAfter[0]?.n).toBe(JOBS.length);
    const after = await recordedPostmasters();
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before);
    expect(isAlive(before!)).toBe(false);
    expect(isAlive(after[0]!)).toBe(true);
    // Out of the test's process group like the first one: a Ctrl-C must not reach it.
    expect(processTable().find((p) => p.pid === after[0])?.pgid).toBe(after[0]);
    // The fault's window is the outage: at least `for`, start-up included.
    expect(records.map((r) => `${r.phase} ${r.fault} ${r.target}`)).toEqual([
      'start db-restart db',
      'end db-restart db',
    ]);
    expect(records[1]!.at - records[0]!.at).toBeGreaterThanOrEqual(800);
    expect(records[0]?.detail).toEqual({ mode: 'restart', downMs: 800 });

    // The workers reconnect by themselves and finish the queue.
    await waitForDrain(run.database, run.adapter, 20_000);
    const errors = run.pool
      .events()
      .filter(({ event }) => 'outcome' in event && event.outcome === 'info');
    expect(errors.length).toBeGreaterThan(0);
  });
});

describe('db-restart, mode terminate', () => {
  it("drops every backend of the run database (the workers' included); they reconnect and the run drains", async () => {
    await using run = await startQueueRun(env, {
      queue: 'reference',
      workers: 2,
      lease: LEASE,
      plans: JOBS,
    });
    await Promise.all(
      run.pool.workers.map((w) =>
        w.waitFor((e) => e.kind === 'claim' && e.outcome === 'ok', 5_000),
      ),
    );
    const backends = (): Promise<{ pid: number; app: string }[]> =>
      run.sql<{ pid: number; app: string }>(
        `SELECT pid, application_name AS app FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
    const before = await backends();
    // Each worker: its queue connection, its heartbeat thread's, its effects connection.
    expect(new Set(before.map((b) => b.app))).toEqual(new Set(['w1', 'w2']));
    const { ctx, records } = nemesisContext(env, run.pool);
    const [timed] = createFault({ kind: 'db-restart', atMs: 0, forMs: 400, mode: 'terminate' });
    const terminatedAt = performance.timeOrigin + performance.now();
    await timed!.fault.start(ctx);
    expect(records.map((r) => r.phase)).toEqual(['start', 'end']);
    expect(records[1]!.at - records[0]!.at).toBeGreaterThanOrEqual(400);

    await waitForDrain(run.database, run.adapter, 20_000);
    // None of the old backends survived; the workers are connected again on new ones.
    const after = await backends();
    const old = new Set(before.map((b) => b.pid));
    expect(after.filter((b) => old.has(b.pid))).toEqual([]);
    expect(after.filter((b) => b.app === 'w1' || b.app === 'w2').length).toBeGreaterThan(0);
    // Both workers saw their connections fail, and both went on completing jobs afterwards.
    for (const worker of run.pool.workers) {
      const events = worker.events.map((e) => e.event);
      expect(
        events.some((e) => 'outcome' in e && e.outcome === 'info' && e.at >= terminatedAt),
      ).toBe(true);
      expect(
        events.some(
          (e) =>
            e.kind === 'ack' &&
            e.phase === 'complete' &&
            e.outcome === 'ok' &&
            e.at > terminatedAt + 400,
        ),
      ).toBe(true);
    }
  });
});
