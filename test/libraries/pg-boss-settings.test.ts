import { describe, expect, it } from 'vitest';
import { pgBossQueue } from '../../src/libraries/pg-boss/adapter.js';
import { pgBossNativeQueue } from '../../src/libraries/pg-boss/native-adapter.js';
import { PG_BOSS_10_SETTINGS, PG_BOSS_12_SETTINGS } from '../../src/libraries/pg-boss/settings.js';
import { pgBoss12Queue } from '../../src/libraries/pg-boss/v12-adapter.js';
import { settingSeconds } from '../../src/native/targets/pg-boss-target.js';
import { leaseTermsOf } from '../../src/queue/lease-terms.js';
import { referenceQueue } from '../../src/queue/reference-queue.js';
import type { LeaseSettings } from '../../src/queue/types.js';
import { settleQueueTerms } from '../../src/scenario/queue-terms.js';

const LEASE: LeaseSettings = { durationMs: 1_000, heartbeatMs: 200, extendByMs: 1_000, pollMs: 50 };
const stated = (values: Record<string, string>) => ({ values, source: 'test' });

describe("pg-boss's maintenance cadence is its settled maintenanceIntervalSeconds", () => {
  it('a stated interval above the floor runs at k, in the harness and in the native workers', () => {
    // 20 min at k = 1 s / 15 min: 1333 ms, above pg-boss's least of 1 s.
    const s = stated({ maintenanceIntervalSeconds: '20m' });
    const statements = settleQueueTerms(pgBossQueue, LEASE, false, s);
    expect(statements.record?.maintenance?.intervalMs).toBeCloseTo(1_333.333);
    const native = settleQueueTerms(pgBossNativeQueue, LEASE, false, s);
    // One pass per interval across the workers (maintained_on): two intervals at most.
    expect(native.record?.maintenance?.intervalMs).toBeCloseTo(2_666.667);
    // The worker program configures pg-boss with the settled value, in seconds.
    expect(
      settingSeconds(native.settings?.values, 'maintenanceIntervalSeconds', () => 0, LEASE),
    ).toBeCloseTo(1.333);
  });

  it('pg-boss refuses less than 1 s: the default 120 s is held there, and the report says what it drives', () => {
    const { settings } = settleQueueTerms(pgBossQueue, LEASE);
    const maintenance = settings?.settings.find((x) => x.name === 'maintenanceIntervalSeconds');
    expect(maintenance?.runValue).toBe(1_000);
    expect(maintenance?.held?.drives).toMatch(/^I8 and the strict half of I1/);
  });

  it("a native worker handed no settings falls back to pg-boss's defaults at the lease", () => {
    expect(
      settingSeconds(
        undefined,
        'pollingIntervalSeconds',
        (l) => (l.durationMs / 900_000) * 2_000,
        LEASE,
      ),
    ).toBeCloseTo(2 / 900);
  });
});

describe('two specs, two keys: the same name is not the same setting in 10 and 12', () => {
  it('keys pg-boss and pg-boss-12; heartbeatSeconds only in 12, the expiry cadence by its own name', () => {
    expect(PG_BOSS_10_SETTINGS.library).toBe('pg-boss');
    expect(PG_BOSS_12_SETTINGS.library).toBe('pg-boss-12');
    expect(() =>
      settleQueueTerms(pgBossQueue, LEASE, false, stated({ heartbeatSeconds: '30s' })),
    ).toThrow(/pg-boss has no setting "heartbeatSeconds"/);
    const v12 = settleQueueTerms(
      pgBoss12Queue,
      LEASE,
      false,
      stated({ monitorIntervalSeconds: '2h' }),
    );
    // 2 h at k = 1 s / 15 min: 8 s, the longer of supervise and monitor, twice.
    expect(v12.record?.maintenance?.intervalMs).toBe(16_000);
  });
});

describe("a lease's terms may say whether this run extends the lease", () => {
  it('is taken over the adapter’s own answer, and refused when not a boolean', () => {
    const noExtension = {
      ...referenceQueue,
      leaseTerms: (l: LeaseSettings) => ({
        lease: l,
        notes: [],
        rescaled: [],
        extendsLease: false,
      }),
    };
    expect(settleQueueTerms(noExtension, LEASE).record?.extendsLease).toBe(false);
    const bad = {
      ...referenceQueue,
      leaseTerms: (l: LeaseSettings) => ({
        lease: l,
        notes: [],
        rescaled: [],
        extendsLease: 'no' as unknown as boolean,
      }),
    };
    expect(() => leaseTermsOf(bad, LEASE)).toThrow(/extendsLease: expected true, false or absent/);
  });
});
