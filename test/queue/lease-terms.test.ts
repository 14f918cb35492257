import { describe, expect, it } from 'vitest';
import { AdapterError } from '../../src/queue/adapter-error.js';
import { leaseInWholeUnits, leaseTermsOf } from '../../src/queue/lease-terms.js';
import { referenceQueue } from '../../src/queue/reference-queue.js';
import type { LeaseSettings, QueueAdapter } from '../../src/queue/types.js';
import { adapterProblems } from '../../src/queue/validate-adapter.js';
import { settleQueueTerms } from '../../src/scenario/queue-terms.js';
import { queueTermsLines } from '../../src/report/queue-terms-lines.js';

const LEASE: LeaseSettings = { durationMs: 800, heartbeatMs: 200, extendByMs: 800, pollMs: 50 };

describe('lease terms', () => {
  it('rounds a lease up to whole units, never down, and says so', () => {
    expect(leaseInWholeUnits(LEASE, 1_000, 'seconds')).toEqual({
      lease: { ...LEASE, durationMs: 1_000 },
      notes: [
        "the lease is set in whole seconds: the scenario's 800 ms lease was rounded up to 1000 ms",
      ],
      rescaled: [],
    });
    expect(leaseInWholeUnits({ ...LEASE, durationMs: 2_001 }, 1_000, 's').lease.durationMs).toBe(
      3_000,
    );
    // Already whole: unchanged, nothing to say.
    expect(leaseInWholeUnits({ ...LEASE, durationMs: 2_000 }, 1_000, 's')).toEqual({
      lease: { ...LEASE, durationMs: 2_000 },
      notes: [],
      rescaled: [],
    });
  });

  it('takes the scenario lease as it is from a queue without leaseTerms', () => {
    expect(leaseTermsOf(referenceQueue, LEASE)).toEqual({ lease: LEASE, notes: [], rescaled: [] });
    expect(settleQueueTerms(referenceQueue, LEASE)).toEqual({ lease: LEASE });
  });

  it('refuses terms that are no lease, naming the adapter and each problem', () => {
    const bad: QueueAdapter = {
      ...referenceQueue,
      name: 'bad-terms',
      leaseTerms: () => ({
        lease: { ...LEASE, durationMs: 0, pollMs: Number.NaN },
        notes: 'x' as unknown as string[],
        rescaled: [{ constant: 'c' }] as never,
        attemptLimitMs: -1,
      }),
    };
    const error = (() => {
      try {
        leaseTermsOf(bad, LEASE);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AdapterError);
    expect((error as Error).message).toMatch(/queue adapter "bad-terms": leaseTerms\(\) returned/);
    expect((error as Error).message).toMatch(/lease.durationMs: expected a positive number/);
    expect((error as Error).message).toMatch(/lease.pollMs/);
    expect((error as Error).message).toMatch(/notes: expected an array/);
    expect((error as Error).message).toMatch(/rescaled: expected an array of/);
    expect((error as Error).message).toMatch(/attemptLimitMs: expected a positive number/);
    const throwing: QueueAdapter = {
      ...referenceQueue,
      name: 'throws',
      leaseTerms: () => {
        throw new Error('no');
      },
    };
    expect(() => leaseTermsOf(throwing, LEASE)).toThrow(/"throws": leaseTerms\(\) threw: no/);
  });

  it('records the terms of a queue that rounds, does not extend and needs a sweep', () => {
    const withoutExtend = Object.fromEntries(
      Object.entries(referenceQueue).filter(([key]) => key !== 'extend'),
    ) as unknown as QueueAdapter;
    const queue: QueueAdapter = {
      ...withoutExtend,
      name: 'seconds',
      leaseTerms: (requested) => leaseInWholeUnits(requested, 1_000, 'seconds'),
      maintenance: {
        description: 'sweeps',
        intervalMs: (l) => l.durationMs / 2,
        run: async () => {},
      },
    };
    expect(adapterProblems(queue)).toEqual([]);
    expect(settleQueueTerms(queue, LEASE)).toEqual({
      lease: { ...LEASE, durationMs: 1_000 },
      record: {
        requestedLease: LEASE,
        notes: [expect.stringMatching(/rounded up to 1000 ms/)],
        rescaled: [],
        extendsLease: false,
        maintenance: { description: 'sweeps', intervalMs: 500 },
      },
    });
  });

  it('checks the shapes of the optional members', () => {
    const problems = adapterProblems({
      ...referenceQueue,
      extend: 'yes',
      leaseTerms: 3,
      maintenance: { description: '', intervalMs: 5 },
      retries: 'no',
    });
    expect(problems).toEqual([
      expect.stringMatching(/^extend: got a string .*no lease extension/),
      expect.stringMatching(/^leaseTerms: got a number/),
      expect.stringMatching(/^maintenance.description: got a string/),
      expect.stringMatching(/^maintenance.intervalMs: got a number/),
      expect.stringMatching(/^maintenance.run: missing/),
      expect.stringMatching(/^retries: got a string .*true or false/),
    ]);
  });

  it('checks the shape of a library settings spec', () => {
    expect(
      adapterProblems({
        ...referenceQueue,
        settings: {
          library: 'My Queue',
          anchor: 'Missing',
          settings: [{ name: 'Timeout', kind: 'hours', default: -1, where: '' }],
        },
      }),
    ).toEqual([
      expect.stringMatching(/^settings.library: got a string/),
      expect.stringMatching(/^settings.settings\[0\].kind: got a string .*'duration' or 'count'/),
      expect.stringMatching(/^settings.settings\[0\].default: got a number/),
      expect.stringMatching(/^settings.settings\[0\].where: got a string/),
      expect.stringMatching(/^settings.anchor: got a string .*one of its settings' names/),
    ]);
    expect(
      adapterProblems({
        ...referenceQueue,
        settings: {
          library: 'my-queue',
          anchor: 'Timeout',
          settings: [{ name: 'Timeout', kind: 'duration', default: 60_000, where: 'docs' }],
        },
      }),
    ).toEqual([]);
  });

  it('records a queue that declares no retries, and says so in the reports', () => {
    const queue: QueueAdapter = { ...referenceQueue, name: 'no-retries', retries: false };
    expect(adapterProblems(queue)).toEqual([]);
    const settled = settleQueueTerms(queue, LEASE);
    expect(settled.record).toEqual({
      requestedLease: LEASE,
      notes: [],
      rescaled: [],
      extendsLease: true,
      retries: false,
    });
    expect(queueTermsLines(settled.record)).toEqual([
      expect.stringMatching(/^No retries: a failed attempt leaves the job failed/),
    ]);
    // Declaring retries is the default: nothing to record.
    expect(settleQueueTerms({ ...referenceQueue, retries: true }, LEASE)).toEqual({ lease: LEASE });
  });
});

describe('the terms of a native queue whose library sweeps inside its workers (River)', () => {
  it('takes the lease as JobTimeout and judges against RescueStuckJobsAfter, 60 leases', async () => {
    const { riverQueue } = await import('../../src/libraries/river/adapter.js');
    expect(adapterProblems(riverQueue)).toEqual([]);
    const SECOND = { durationMs: 1_000, heartbeatMs: 250, extendByMs: 1_000, pollMs: 50 };
    const { lease, record, settings } = settleQueueTerms(riverQueue, SECOND);
    // k = 1 s / 1 min: River's 1 h rescue is 60 s, its 1 s poll 16.7 ms (+ River's 10 ms jitter).
    expect(settings?.k).toBeCloseTo(1 / 60);
    expect(settings?.values).toMatchObject({ JobTimeout: 1_000, RescueStuckJobsAfter: 60_000 });
    expect(settings?.values.FetchPollInterval).toBeCloseTo(1_000 / 60);
    expect(settings?.values.FetchCooldown).toBeCloseTo(100 / 60);
    expect(settings?.values.JobRescuerIntervalDefault).toBe(500);
    expect(settings?.values.electIntervalTTLPaddingDefault).toBeCloseTo(10_000 / 60);
    // No heartbeat: the checkers' lease is the rescue horizon, held for its whole length.
    expect(lease).toEqual({
      durationMs: 60_000,
      heartbeatMs: 60_000,
      extendByMs: 60_000,
      pollMs: 1_000 / 60 + 10,
    });
    expect(record?.extendsLease).toBe(false);
    // River cuts each attempt at JobTimeout: I3 judges a job's length against that.
    expect(record?.attemptLimitMs).toBe(1_000);
    // Rescuer 30 s → 500 ms, scheduler 5 s → 83.3 ms, first backoff ≤ 1.1 s → 18.3 ms.
    expect(record?.maintenance?.intervalMs).toBe(602);
    expect(record?.rescaled).toEqual([]);
    const lines = queueTermsLines(record).join('\n');
    expect(lines).toMatch(/Background sweep every 602ms: River's job rescuer/);
    expect(lines).toMatch(/Setting RescueStuckJobsAfter: 1h in river \(default.*1m in this run/);
    expect(lines).toMatch(/the scenario's lease \(1s\) is River's JobTimeout/);
  });

  it("takes River's settings as stated, and River's own default rule for the rescue", async () => {
    const { riverQueue } = await import('../../src/libraries/river/adapter.js');
    const SECOND = { durationMs: 1_000, heartbeatMs: 250, extendByMs: 1_000, pollMs: 50 };
    const stated = (values: Record<string, string>) => ({ values, source: '--setting' });
    const short = settleQueueTerms(
      riverQueue,
      SECOND,
      false,
      stated({ RescueStuckJobsAfter: '2m' }),
    );
    expect(short.lease.durationMs).toBe(2_000);
    // A JobTimeout over 1 h: River's default rescue is JobTimeout + 1 h (client.go:528-533).
    const long = settleQueueTerms(riverQueue, SECOND, false, stated({ JobTimeout: '2h' }));
    expect(long.settings?.values.RescueStuckJobsAfter).toBeCloseTo(1_500);
    // Held at the machine's floor: 1 s ÷ 2 h × 1 s would poll every 0.14 ms.
    const poll = long.settings?.settings.find((s) => s.name === 'FetchPollInterval');
    expect(poll?.runValue).toBe(10);
    expect(poll?.held?.drives).toMatch(/I8/);
  });

  it("refuses a RescueStuckJobsAfter below JobTimeout in River's words", async () => {
    const { riverQueue } = await import('../../src/libraries/river/adapter.js');
    const SECOND = { durationMs: 1_000, heartbeatMs: 250, extendByMs: 1_000, pollMs: 50 };
    expect(() =>
      settleQueueTerms(riverQueue, SECOND, false, {
        values: { JobTimeout: '10m', RescueStuckJobsAfter: '5m' },
        source: 'crash.yaml',
      }),
    ).toThrow(
      /crash\.yaml: river refuses these settings: River's NewClient says "RescueStuckJobsAfter cannot be less than JobTimeout".*must be greater than JobTimeout/,
    );
    // Equal is what River's code takes; the run says what its docs warn.
    const equal = settleQueueTerms(riverQueue, SECOND, false, {
      values: { RescueStuckJobsAfter: '1m' },
      source: '--setting',
    });
    expect(equal.lease.durationMs).toBe(1_000);
    expect(equal.record?.notes.join('\n')).toMatch(/equals JobTimeout: River takes it/);
  });

  it('refuses a native sweep of the wrong shape', () => {
    const problems = adapterProblems({
      ...referenceQueue,
      native: {
        description: 'a loop',
        extendsLease: true,
        program: () => Promise.resolve({ command: ['x'] }),
        sweep: { description: '', intervalMs: 5 },
      },
    });
    expect(problems).toEqual([
      expect.stringMatching(/^native.sweep.description: got a string/),
      expect.stringMatching(/^native.sweep.intervalMs: got a number/),
    ]);
  });
});

describe('the terms of the Node libraries in native mode', () => {
  it("pg-boss-native: whole-second lease, pg-boss's settings at one factor, floors held", async () => {
    const { pgBossNativeQueue } = await import('../../src/libraries/pg-boss/native-adapter.js');
    expect(adapterProblems(pgBossNativeQueue)).toEqual([]);
    const { lease, record, settings } = settleQueueTerms(pgBossNativeQueue, LEASE);
    // 800 ms → 1 s (expireInSeconds); k = 800 ms / 15 min: the 2 s poll would be 1.8 ms and is
    // held at pg-boss's least, 500 ms; the 120 s maintenance would be 107 ms, held at 1 s.
    expect(lease).toEqual({
      durationMs: 1_000,
      heartbeatMs: 1_000,
      extendByMs: 1_000,
      pollMs: 500,
    });
    expect(settings?.k).toBeCloseTo(800 / 900_000);
    expect(settings?.values.maintenanceIntervalSeconds).toBe(1_000);
    expect(record?.extendsLease).toBe(false);
    // One expire() per maintenanceIntervalSeconds across the workers: two intervals at most.
    expect(record?.maintenance?.intervalMs).toBe(2_000);
    const lines = queueTermsLines(record).join('\n');
    expect(lines).toMatch(/rounded up to 1000 ms/);
    expect(lines).toMatch(/lease is pg-boss's expireInSeconds \(15m, its default\)/);
    expect(lines).toMatch(/Setting pollingIntervalSeconds: 2s .*500ms in this run — held/);
  });

  it('pg-boss@12: no heartbeat by default, so the lease is expireInSeconds, never extended', async () => {
    const { pgBoss12Queue } = await import('../../src/libraries/pg-boss/v12-adapter.js');
    expect(adapterProblems(pgBoss12Queue)).toEqual([]);
    const { lease, record } = settleQueueTerms(pgBoss12Queue, LEASE);
    expect(lease).toEqual({
      durationMs: 1_000,
      heartbeatMs: 1_000,
      extendByMs: 1_000,
      pollMs: 500,
    });
    expect(record?.extendsLease).toBe(false);
    expect(record?.maintenance?.intervalMs).toBe(2_000);
    expect(record?.rescaled).toEqual([]);
    expect(record?.fencedOnly).toMatch(/only apply to the attempt it claimed/);
    const lines = queueTermsLines(record).join('\n');
    expect(lines).toMatch(/lease is pg-boss-12's expireInSeconds/);
    expect(lines).toMatch(/no heartbeat by default/);
  });

  it('pg-boss@12 with heartbeatSeconds stated: the heartbeat is the lease, the expiry its cap', async () => {
    const { pgBoss12Queue } = await import('../../src/libraries/pg-boss/v12-adapter.js');
    const stated = { values: { heartbeatSeconds: '30s' }, source: 'test' };
    const { lease, record, settings } = settleQueueTerms(pgBoss12Queue, LEASE, false, stated);
    // k = 800 ms / 30 s: expireInSeconds' 15 min is 24 s; pg-boss's own refresh, half the lease.
    expect(settings?.values.expireInSeconds).toBeCloseTo(24_000);
    expect(lease).toEqual({ durationMs: 1_000, heartbeatMs: 500, extendByMs: 1_000, pollMs: 500 });
    expect(record?.extendsLease).toBe(true);
    expect(record?.rescaled).toEqual([
      expect.objectContaining({ constant: 'least heartbeatSeconds', run: '1 s' }),
    ]);
    expect(queueTermsLines(record).join('\n')).toMatch(/heartbeat's staleness is the lease/);
  });

  it('graphile-worker-native: the lock timeout is the lease, every other duration at its scale', async () => {
    const { graphileWorkerNativeQueue } =
      await import('../../src/libraries/graphile-worker/native-adapter.js');
    expect(adapterProblems(graphileWorkerNativeQueue)).toEqual([]);
    const { lease, record } = settleQueueTerms(graphileWorkerNativeQueue, LEASE);
    expect(lease).toEqual({ ...LEASE, heartbeatMs: 800, extendByMs: 800 });
    // 10 minutes of 4 hours = lease / 24: 800 ms → 33.333 ms (see graphile-worker-settings.test.ts).
    expect(record?.maintenance?.intervalMs).toBe(33.333);
    expect(record?.rescaled).toEqual([]);
  });
});

describe('the terms of db-scheduler: its lease is heartbeatInterval × missedHeartbeatsLimit', () => {
  const ONE_SECOND: LeaseSettings = {
    durationMs: 1_000,
    heartbeatMs: 250,
    extendByMs: 1_000,
    pollMs: 50,
  };
  const load = () => import('../../src/libraries/db-scheduler/adapter.js');

  it("runs db-scheduler's defaults compressed by one factor: k = lease ÷ 30 min", async () => {
    const { dbSchedulerQueue } = await load();
    expect(adapterProblems(dbSchedulerQueue)).toEqual([]);
    const { lease, record, settings } = settleQueueTerms(dbSchedulerQueue, ONE_SECOND);
    expect(settings?.k).toBeCloseTo(1 / 1_800);
    // Six missed heartbeats of 1 s / 6: the scenario's heartbeat (250 ms) and poll (50 ms) are
    // not db-scheduler's, its pollingInterval of 10 s is — 5.6 ms here, held at its 50 ms floor.
    expect(lease.durationMs).toBeCloseTo(1_000);
    expect(lease.extendByMs).toBeCloseTo(1_000);
    expect(lease.heartbeatMs).toBeCloseTo(1_000 / 6);
    expect(lease.pollMs).toBe(50);
    expect(settings?.values).toMatchObject({ missedHeartbeatsLimit: 6, threads: 1 });
    expect(settings?.values.deadExecutionDetectionInterval).toBeCloseTo(2_000 / 6);
    expect(settings?.values.shutdownMaxWait).toBeCloseTo(1_000);
    expect(settings?.values.OnFailureRetryLater).toBeCloseTo(300_000 / 1_800);
    expect(record?.rescaled).toEqual([]);
    // The detector every 2 × heartbeatInterval, and one poll to pick what it revived.
    expect(record?.maintenance?.intervalMs).toBe(Math.round(2_000 / 6 + 50));
    const lines = queueTermsLines(record).join('\n');
    expect(lines).toMatch(/Setting heartbeatInterval: 5m in db-scheduler \(default/);
    expect(lines).toMatch(
      /Setting deadExecutionDetectionInterval: 10m .*hard-coded as 2 × heartbeatInterval/,
    );
    expect(lines).toMatch(/Setting threads: 1 .*library default is 10/);
    expect(lines).toMatch(
      /Setting pollingInterval: 10s .* 50ms in this run — held at this floor instead of 5\.556ms \(a db-scheduler JVM .*\); it drives I8/,
    );
    expect(lines).toMatch(/heartbeat \(250 ms\) and poll \(50 ms\) are not used/);
  });

  it("takes a user's settings in db-scheduler's words and keeps the scenario's lease", async () => {
    const { dbSchedulerQueue } = await load();
    const stated = {
      heartbeatInterval: '1m',
      missedHeartbeatsLimit: 10,
      OnFailureRetryLater: '30s',
    };
    const { lease, settings } = settleQueueTerms(dbSchedulerQueue, ONE_SECOND, false, {
      values: stated,
      source: 'test',
    });
    // 1 min × 10 = the lease: k = 1/600, the heartbeat 100 ms, the retry 50 ms, the poll 10 s / 600.
    expect(lease.durationMs).toBeCloseTo(1_000);
    expect(lease.heartbeatMs).toBeCloseTo(100);
    expect(settings?.values.OnFailureRetryLater).toBeCloseTo(50);
    expect(settings?.values.deadExecutionDetectionInterval).toBeCloseTo(200);
    expect(() =>
      settleQueueTerms(dbSchedulerQueue, ONE_SECOND, false, {
        values: { missedHeartbeatsLimit: 3 },
        source: 'test',
      }),
    ).toThrow(/missedHeartbeatsLimit: expected a whole number of at least 4/);
    expect(() =>
      settleQueueTerms(dbSchedulerQueue, ONE_SECOND, false, {
        values: { threads: 10 },
        source: 'test',
      }),
    ).toThrow(/threads 10 is not supported yet/);
  });

  it('holds a heartbeat under 1 ms at its floor, and the lease it judges is the one db-scheduler keeps', async () => {
    const { dbSchedulerQueue } = await load();
    const { lease, settings } = settleQueueTerms(dbSchedulerQueue, {
      ...ONE_SECOND,
      durationMs: 3,
      extendByMs: 3,
    });
    expect(settings?.values.heartbeatInterval).toBe(1);
    expect(settings?.settings.find((s) => s.name === 'heartbeatInterval')?.held?.why).toMatch(
      /scheduleWithFixedDelay/,
    );
    expect(lease.durationMs).toBe(6);
  });

  it('refuses a declared lease tolerance that is no duration', async () => {
    const { dbSchedulerQueue } = await load();
    const broken: QueueAdapter = {
      ...dbSchedulerQueue,
      contract: { leaseTolerance: { ms: () => -1, why: 'x' } },
    };
    expect(() => settleQueueTerms(broken, ONE_SECOND)).toThrow(
      /contract\.leaseTolerance\.ms\(\) returned -1; expected a duration of 0 ms or more/,
    );
  });

  it('declares one heartbeatInterval as its lease tolerance, carried in the record', async () => {
    const { dbSchedulerQueue } = await load();
    const { record } = settleQueueTerms(dbSchedulerQueue, ONE_SECOND);
    expect(record?.leaseTolerance?.ms).toBeCloseTo(1_000 / 6);
    expect(record?.leaseTolerance?.why).toMatch(/^one heartbeatInterval: db-scheduler counts/);
    expect(queueTermsLines(record).join('\n')).toMatch(
      /Lease tolerance: I6 allows a deadline up to 166\.667ms/,
    );
  });
});
