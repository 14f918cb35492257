import { describe, expect, it } from 'vitest';
import { graphileWorkerQueue } from '../../src/libraries/graphile-worker/adapter.js';
import { graphileWorkerNativeQueue } from '../../src/libraries/graphile-worker/native-adapter.js';
import { graphileWorker18Queue } from '../../src/libraries/graphile-worker/v18-adapter.js';
import { targetSettings } from '../../src/native/targets/graphile-worker-target.js';
import { AdapterError } from '../../src/queue/adapter-error.js';
import type { LeaseSettings } from '../../src/queue/types.js';
import { adapterProblems } from '../../src/queue/validate-adapter.js';
import { queueTermsLines } from '../../src/report/queue-terms-lines.js';
import { settleQueueTerms } from '../../src/scenario/queue-terms.js';

// The curated lease: 1 s is graphile-worker's 4-hour lock timeout, k = 1/14400.
const LEASE: LeaseSettings = { durationMs: 1_000, heartbeatMs: 250, extendByMs: 1_000, pollMs: 50 };

const stated = (values: Record<string, string | number>) => ({ values, source: 'test.yaml' });

describe('graphile-worker: one time factor, anchored on its 4-hour lock timeout', () => {
  it.each([graphileWorkerQueue, graphileWorkerNativeQueue, graphileWorker18Queue])(
    '$name: every duration × 1/14400, the poll and the abort held at their floors',
    (adapter) => {
      expect(adapterProblems(adapter)).toEqual([]);
      const { lease, record, settings } = settleQueueTerms(adapter, LEASE);
      expect(settings?.k).toBeCloseTo(1 / 14_400, 12);
      const v = settings!.values;
      expect(v.lockTimeout).toBeCloseTo(1_000, 9);
      expect(v.minResetLockedInterval).toBeCloseTo(33.333, 3); // 8 min
      expect(v.maxResetLockedInterval).toBeCloseTo(41.667, 3); // 10 min
      expect(v.retryDelayUnit).toBeCloseTo(0.0694, 4); // 1 s
      expect(v.pollInterval).toBe(50); // 2 s × k = 0.14 ms, held
      expect(v.gracefulShutdownAbortTimeout).toBe(1); // 5 s × k = 0.35 ms, held
      expect(v.concurrency).toBe(1);
      const held = settings!.settings.filter((s) => s.held !== undefined).map((s) => s.name);
      expect(held).toEqual(['pollInterval', 'gracefulShutdownAbortTimeout']);
      // The lease the checkers judge: the lock timeout, polled at the run's pollInterval.
      expect(lease.durationMs).toBe(1_000);
      expect(lease.pollMs).toBe(50);
      // No constant is rescaled on its own: the settings listing says it all.
      expect(record?.rescaled).toEqual([]);
      expect(record?.maintenance?.intervalMs).toBe(41.667);
      const lines = queueTermsLines(record).join('\n');
      expect(lines).toContain('Time factor k = 1/14400 for every duration of graphile-worker');
      expect(lines).toMatch(/Setting lockTimeout: 4h in graphile-worker \(hard-coded, /);
      expect(lines).toMatch(
        /Setting pollInterval: 2s in graphile-worker \(default, dist\/config.js:\d+\), 50ms in this run — held at this floor/,
      );
      expect(lines).toMatch(/Setting retryDelayUnit: 1s in graphile-worker \(hard-coded/);
      // The users' complaint, in the library's terms (graphile/worker#222, #198).
      expect(lines).toMatch(
        /a job whose worker crashed or lost its database stays locked for all of it — 4 h in graphile-worker, 1000 ms here — and then up to one reset timer's interval \(10m; 41\.7 ms here\)/,
      );
      expect(lines).toContain('graphile/worker#222, #198');
      expect(lines).toContain(
        "rewrites interval '4 hours' in resetLockedAt (both occurrences) to interval '1000 milliseconds'",
      );
      expect(lines).toContain("interval '1 second' in failJobs to interval '0.069 milliseconds'");
    },
  );

  it("statements mode says leaseproof's loop polls, and runs one job at a time", () => {
    const { record } = settleQueueTerms(graphileWorkerQueue, LEASE);
    expect(record?.notes.join('\n')).toMatch(
      /statements mode: leaseproof's own worker loop calls graphile-worker's getJobs, completeJobs and failJobs at its own cadence — every pollInterval \(50 ms\)/,
    );
    expect(() =>
      settleQueueTerms(graphileWorkerQueue, LEASE, false, stated({ concurrency: 2 })),
    ).toThrow(/one job at a time; concurrency other than 1 needs the native mode/);
    const native = settleQueueTerms(
      graphileWorkerNativeQueue,
      LEASE,
      false,
      stated({ concurrency: 2 }),
    );
    expect(native.record?.notes).toContain('concurrency 2: a worker runs up to 2 jobs at a time');
  });

  it("takes a user's pollInterval at the same scale, and says when it replaces the scenario's poll", () => {
    const { lease, record } = settleQueueTerms(
      graphileWorkerNativeQueue,
      LEASE,
      false,
      stated({ pollInterval: '1h' }),
    );
    expect(lease.pollMs).toBe(250);
    expect(record?.notes).toContain(
      "the scenario's poll of 50 ms gives way to graphile-worker's pollInterval, 250 ms in this run",
    );
  });

  it('refuses what graphile-worker refuses, and its hard-coded durations', () => {
    expect(() =>
      settleQueueTerms(
        graphileWorkerNativeQueue,
        LEASE,
        false,
        stated({ minResetLockedInterval: '20m' }),
      ),
    ).toThrow(/refuses maxResetLockedInterval below minResetLockedInterval .*10m < 20m/);
    expect(() =>
      settleQueueTerms(graphileWorkerNativeQueue, LEASE, false, stated({ lockTimeout: '1h' })),
    ).toThrow(AdapterError);
  });

  it('the native target runs with the settled values, or the defaults at the lease’s scale', () => {
    const { settings } = settleQueueTerms(
      graphileWorkerNativeQueue,
      LEASE,
      false,
      stated({ pollInterval: '1h', concurrency: 3 }),
    );
    const sent = { lease: LEASE, settings: settings!.values };
    expect(targetSettings(sent)).toMatchObject({ pollInterval: 250, concurrency: 3 });
    const unsent = targetSettings({ lease: LEASE });
    expect(unsent.pollInterval).toBe(50);
    expect(unsent.maxResetLockedInterval).toBeCloseTo(41.667, 3);
    expect(() => targetSettings({ lease: LEASE, settings: { pollInterval: 50 } })).toThrow(
      /the run's settings have no lockTimeout/,
    );
  });

  it('0.18 runs the same mapping, its settings found in its own dist/ lines', () => {
    const v17 = settleQueueTerms(graphileWorkerNativeQueue, LEASE);
    const v18 = settleQueueTerms(graphileWorker18Queue, LEASE);
    expect(v18.settings?.values).toEqual(v17.settings?.values);
    expect(v18.lease).toEqual(v17.lease);
    const where = (run: typeof v18, name: string) =>
      run.settings?.settings.find((s) => s.name === name)?.where;
    expect(where(v17, 'pollInterval')).toBe('dist/config.js:18');
    expect(where(v18, 'pollInterval')).toBe('dist/config.js:43');
    expect(v18.record?.notes[0]).toBe(
      'graphile-worker 0.18.0, native mode under Node 22: its own run() worker pool',
    );
  });
});
