// Issue 38 §2: an adapter statement that waits on time inside the database (`pg_sleep`) is
// modelled — the clock advances by the sleep — and every simulated run is bounded in steps and
// wall time: a run past a bound is unknown with its cause, and the next run goes on.
import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../../src/checker/index.js';
import { loadQueueAdapter } from '../../../src/libraries/load-adapter.js';
import { referenceQueue } from '../../../src/queue/reference-queue.js';
import type { QueueAdapter } from '../../../src/queue/types.js';
import { loadScenario, scenarioToRunPlan } from '../../../src/scenario/load-scenario.js';
import { simPlanOf } from '../../../src/sim/pglite/scenario-sim.js';
import { SimulationBoundError } from '../../../src/sim/pglite/sim-bounds.js';
import { simulateRun, type SimRunPlan } from '../../../src/sim/pglite/sim-run.js';
import { useSimDatabase } from '../../support/sim-database.js';

const simDb = useSimDatabase();

const planOf = async (file: string, queue: QueueAdapter): Promise<SimRunPlan> =>
  simPlanOf(
    scenarioToRunPlan(await loadScenario(`scenarios/${file}.yaml`), { queue: queue.name }),
    queue,
  );

const invalid = (plan: Awaited<ReturnType<typeof simulateRun>>): string[] =>
  checkHistory(plan)
    .results.filter((r) => r.valid !== 'valid')
    .map((r) => `${r.id}: ${r.valid}`);

describe('time inside the simulated database', () => {
  it('a pg_sleep advances the simulated clock by the sleep: clock_timestamp() after it is later by it', async () => {
    const seen: number[] = [];
    const measuring: QueueAdapter = {
      ...referenceQueue,
      name: 'measuring-sleep',
      claim: async (client, ctx) => {
        const { rows } = await client.query<{ slept: number }>(
          `SELECT extract(epoch FROM b - a) * 1000 AS slept FROM (
             SELECT clock_timestamp() AS a, pg_catalog.pg_sleep(0.25) AS s,
                    pg_sleep_for('10 milliseconds') AS f, clock_timestamp() AS b) t`,
        );
        seen.push(Number(rows[0]?.slept));
        return referenceQueue.claim(client, ctx);
      },
    };
    const history = await simulateRun(simDb(), await planOf('crash-mid-handler', measuring));
    expect(seen.length).toBeGreaterThan(0);
    // Fake timers count whole milliseconds: each sleep ends within the millisecond it is due.
    for (const ms of seen) expect(ms).toBeGreaterThanOrEqual(260);
    for (const ms of seen) expect(ms).toBeLessThanOrEqual(262);
    expect(invalid(history)).toEqual([]);
  }, 120_000);

  it('an adapter whose claim runs SELECT pg_sleep(0.002) simulates, valid, as the reference does', async () => {
    const sleepy = await loadQueueAdapter('test/fixtures/sleepy-claim-queue.ts');
    for (const file of ['pause-past-lease', 'crash-mid-handler']) {
      const history = await simulateRun(simDb(), await planOf(file, sleepy));
      expect(history.events.at(-1)).toMatchObject({ type: 'end', drained: true });
      expect(invalid(history)).toEqual([]);
    }
  }, 120_000);
});

describe('the bounds of a simulated run', () => {
  it('a run past its step bound is unknown, with the cause and what it recorded until then', async () => {
    const plan = await planOf('pause-past-lease', referenceQueue);
    const error = await simulateRun(simDb(), { ...plan, bounds: { steps: 20 } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SimulationBoundError);
    const bound = error as SimulationBoundError;
    expect(bound.code).toBe('LEASEPROOF_SIM_BOUND');
    expect(bound.message).toMatch(/^simulation bound: 20 steps exceeded at simulated \+\d+\.\d s/);
    expect(bound.history?.events.some((e) => e.type === 'audit')).toBe(true);
    // The database is as good as before: the next run, unbounded, is valid.
    expect(invalid(await simulateRun(simDb(), plan))).toEqual([]);
  }, 120_000);

  it('a statement that loops inside the database is cut at the wall bound, and the next run has a fresh database', async () => {
    const looping = await loadQueueAdapter('test/fixtures/clock-loop-claim-queue.ts');
    const plan = await planOf('crash-mid-handler', looping);
    const error = await simulateRun(simDb(), { ...plan, bounds: { wallMs: 1_000 } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SimulationBoundError);
    expect((error as Error).message).toMatch(/^simulation bound: 1 s of wall time exceeded/);
    const next = await simulateRun(simDb(), await planOf('crash-mid-handler', referenceQueue));
    expect(next.events.at(-1)).toMatchObject({ type: 'end', drained: true });
    expect(invalid(next)).toEqual([]);
  }, 120_000);
});
