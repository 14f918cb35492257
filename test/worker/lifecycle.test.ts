import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { isAlive, reapLeftovers } from '../../src/env/process-registry.js';
import { prepareQueue } from '../../src/pool/queue-database.js';
import { WorkerPool } from '../../src/pool/worker-pool.js';
import { loadQueueAdapter } from '../../src/libraries/load-adapter.js';
import { AdapterError } from '../../src/queue/adapter-error.js';
import { startQueueRun, units } from '../support/queue-run.js';
import { descendantsOf, processTable, waitGone } from '../support/processes.js';
import { finished, firstJsonLine, spawnTs } from '../support/run-node.js';

let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

const LEASE = { durationMs: 1_000, heartbeatMs: 200, extendByMs: 1_000, pollMs: 50 };

describe('worker process lifecycle', () => {
  it('on SIGTERM finishes its current job, acks it, and exits', async () => {
    await using run = await startQueueRun(env, {
      queue: 'reference',
      workers: 1,
      lease: LEASE,
      plans: [units(8, 100), units(8, 100)],
    });
    const worker = run.pool.worker('w1');
    await worker.waitFor((e) => e.kind === 'unit' && e.unit === 2, 5_000);
    process.kill(worker.pid, 'SIGTERM');
    const exit = await worker.waitFor((e) => e.kind === 'exit', 10_000);
    expect(exit.event).toMatchObject({ kind: 'exit', reason: 'SIGTERM' });
    await waitGone([worker.pid]);
    const jobs = await run.sql<{ status: string }>(
      'SELECT status FROM leaseproof_jobs ORDER BY id',
    );
    expect(jobs.map((j) => j.status)).toEqual(['completed', 'pending']);
  });

  it('on SIGTERM heartbeats its job until its shutdown timeout, then cancels it and exits', async () => {
    await using run = await startQueueRun(env, {
      queue: 'reference',
      workers: 1,
      lease: LEASE,
      plans: [units(20, 100)],
      shutdownTimeoutMs: () => 500,
    });
    const worker = run.pool.worker('w1');
    await worker.waitFor((e) => e.kind === 'unit' && e.unit === 2, 5_000);
    process.kill(worker.pid, 'SIGTERM');
    await worker.waitFor((e) => e.kind === 'exit', 10_000);
    await waitGone([worker.pid]);
    const kinds = worker.events.map((e) => e.event.kind);
    // Cancelled at its next unit after the timeout, never acked: the job is left to its lease.
    expect(kinds).toContain('abort');
    expect(kinds).not.toContain('ack');
    // It kept the lease while it finished: extensions after the SIGTERM, none refused.
    const extends_ = worker.events.filter((e) => e.event.kind === 'extend');
    expect(extends_.some((e) => e.event.kind === 'extend' && e.event.outcome === 'fail')).toBe(
      false,
    );
    const jobs = await run.sql<{ status: string }>('SELECT status FROM leaseproof_jobs');
    expect(jobs.map((j) => j.status)).toEqual(['claimed']);
  });

  it('on SIGTERM exits soon after its shutdown timeout even when its handler ignores the cancellation', async () => {
    await using run = await startQueueRun(env, {
      queue: 'reference',
      workers: 1,
      lease: LEASE,
      plans: [units(60, 100)],
      ignoresAbort: true,
      shutdownTimeoutMs: () => 300,
    });
    const worker = run.pool.worker('w1');
    await worker.waitFor((e) => e.kind === 'unit' && e.unit === 2, 5_000);
    process.kill(worker.pid, 'SIGTERM');
    const exit = await worker.waitFor((e) => e.kind === 'exit', 10_000);
    expect(exit.event).toMatchObject({ reason: 'SIGTERM: the handler ignored its cancellation' });
    await waitGone([worker.pid]);
    const kinds = worker.events.map((e) => e.event.kind);
    expect(kinds).toContain('abort-ignored');
    expect(kinds).not.toContain('ack');
  });

  it('stop() continues a SIGSTOPped worker before ending it: none is left stopped', async () => {
    await using run = await startQueueRun(env, {
      queue: 'reference',
      workers: 2,
      lease: LEASE,
      plans: [],
    });
    const pids = run.pool.workers.map((w) => w.pid);
    for (const w of run.pool.workers) w.pause();
    await new Promise((r) => setTimeout(r, 100));
    expect(
      processTable()
        .filter((p) => pids.includes(p.pid))
        .map((p) => p.state),
    ).toEqual(['T', 'T']);
    await run.pool.stop();
    expect(pids.filter(isAlive)).toEqual([]);
  });

  it('exits by itself when its controller is SIGKILLed', async () => {
    const controller = spawnTs('test/fixtures/controller-with-worker.ts', []);
    const done = finished(controller);
    const { workerPid } = await firstJsonLine<{ workerPid: number }>(controller);
    expect(isAlive(workerPid)).toBe(true);
    controller.kill('SIGKILL');
    await done;
    await waitGone([workerPid], 10_000);
    // The controller's servers are orphans now; the next command (here: the reaper) ends them.
    await reapLeftovers();
  });

  it('a bad adapter file fails the pool start with one clear error and leaves no worker', async () => {
    const database = await env.createDatabase();
    await prepareQueue(database, await loadQueueAdapter('reference'), []);
    // This test's own children only: other test files run workers beside it on the machine.
    const ownWorkers = (): number =>
      descendantsOf(process.pid).filter((p) => p.command.includes('worker-main')).length;
    const before = ownWorkers();
    const error: unknown = await WorkerPool.start({
      env,
      database,
      queue: 'test/queue/fixtures/bad-adapter.ts',
      workers: 2,
      lease: LEASE,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdapterError);
    expect(String((error as Error).message)).toMatch(/bad-adapter\.ts/);
    expect(String((error as Error).message)).toMatch(/ack/);
    expect(String((error as Error).message)).toMatch(/claim/);
    expect(ownWorkers()).toBe(before);
    await expect(loadQueueAdapter('test/queue/fixtures/bad-adapter.ts')).rejects.toBeInstanceOf(
      AdapterError,
    );
    await database.drop();
  });
});
