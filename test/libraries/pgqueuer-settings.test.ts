import { describe, expect, it } from 'vitest';
import { pgqueuerQueue } from '../../src/libraries/pgqueuer/adapter.js';
import { pgqueuerStatementsQueue } from '../../src/libraries/pgqueuer/statements-adapter.js';
import { queueTermsLines } from '../../src/report/queue-terms-lines.js';
import type { LeaseSettings } from '../../src/queue/types.js';
import { adapterProblems } from '../../src/queue/validate-adapter.js';
import { settleQueueTerms } from '../../src/scenario/queue-terms.js';

const LEASE: LeaseSettings = { durationMs: 1_000, heartbeatMs: 200, extendByMs: 1_000, pollMs: 50 };

describe("pgqueuer's settings: the lease is heartbeat_timeout, every duration at one factor", () => {
  it('native: heartbeats at half the timeout, polls at dequeue_timeout, constants compressed or held', () => {
    expect(adapterProblems(pgqueuerQueue)).toEqual([]);
    const { lease, settings, record } = settleQueueTerms(pgqueuerQueue, LEASE);
    // k = 1 s / 30 s.
    expect(settings?.k).toBeCloseTo(1 / 30);
    expect(lease).toEqual({
      durationMs: 1_000,
      heartbeatMs: 500,
      extendByMs: 1_000,
      pollMs: 1_000,
    });
    // The 100 ms re-check would be 3.3 ms; held at 10 ms. The 10 s listener check cannot be set.
    expect(settings?.values.min_dequeue_poll_interval).toBe(10);
    expect(settings?.values['listener health check']).toBe(10_000);
    const lines = queueTermsLines(record).join('\n');
    expect(lines).toMatch(/lease is pgqueuer's heartbeat_timeout \(30s, its default\): k = 1\/30/);
    expect(lines).toMatch(/Setting dequeue_timeout: 30s in pgqueuer .*1s in this run/);
  });

  it("a stated heartbeat_timeout sets k: dequeue_timeout keeps pgqueuer's ratio to it", () => {
    const stated = { values: { heartbeat_timeout: '2m' }, source: 'test' };
    const { lease, settings } = settleQueueTerms(pgqueuerQueue, LEASE, false, stated);
    expect(settings?.k).toBeCloseTo(1 / 120);
    // 30 s of 2 min: a quarter of the lease.
    expect(lease.pollMs).toBeCloseTo(250);
    expect(lease.durationMs).toBe(1_000);
  });

  it("statements: leaseproof's loop at pgqueuer's cadences, from the same settings", () => {
    expect(pgqueuerStatementsQueue.settings).toBe(pgqueuerQueue.settings);
    const { lease, settings } = settleQueueTerms(pgqueuerStatementsQueue, LEASE);
    expect(settings?.library).toBe('pgqueuer');
    expect(lease).toEqual({
      durationMs: 1_000,
      heartbeatMs: 500,
      extendByMs: 1_000,
      pollMs: 1_000,
    });
  });
});
