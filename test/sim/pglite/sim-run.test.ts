// A run in simulated time against a queue's own SQL on PGlite: the same history format and the
// same checkers as a real run, one seed one history, and a known-bad queue's own SQL caught.
import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../../src/checker/index.js';
import { builtInQueue } from '../../../src/libraries/registry.js';
import { SIM_EPOCH_MS, simulateRun, type SimRunPlan } from '../../../src/sim/pglite/sim-run.js';
import { setTimeout as timersSetTimeout } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import type { QueueAdapter } from '../../../src/queue/types.js';
import { loadScenario, scenarioToRunPlan } from '../../../src/scenario/load-scenario.js';
import { simPlanOf } from '../../../src/sim/pglite/scenario-sim.js';
import { useSimDatabase } from '../../support/sim-database.js';

const simDb = useSimDatabase();

const queue = (name: string): QueueAdapter => builtInQueue(name)!;
const unit = (ms: number, effect = false) => ({ ms, sync: false, effect });
// A worker paused past its lease in the middle of a job, while two others go on.
const plan = (name: string, seed = 3): SimRunPlan => ({
  scenario: 'sim-pause-past-lease',
  seed,
  queue: queue(name),
  workers: 3,
  lease: { durationMs: 800, heartbeatMs: 200, extendByMs: 800, pollMs: 50 },
  plans: Array.from({ length: 12 }, (_, i) => [
    unit(100 + (i % 3) * 50),
    unit(150, true),
    unit(100),
  ]),
  faults: [{ kind: 'pause', worker: 'w1', atMs: 150, forMs: 2_000 }],
});

describe('a run in simulated time on PGlite', () => {
  it("runs the reference queue's own SQL under the checkers: valid", async () => {
    const history = await simulateRun(simDb(), plan('reference'));
    const end = history.events.at(-1);
    expect(end).toMatchObject({ type: 'end', drained: true });
    // The audit saw every claim by its worker's connection, on the simulated clock.
    const grants = history.events.filter(
      (e) => e.type === 'audit' && e.new?.state === 'held' && e.old?.state !== 'held',
    );
    expect(grants.length).toBeGreaterThanOrEqual(12);
    const result = checkHistory(history);
    expect(
      result.results
        .filter((r) => r.valid === 'invalid')
        .map((r) => `${r.id}: ${r.evidence[0]?.message ?? ''}`),
    ).toEqual([]);
    // The pause cost w1 its lease and another worker took the job: the fault did its work.
    expect(result.results.find((r) => r.id === 'I9')?.valid).toBe('valid');
  }, 120_000);

  it('gives one history for one seed, byte for byte, and another for another seed', async () => {
    const a = JSON.stringify(await simulateRun(simDb(), plan('reference', 11)));
    const b = JSON.stringify(await simulateRun(simDb(), plan('reference', 11)));
    expect(b).toBe(a);
    const c = JSON.stringify(await simulateRun(simDb(), plan('reference', 12)));
    expect(c).not.toBe(a);
  }, 120_000);

  it('enqueues jobs as they arrive, and is drained only once the last has arrived and finished', async () => {
    // Three quick jobs, the last arriving long after the first two are done: a run that looked
    // at the drain before every arrival would end at the second ack.
    const arrivals: SimRunPlan = {
      ...plan('reference'),
      workers: 1,
      plans: [[unit(50)], [unit(50)], [unit(50)]],
      arrivalsMs: [0, 100, 5_000],
      faults: [],
    };
    const history = await simulateRun(simDb(), arrivals);
    const jobs = history.events.filter((e) => e.type === 'job').map((e) => e.t - SIM_EPOCH_MS);
    expect(jobs).toHaveLength(3);
    // Each job's insert is on the clock at its arrival (its statement is the only one then).
    expect(jobs[1]).toBeGreaterThanOrEqual(100);
    expect(jobs[2]).toBeGreaterThanOrEqual(5_000);
    const end = history.events.at(-1)!;
    expect(end).toMatchObject({ type: 'end', drained: true });
    expect(end.t - SIM_EPOCH_MS).toBeGreaterThan(5_000);
    const acks = history.events.filter(
      (e) => e.type === 'worker' && e.kind === 'ack' && e.phase === 'complete',
    );
    expect(acks).toHaveLength(3);
  }, 120_000);

  it("catches unconditional-ack's own SQL: the paused worker's late ack commits", async () => {
    // pause-past-lease's shape: one unit longer than the lease, which no watchdog can cut; the
    // paused worker's ack comes when it is continued.
    const pastLease = (name: string): SimRunPlan => ({
      ...plan(name),
      workers: 2,
      plans: Array.from({ length: 4 }, () => [unit(1_200)]),
      faults: [{ kind: 'pause', worker: 'w1', atMs: 300, forMs: 2_000 }],
    });
    const reference = checkHistory(await simulateRun(simDb(), pastLease('reference')));
    expect(reference.results.find((r) => r.id === 'I1')?.valid).toBe('valid');
    const history = await simulateRun(simDb(), pastLease('unconditional-ack'));
    const result = checkHistory(history);
    expect(result.results.find((r) => r.id === 'I1')?.valid).toBe('invalid');
  }, 120_000);

  it('holds a statement in a latency as Toxiproxy does: no longer than the fault, overlapping ones adding up', async () => {
    // w2's extensions under an upstream latency: how long after its invoke each one's audit row
    // lands. Toxiproxy lets go of what a removed latency toxic holds, so a 5 s latency that heals
    // 400 ms after it began delays nothing past its heal (a simulation that held it the full 5 s
    // granted jobs after the fault to workers that had given up on their claims: I9 and I8 false
    // alarms on the reference); two latency toxics in place hold data one after the other.
    const delays = async (faults: SimRunPlan['faults']): Promise<Array<[number, number]>> => {
      const history = await simulateRun(simDb(), {
        ...plan('reference'),
        workers: 2,
        plans: Array.from({ length: 2 }, () => Array.from({ length: 12 }, () => unit(100))),
        faults,
      });
      expect(checkHistory(history).results.filter((r) => r.valid === 'invalid')).toEqual([]);
      const invokes = history.events.filter(
        (e) =>
          e.type === 'worker' && e.worker === 'w2' && e.kind === 'extend' && e.phase === 'invoke',
      );
      const extensions = history.events.filter(
        (e) => e.type === 'audit' && e.app === 'w2' && e.op === 'update' && e.new?.state === 'held',
      );
      return invokes.map((invoke) => {
        const row = extensions.find((e) => e.t >= invoke.t);
        return [invoke.t - SIM_EPOCH_MS, (row?.t ?? NaN) - invoke.t];
      });
    };
    const slow = { kind: 'latency', worker: 'w2', direction: 'upstream' } as const;
    // Healed at 650 ms: the extension sent at 200 ms arrives at 650, not at 5,200.
    const healed = await delays([{ ...slow, atMs: 100, forMs: 550, latencyMs: 5_000 }]);
    const [first] = healed;
    expect(first![0]).toBeGreaterThanOrEqual(100);
    expect(first![0] + first![1]).toBeGreaterThanOrEqual(650);
    expect(first![0] + first![1]).toBeLessThan(652);
    // The ones after the heal cross at once.
    expect(healed.slice(1).every(([, ms]) => ms < 2)).toBe(true);
    // Two latencies of 150 ms at once: 300 ms.
    const twice = await delays([
      { ...slow, atMs: 100, forMs: 3_000, latencyMs: 150 },
      { ...slow, atMs: 100, forMs: 3_000, latencyMs: 150 },
    ]);
    expect(twice[0]![1]).toBeGreaterThanOrEqual(300);
    expect(twice[0]![1]).toBeLessThan(302);
  }, 120_000);

  it('fails a statement lost in a blackhole when the partition heals, as Toxiproxy closes the connection then', async () => {
    // Toxiproxy's timeout toxic closes the connections that cross it when it is removed: a real
    // worker's statement lost in the blackhole fails at the heal, and the worker reconnects and
    // claims at once. Waiting for the statement bound instead kept the worker from the job it
    // had just lost — an I8 false alarm on the reference that the real run did not show.
    const history = await simulateRun(simDb(), {
      ...plan('reference'),
      workers: 2,
      plans: Array.from({ length: 4 }, () => Array.from({ length: 12 }, () => unit(100))),
      faults: [{ kind: 'partition', worker: 'w1', atMs: 100, forMs: 600, mode: 'blackhole' }],
    });
    const failed = history.events.filter(
      (e) =>
        e.type === 'worker' && e.worker === 'w1' && e.phase === 'complete' && e.outcome === 'info',
    );
    expect(failed.length).toBeGreaterThan(0);
    // All at the heal (700 ms), none at a statement bound (800 ms after it was sent).
    expect(failed.map((e) => e.t - SIM_EPOCH_MS)).toEqual(failed.map(() => 700));
    expect(failed.every((e) => e.type === 'worker' && /terminated/.test(e.detail ?? ''))).toBe(
      true,
    );
    const result = checkHistory(history);
    expect(result.results.filter((r) => r.valid === 'invalid')).toEqual([]);
  }, 120_000);

  it('gives every connection its own backend pid, so a re-claim under a reused token is the grant it is', async () => {
    // lone-worker-pause against reused-token: the worker, continued after its lease expired,
    // claims the job again and its re-claim keeps the token. Only the backend of the write (the
    // claim's connection, not the heartbeat's) tells that grant from the expired claim's
    // extension, as on a real run, which is valid. With one pid for all and every call on one
    // instant the simulation read it as "a resurrected lease" (I1).
    const scenario = await loadScenario('scenarios/lone-worker-pause.yaml');
    const history = await simulateRun(
      simDb(),
      simPlanOf(scenarioToRunPlan(scenario, { queue: 'reused-token' }), queue('reused-token')),
    );
    const pids = (kind: string): Set<number | undefined> =>
      new Set(
        history.events
          .filter((e) => e.type === 'worker' && e.kind === kind && e.phase === 'complete')
          .map((e) => (e.type === 'worker' ? e.pid : undefined)),
      );
    const [claimPid] = pids('claim');
    const [extendPid] = pids('extend');
    expect(pids('claim')).toEqual(new Set([claimPid]));
    expect(pids('ack')).toEqual(new Set([claimPid]));
    expect(pids('extend')).toEqual(new Set([extendPid]));
    expect(claimPid).toBeGreaterThan(0);
    expect(extendPid).not.toBe(claimPid);
    const written = new Set(
      history.events.flatMap((e) => (e.type === 'audit' && e.app === 'w1' ? [e.pid] : [])),
    );
    expect(written).toEqual(new Set([claimPid, extendPid]));
    const result = checkHistory(history);
    expect(result.results.filter((r) => r.valid === 'invalid')).toEqual([]);
    // The job was claimed again after the pause: a grant, not an extension.
    const grants = history.events.filter(
      (e) => e.type === 'worker' && e.kind === 'claim' && e.job === '1',
    );
    expect(grants.length).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it("holds other connections' statements while one's transaction is open, and lets them go at its end", async () => {
    await simDb().reset(1);
    const w1 = simDb().client('w1', 1);
    const w2 = simDb().client('w2', 2);
    await w1.query('BEGIN');
    await w1.query('CREATE TABLE held (n int)');
    let answered = false;
    const waiting = w2.query('SELECT count(*)::int AS n FROM held').then((r) => {
      answered = true;
      return r;
    });
    await simDb().settled();
    // The one session belongs to w1's transaction: w2 waits, and is no statement in flight.
    expect(answered).toBe(false);
    expect(simDb().transactionOpen()).toBe(true);
    await w1.query('INSERT INTO held VALUES (1)');
    await w1.query('COMMIT');
    expect((await waiting).rows).toEqual([{ n: 1 }]);
    expect(simDb().transactionOpen()).toBe(false);
  });

  it('rolls back the transaction of a connection whose process is gone, as the server does', async () => {
    await simDb().reset(1);
    const w1 = simDb().client('w1', 1);
    const w2 = simDb().client('w2', 2);
    await w2.query('CREATE TABLE kept (n int)');
    await w1.query('BEGIN');
    await w1.query('INSERT INTO kept VALUES (1)');
    const waiting = w2.query('SELECT count(*)::int AS n FROM kept');
    await w1.close();
    expect((await waiting).rows).toEqual([{ n: 0 }]);
    // A statement still on its way when the process died opens nothing that outlives it.
    await w1.query('BEGIN');
    expect(simDb().transactionOpen()).toBe(false);
  });
});

describe('a queue with a schema of its own (pg-boss, through its library)', () => {
  it('runs its setup transaction, and its schema does not outlive the run', async () => {
    // pg-boss's setup is one statement of BEGIN … COMMIT in its own schema, pgboss: the first
    // is no transaction left open across others, and a reset that dropped only public would
    // leave the second run's setup to fail on pgboss's types.
    const boss: SimRunPlan = { ...plan('pg-boss'), workers: 2, faults: [] };
    const history = await simulateRun(simDb(), boss);
    const second = JSON.stringify(await simulateRun(simDb(), boss));
    expect(second).toBe(JSON.stringify(history));
    expect(history.events.at(-1)).toMatchObject({ type: 'end', drained: true });
  }, 120_000);
});

describe('after a simulated run', () => {
  it("leaves the process's clock, timers and randomness real", async () => {
    await simulateRun(simDb(), { ...plan('reference'), faults: [] });
    // The ESM bindings of node:timers and node:timers/promises too: a seeding synced while the fake clock was installed
    // once left them fake, and the next real run's fault timeline never started.
    const fired = await Promise.race([
      Promise.all([new Promise<void>((resolve) => timersSetTimeout(resolve, 20)), sleep(20)]).then(
        () => 'fired',
      ),
      new Promise<string>((resolve) => globalThis.setTimeout(() => resolve('stuck'), 2_000)),
    ]);
    expect(fired).toBe('fired');
    expect(Math.abs(Date.now() - performance.timeOrigin - performance.now())).toBeLessThan(1_000);
    expect(Date.now()).toBeGreaterThan(SIM_EPOCH_MS + 24 * 3600_000);
    expect(randomUUID()).not.toBe(randomUUID());
  }, 120_000);
});

describe('a run whose every worker is gone for good', () => {
  it('ends undrained instead of waiting for a clock nothing moves', async () => {
    const history = await simulateRun(simDb(), {
      ...plan('reference'),
      workers: 1,
      faults: [{ kind: 'crash', worker: 'w1', atMs: 150, forMs: Infinity }],
    });
    expect(history.events.at(-1)).toMatchObject({ type: 'end', drained: false });
    // A job left held by a worker that never came back: not judged lost on a cut run.
    expect(checkHistory(history).results.find((r) => r.id === 'I3')?.valid).toBe('unknown');
  }, 120_000);
});
