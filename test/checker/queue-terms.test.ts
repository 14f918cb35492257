import { describe, expect, it } from 'vitest';
import { boundedZombie } from '../../src/checker/bounded-zombie.js';
import { explainedExpiry } from '../../src/checker/explained-expiry.js';
import { timelyRecovery } from '../../src/checker/timely-recovery.js';
import type { History, QueueTermsRecord } from '../../src/history/types.js';
import { effectAfterLostClaim, expiryWithoutFault } from './fixtures/anomalies.js';
import { HistoryBuilder, LEASE } from './fixtures/history-builder.js';
import { check } from './support.js';

// What a queue without lease extension (pg-boss 10, graphile-worker) records in the header.
const NO_EXTENSION: QueueTermsRecord = {
  requestedLease: LEASE,
  notes: [],
  rescaled: [],
  extendsLease: false,
};

function withTerms(history: History, queueTerms: QueueTermsRecord): History {
  return { ...history, header: { ...history.header, queueTerms } };
}

describe('checkers and a queue without lease extension', () => {
  it('I7 judges a zombie when the queue extends leases, and says unknown with why when it cannot', () => {
    expect(check(boundedZombie, effectAfterLostClaim()).valid).toBe('invalid');
    const result = check(boundedZombie, withTerms(effectAfterLostClaim(), NO_EXTENSION));
    expect(result.valid).toBe('unknown');
    expect(result.why).toMatch(/has no lease extension \(no heartbeat\): the watchdog bound/);
    expect(result.evidence).toEqual([]);
    // The window is still measured and reported.
    expect(result.counts.zombies).toBe(1);
  });

  it('I9 flags an unexplained expiry under strict causes, and is unknown without extension', () => {
    expect(check(explainedExpiry, expiryWithoutFault(), { strictCauses: true }).valid).toBe(
      'invalid',
    );
    const result = check(explainedExpiry, withTerms(expiryWithoutFault(), NO_EXTENSION), {
      strictCauses: true,
    });
    expect(result.valid).toBe('unknown');
    expect(result.why).toMatch(/expires by design.*1 of 1 expiries had no fault/);
  });

  it('a header whose queue extends leases changes nothing', () => {
    const terms = { ...NO_EXTENSION, extendsLease: true, notes: ['rounded'] };
    expect(check(boundedZombie, withTerms(effectAfterLostClaim(), terms)).valid).toBe('invalid');
  });
});

describe('timely-recovery after a sweeper released the claim', () => {
  // graphile-worker: w1's lock expires at +200, its sweeper frees it at +205, and w1's late
  // delete completes the job at +215, within poll + ε of the expiry: nothing waited for a re-claim after that.
  function lateDeleteAfterSweep(completeAt: number | undefined): History {
    const b = new HistoryBuilder();
    b.enqueue('1', 0).grant('1', 'w1', 'a', 0).unit('1', 'w1', 'a', 0, 1);
    b.reap('1', 'leaseproof-maintenance', 205);
    if (completeAt !== undefined) b.remove('1', 'w1', completeAt);
    return b.end(1000).build();
  }

  it('ends the stall at the completion', () => {
    const result = check(timelyRecovery, lateDeleteAfterSweep(215));
    expect(result.valid).toBe('valid');
    expect(result.stats?.stallMs).toMatchObject({ count: 1, max: 15 });
  });

  it('ends it when the sweeper gives the job up for good (pg-boss: retries spent)', () => {
    const b = new HistoryBuilder();
    b.enqueue('1', 0).grant('1', 'w1', 'a', 0).unit('1', 'w1', 'a', 0, 1);
    b.fail('1', 'leaseproof-maintenance', 205, 'dead');
    const result = check(timelyRecovery, b.end(1000).build());
    expect(result.valid).toBe('valid');
    expect(result.counts).toMatchObject({ expired: 1, recovered: 1, unrecovered: 0 });
  });

  it('still flags the job when nothing completes or re-claims it while w2 is free', () => {
    const result = check(timelyRecovery, lateDeleteAfterSweep(undefined));
    expect(result.valid).toBe('invalid');
    expect(result.evidence[0]?.message).toMatch(/was never re-claimed/);
  });
});
