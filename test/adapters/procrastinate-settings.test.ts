import { describe, expect, it } from 'vitest';
import { procrastinateQueue } from '../../src/libraries/procrastinate/adapter.js';
import { harnessRecipe } from '../../src/libraries/procrastinate/harness-recipe.js';
import { recipeCron } from '../../src/libraries/procrastinate/settings.js';
import { procrastinateStatementsQueue } from '../../src/libraries/procrastinate/statements-adapter.js';
import { settingsLines } from '../../src/queue/library-settings.js';
import { settleQueueTerms } from '../../src/scenario/queue-terms.js';

// The curated lease: 1 s for procrastinate's 30 s stalled horizon, k = 1/30.
const LEASE = { durationMs: 1_000, heartbeatMs: 250, extendByMs: 1_000, pollMs: 50 };

describe("procrastinate's settings: one time factor from the recipe's stalled horizon", () => {
  it('runs its own heartbeat and poll × k, not the scenario’s, and says what the lease became', () => {
    const terms = settleQueueTerms(procrastinateQueue, LEASE);
    expect(terms.settings?.k).toBeCloseTo(1 / 30);
    expect(terms.lease.durationMs).toBe(1_000);
    expect(terms.lease.extendByMs).toBe(1_000);
    expect(terms.lease.heartbeatMs).toBeCloseTo(10_000 / 30);
    expect(terms.lease.pollMs).toBeCloseTo(5_000 / 30);
    const values = terms.settings!.values;
    expect(values.stalled_worker_timeout).toBeCloseTo(1_000);
    expect(values['retry_stalled_jobs cron']).toBeCloseTo(20_000);
    expect(values.max_delay).toBeCloseTo(20_000);
    expect(values.MARGIN).toBeCloseTo(500 / 30);
    expect(values.concurrency).toBe(1);
    // None in procrastinate: the worker waits for its running job without limit.
    expect(values).not.toHaveProperty('shutdown_graceful_timeout');
    const notes = terms.record!.notes.join('\n');
    expect(notes).toMatch(/the scenario's 1000 ms lease is the recipe's stalled horizon/);
    expect(notes).toMatch(/30s in procrastinate\): k = 1\/30/);
    expect(notes).toMatch(/cron "\* \* \* \* \* \*\/20"/);
    const lines = settingsLines(terms.settings!).join('\n');
    expect(lines).toMatch(/Setting shutdown_graceful_timeout: none in procrastinate/);
    expect(lines).toMatch(/Setting MARGIN: 500ms in procrastinate \(hard-coded/);
    expect(terms.record!.rescaled.map((r) => r.constant)).toEqual([
      'MARGIN',
      'LISTEN_TIMEOUT',
      'CANCEL_TIMEOUT',
    ]);
  });

  it("recovers through its own periodic task in the workers, not the harness's sweep", () => {
    expect(procrastinateQueue.maintenance).toBeUndefined();
    expect(procrastinateQueue.audit.jobRows).toBe("r.task_name = 'leaseproof'");
    // The recipe's retry_job, written from a worker's connection, is recorded as a sweep.
    expect(procrastinateQueue.audit.sweep).toMatch(/o.status = 'doing' AND r.status = 'todo'/);
    const terms = settleQueueTerms(procrastinateQueue, LEASE);
    // I8 and the drain allow one cron period plus the deferrer's oversleep past the horizon.
    expect(terms.record!.maintenance!.description).toMatch(/periodic task retry_stalled_jobs/);
    expect(terms.record!.maintenance!.intervalMs).toBeCloseTo(20_000 + 500 / 30);
  });

  it('is judged by the contract it documents: a job leaves its worker when the recipe acts', () => {
    const terms = settleQueueTerms(procrastinateQueue, LEASE);
    expect(terms.record!.fencedOnly).toMatch(/only when the stalled-job recipe acts/);
  });

  it('keeps the harness-run recipe in primitives mode, where no procrastinate worker runs', () => {
    expect(procrastinateStatementsQueue.maintenance).toBe(harnessRecipe);
    expect(procrastinateStatementsQueue.settings).toBeUndefined();
    expect(procrastinateStatementsQueue.audit.sweep).toBeUndefined();
    const terms = settleQueueTerms(procrastinateStatementsQueue, LEASE);
    expect(terms.record!.maintenance!.intervalMs).toBe(50);
  });

  it('takes a user’s deployment in its own words: a 2-minute horizon, a 1-minute cron', () => {
    const terms = settleQueueTerms(procrastinateQueue, LEASE, false, {
      values: { seconds_since_heartbeat: '2m', 'retry_stalled_jobs cron': '1m' },
      source: 'test',
    });
    expect(terms.settings?.k).toBeCloseTo(1 / 120);
    // 1 min × k is 500 ms; below a second procrastinate's cron cannot go: held there, and said so.
    expect(terms.settings!.values['retry_stalled_jobs cron']).toBe(1_000);
    const held = terms.settings!.settings.find((s) => s.name === 'retry_stalled_jobs cron')?.held;
    expect(held?.drives).toMatch(/^I8/);
    expect(terms.record!.maintenance!.intervalMs).toBeCloseTo(1_000 + 500 / 120);
  });
});

describe('recipeCron: the cron procrastinate can state for a compressed period', () => {
  // The same pairs as clients/python/tests/test_procrastinate_native.py.
  it.each([
    [600_000, '*/10 * * * *', 600_000],
    [20_000, '* * * * * */20', 20_000],
    [16_000, '* * * * * */16', 16_000],
    [40_000, '* * * * * */40', 40_000],
    [400, '* * * * * */1', 1_000],
    [59_600, '*/1 * * * *', 60_000],
    [7_200_000, '0 */2 * * *', 7_200_000],
  ])('%d ms → %s (longest gap %d ms)', (periodMs, cron, maxGapMs) => {
    expect(recipeCron(periodMs)).toEqual({ cron, maxGapMs });
  });
});
