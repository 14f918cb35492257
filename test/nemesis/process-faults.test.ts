import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import { isAlive, processState } from '../../src/env/process-registry.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { createFault } from '../../src/nemesis/create-fault.js';
import type { FaultSpec } from '../../src/nemesis/fault-spec.js';
import type { ReceivedEvent } from '../../src/pool/worker-process.js';
import type { TimedFault } from '../../src/nemesis/types.js';
import type { WorkerEvent } from '../../src/worker/types.js';
import { processTable } from '../support/processes.js';
import { startQueueRun, units, type QueueRun } from '../support/queue-run.js';
import { TRANSITIONS_SQL } from '../support/transitions.js';
import { nemesisContext, runFaults } from './support.js';

let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

const LEASE = { durationMs: 1_000, heartbeatMs: 100, extendByMs: 1_000, pollMs: 50 };
const now = (): number => performance.timeOrigin + performance.now();

/** Many short jobs: both workers keep claiming and acking for as long as a test watches. */
const busyRun = (options: { beforeStart?: string } = {}): Promise<QueueRun> =>
  startQueueRun(env, {
    queue: 'reference',
    workers: 2,
    lease: LEASE,
    plans: Array.from({ length: 400 }, () => units(1, 20, { effect: false })),
    ...options,
  });

const one = (spec: FaultSpec): TimedFault => {
  const [timed, ...rest] = createFault(spec);
  if (timed === undefined || rest.length > 0) throw new Error('expected one fault');
  return timed;
};

const acksOk = (events: ReceivedEvent[], from: number, to = Infinity): ReceivedEvent[] =>
  events.filter(
    ({ event }) =>
      event.kind === 'ack' &&
      event.phase === 'complete' &&
      event.outcome === 'ok' &&
      event.at > from &&
      event.at < to,
  );

describe('pause', () => {
  it('stops the process (state T in /proc) for `for`, then it runs and acks again', async () => {
    await using run = await busyRun();
    const w1 = run.pool.worker('w1');
    const { ctx, records } = nemesisContext(env, run.pool);
    const { fault } = one({ kind: 'pause', atMs: 0, forMs: 800, worker: 'w1' });
    await sleep(200);
    await fault.start(ctx);
    const stoppedAt = now();
    await sleep(100);
    expect(processState(w1.pid)).toBe('T');
    expect(processTable().find((p) => p.pid === w1.pid)?.state).toBe('T');
    await sleep(700);
    // Taken before SIGCONT: once continued, the worker may stamp an event within microseconds.
    const resumedAt = now();
    await fault.heal(ctx);
    expect(processState(w1.pid)).not.toBe('T');
    await sleep(500);
    expect(w1.running).toBe(true);
    // Nothing while stopped (50 ms for a statement on its way); acks again once continued.
    expect(acksOk(w1.events, stoppedAt + 50, resumedAt)).toEqual([]);
    expect(acksOk(run.pool.worker('w2').events, stoppedAt, resumedAt).length).toBeGreaterThan(5);
    expect(acksOk(w1.events, resumedAt).length).toBeGreaterThan(0);
    expect(records.map((r) => `${r.phase} ${r.fault} ${r.target}`)).toEqual([
      'start pause w1',
      'end pause w1',
    ]);
  });
});

describe('crash', () => {
  it('kills the process: gone from the process table, and it stays gone', async () => {
    await using run = await busyRun();
    const w1 = run.pool.worker('w1');
    const pid = w1.pid;
    const { ctx, records } = nemesisContext(env, run.pool);
    const timed = one({ kind: 'crash', atMs: 0, worker: 'w1' });
    expect(timed.forMs).toBeUndefined();
    await timed.fault.start(ctx);
    expect(isAlive(pid)).toBe(false);
    expect(processTable().some((p) => p.pid === pid && p.state !== 'Z')).toBe(false);
    expect(w1.running).toBe(false);
    await timed.fault.heal(ctx);
    expect(run.pool.worker('w1').pid).toBe(pid);
    expect(records.map((r) => `${r.phase} ${r.fault} ${r.target}`)).toEqual([
      'start crash w1',
      'end crash w1',
    ]);
  });

  it('a pause, stall, clock skew or second crash aimed at the worker while it is down has no effect, says so, and undoes nothing', async () => {
    await using run = await busyRun();
    const { ctx, records } = nemesisContext(env, run.pool);
    const crash = one({ kind: 'crash', atMs: 0, worker: 'w1', restartAfterMs: 400 });
    await crash.fault.start(ctx);
    const onDead = [
      one({ kind: 'pause', atMs: 0, forMs: 100, worker: 'w1' }),
      one({ kind: 'stall', atMs: 0, forMs: 100, worker: 'w1' }),
      one({ kind: 'clock', atMs: 0, forMs: 100, worker: 'w1', offsetMs: 5_000 }),
      one({ kind: 'crash', atMs: 0, worker: 'w1', restartAfterMs: 100 }),
    ];
    // Before faults knew this, the first of these threw "worker w1 is not connected" /
    // "has exited" and ended the run (explore reported it as a harness failure).
    for (const { fault } of onDead) await fault.start(ctx);
    for (const { fault } of onDead) await fault.heal(ctx);
    // Nothing was restarted by the second crash's heal: only the first one's restarts w1.
    expect(run.pool.worker('w1').running).toBe(false);
    await crash.fault.heal(ctx);
    const fresh = run.pool.worker('w1');
    expect(fresh.running).toBe(true);
    // The restarted worker runs on the true clock and is not paused.
    await fresh.waitFor((e) => e.kind === 'claim' && e.outcome === 'ok', 5_000);
    const starts = records.filter((r) => r.phase === 'start');
    expect(starts.map((r) => [r.fault, r.detail?.noEffect])).toEqual([
      ['crash', undefined],
      ['pause', 'worker w1 is down (crashed, not restarted yet)'],
      ['stall', 'worker w1 is down (crashed, not restarted yet)'],
      ['clock', 'worker w1 is down (crashed, not restarted yet)'],
      ['crash', 'worker w1 is down (crashed, not restarted yet)'],
    ]);
  });

  it('with restartAfter, a fresh process with the same worker id claims and completes jobs', async () => {
    await using run = await busyRun();
    const old = run.pool.worker('w1');
    const { ctx, records } = nemesisContext(env, run.pool);
    const timed = one({ kind: 'crash', atMs: 0, worker: 'w1', restartAfterMs: 300 });
    expect(timed.forMs).toBe(300);
    await sleep(200);
    await runFaults(ctx, [timed]);
    expect(isAlive(old.pid)).toBe(false);
    const fresh = run.pool.worker('w1');
    expect(fresh).not.toBe(old);
    expect(fresh.pid).not.toBe(old.pid);
    expect(isAlive(fresh.pid)).toBe(true);
    const claim = await fresh.waitFor((e) => e.kind === 'claim' && e.outcome === 'ok', 5_000);
    const token = claim.event.kind === 'claim' ? claim.event.token : undefined;
    await fresh.waitFor(
      (e) => e.kind === 'ack' && e.phase === 'complete' && e.token === token,
      5_000,
    );
    // The database says so: the job was claimed and completed by a connection named w1.
    const [row] = await run.sql<{ status: string; claimed_by: string }>(
      'SELECT status, claimed_by FROM leaseproof_jobs WHERE claim_token = $1',
      [token],
    );
    expect(row).toEqual({ status: 'completed', claimed_by: 'w1' });
    // Both processes' events are the run's: w1 said `ready` twice.
    const readies = run.pool
      .events()
      .filter((e) => e.workerId === 'w1' && e.event.kind === 'ready');
    expect(readies.map((e) => (e.event as WorkerEvent & { kind: 'ready' }).pid)).toEqual([
      old.pid,
      fresh.pid,
    ]);
    const [start, end] = records;
    expect([start?.phase, end?.phase]).toEqual(['start', 'end']);
    expect((end?.at ?? 0) - (start?.at ?? 0)).toBeGreaterThanOrEqual(300);
    expect(start?.detail).toEqual({ restartAfterMs: 300 });
  });
});

describe('stall', () => {
  it("blocks the worker's event loop for `for` while its heartbeat thread keeps extending", async () => {
    await using run = await startQueueRun(env, {
      queue: 'reference',
      workers: 1,
      lease: LEASE,
      plans: [units(30, 50, { effect: false })],
    });
    const w1 = run.pool.worker('w1');
    await w1.waitFor((e) => e.kind === 'unit' && e.unit === 2, 5_000);
    const { ctx, records } = nemesisContext(env, run.pool);
    await runFaults(ctx, [one({ kind: 'stall', atMs: 0, worker: 'w1', forMs: 800 })]);
    const stall = await w1.waitFor((e) => e.kind === 'stall', 2_000);
    await w1.waitFor((e) => e.kind === 'unit' && e.at > stall.event.at + 800, 3_000);
    const inside = (kind: string) =>
      w1.events.filter(
        ({ event }) =>
          event.kind === kind && event.at > stall.event.at + 10 && event.at < stall.event.at + 790,
      );
    // The main loop did nothing for 800 ms: no unit started…
    expect(inside('unit')).toEqual([]);
    // …while the heartbeat thread went on extending the lease.
    expect(inside('extend').length).toBeGreaterThanOrEqual(4);
    expect(records.map((r) => r.phase)).toEqual(['start', 'end']);
    expect(w1.events.some(({ event }) => event.kind === 'lost')).toBe(false);
  });
});

describe('clock', () => {
  it("skews the worker's Date (and jumps it) while the database's deadlines stay on the database's clock", async () => {
    await using run = await startQueueRun(env, {
      queue: 'reference',
      workers: 1,
      lease: LEASE,
      plans: Array.from({ length: 40 }, () => units(2, 50, { effect: false })),
      beforeStart: TRANSITIONS_SQL,
    });
    const w1 = run.pool.worker('w1');
    const HOUR = 3_600_000;
    const faults = createFault({
      kind: 'clock',
      atMs: 0,
      forMs: 1_200,
      worker: 'w1',
      offsetMs: HOUR,
      jump: { afterMs: 600, byMs: -2 * HOUR },
    });
    expect(faults.map((f) => [f.atMs, f.forMs])).toEqual([
      [0, 1_200],
      [600, 600],
    ]);
    const { ctx, records } = nemesisContext(env, run.pool);
    const skewedFrom = new Date();
    await runFaults(ctx, faults);
    await sleep(200);
    const skews = w1.events.flatMap(({ event }) =>
      event.kind === 'clock' ? [event.workerNow - event.realNow] : [],
    );
    // +1 h, then the jump to −1 h, then set right by the heal (twice: each fault heals).
    expect(skews.length).toBeGreaterThanOrEqual(3);
    expect(Math.abs((skews[0] ?? 0) - HOUR)).toBeLessThan(1_000);
    expect(Math.abs((skews[1] ?? 0) + HOUR)).toBeLessThan(1_000);
    expect(Math.abs(skews.at(-1) ?? HOUR)).toBeLessThan(1_000);
    expect(records.filter((r) => r.phase === 'start').map((r) => r.detail?.offsetMs)).toEqual([
      HOUR,
      -HOUR,
    ]);
    // Every deadline set while the clock was off is the database's now() + the lease.
    const leads = await run.sql<{ lead_ms: number }>(
      `SELECT extract(epoch FROM new_deadline - at) * 1000 AS lead_ms FROM test_transitions
        WHERE new_status = 'claimed' AND at > $1`,
      [skewedFrom],
    );
    expect(leads.length).toBeGreaterThanOrEqual(5);
    for (const { lead_ms } of leads)
      expect(Math.abs(Number(lead_ms) - LEASE.durationMs)).toBeLessThan(50);
  });
});
