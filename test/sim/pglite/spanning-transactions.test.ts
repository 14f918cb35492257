// Issue 38 §4: a claim written as a transaction over several statements — BEGIN, SELECT … FOR
// UPDATE SKIP LOCKED, UPDATE, COMMIT — is simulated, as graphile-worker's statements are: the
// transaction owns PGlite's one session until it ends (others' statements queue behind it, in
// simulated time), and a connection that dies mid-transaction rolls it back.
import { describe, expect, it } from 'vitest';
import { builtInQueue } from '../../../src/libraries/registry.js';
import { loadQueueAdapter } from '../../../src/libraries/load-adapter.js';
import { checkHistory } from '../../../src/checker/index.js';
import type { History } from '../../../src/history/types.js';
import type { QueueAdapter } from '../../../src/queue/types.js';
import { loadScenario, scenarioToRunPlan } from '../../../src/scenario/load-scenario.js';
import { simPlanOf } from '../../../src/sim/pglite/scenario-sim.js';
import { simulateRun, type SimRunPlan } from '../../../src/sim/pglite/sim-run.js';
import { useSimDatabase } from '../../support/sim-database.js';

const simDb = useSimDatabase();

const planOf = async (file: string, queue: QueueAdapter): Promise<SimRunPlan> =>
  simPlanOf(
    scenarioToRunPlan(await loadScenario(`scenarios/${file}.yaml`), { queue: queue.name }),
    queue,
  );

const verdicts = (history: History): Record<string, string> =>
  Object.fromEntries(checkHistory(history).results.map((r) => [r.id, r.valid]));

const transactional = (): Promise<QueueAdapter> =>
  loadQueueAdapter('test/fixtures/transactional-claim-queue.ts');

describe('a claim over several statements in one transaction', () => {
  it('simulates, valid, on curated scenarios of crashes, pauses and partitions', async () => {
    const queue = await transactional();
    for (const file of ['crash-mid-handler', 'pause-past-lease', 'partition-during-heartbeats']) {
      const history = await simulateRun(simDb(), await planOf(file, queue));
      expect(history.events.at(-1), file).toMatchObject({ type: 'end', drained: true });
      const invalid = Object.entries(verdicts(history)).filter(([, v]) => v !== 'valid');
      expect(invalid, file).toEqual([]);
    }
  }, 180_000);

  it('rolls back when its worker crashes mid-transaction: the others go on, and the job is done', async () => {
    // w1's statements take 400 ms to arrive, so its claim's transaction is open from +400 ms to
    // past +1,200 ms; it crashes at +600 ms, for good. Were its transaction left open, the one
    // session would be held for ever and no job would finish.
    const queue = await transactional();
    const history = await simulateRun(simDb(), {
      scenario: 'crash-mid-transaction',
      seed: 1,
      queue,
      workers: 2,
      lease: { durationMs: 1_000, heartbeatMs: 300, extendByMs: 1_000, pollMs: 50 },
      plans: [[{ ms: 100, sync: false, effect: true }], [{ ms: 100, sync: false, effect: true }]],
      faults: [
        {
          kind: 'latency',
          worker: 'w1',
          atMs: 0,
          forMs: Infinity,
          latencyMs: 400,
          direction: 'upstream',
        },
        { kind: 'crash', worker: 'w1', atMs: 600, forMs: Infinity },
      ],
      horizonMs: 20_000,
    });
    expect(history.events.at(-1)).toMatchObject({ type: 'end', drained: true });
    expect(history.events.at(-1)!.t - history.header.startedAt).toBeLessThan(5_000);
    const grantsToW1 = history.events.filter(
      (e) => e.type === 'audit' && e.app === 'w1' && e.new?.state === 'held',
    );
    expect(grantsToW1).toEqual([]);
    const v = verdicts(history);
    expect([v.I1, v.I2, v.I3, v.I4]).toEqual(['valid', 'valid', 'valid', 'valid']);
  }, 120_000);
});

describe("graphile-worker's statements", () => {
  it('simulate: its migrations run in their transaction, and its claim, complete and fail are judged', async () => {
    const graphile = builtInQueue('graphile-worker')!;
    const crash = await simulateRun(simDb(), await planOf('crash-mid-handler', graphile));
    expect(crash.events.at(-1)).toMatchObject({ type: 'end', drained: true });
    // As on real runs: no lease extension, so I9 is n/a and I7 is judged from the deadline.
    expect(verdicts(crash)).toMatchObject({
      I1: 'valid',
      I2: 'valid',
      I3: 'valid',
      I4: 'valid',
      I7: 'valid',
      I9: 'n/a',
    });
    // And the real runs' finding: a worker cut off past the lock timeout completes the job by id.
    const pause = await simulateRun(simDb(), await planOf('pause-past-lease', graphile));
    expect(verdicts(pause).I1).toBe('invalid');
  }, 180_000);
});
