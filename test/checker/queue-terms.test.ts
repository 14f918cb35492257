import { describe, expect, it } from 'vitest';
import { boundedZombie } from '../../src/checker/bounded-zombie.js';
import { explainedExpiry } from '../../src/checker/explained-expiry.js';
import { noLostJob } from '../../src/checker/no-lost-job.js';
import { leaseHonored } from '../../src/checker/lease-honored.js';
import { noStaleAck } from '../../src/checker/no-stale-ack.js';
import { checkpointByReplacedClaim, staleExtendNobodyReclaiming } from './fixtures/stale-writes.js';
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
  it('I7 judges a zombie when the queue extends leases, and from the deadline when it does not', () => {
    expect(check(boundedZombie, effectAfterLostClaim()).valid).toBe('invalid');
    // No heartbeat: the worker knows its deadline, so its effects must stop within one unit
    // of it (River cancels at JobTimeout; pg-boss 10 never stops an expired handler).
    const result = check(boundedZombie, withTerms(effectAfterLostClaim(), NO_EXTENSION));
    expect(result.valid).toBe('invalid');
    expect(result.evidence[0]!.message).toMatch(
      /\(no heartbeat: from the deadline, longest unit \+ ε/,
    );
    expect(result.counts.zombies).toBe(1);
  });

  it('I7 without lease extension passes a handler that stops within one unit of its deadline', () => {
    const b = new HistoryBuilder();
    b.enqueue('1', 0).grant('1', 'w1', 'a', 0).unit('1', 'w1', 'a', 0, 1, 20);
    b.unit('1', 'w1', 'a', 1, 190, 205);
    b.grant('1', 'w2', 'b', 255).unit('1', 'w2', 'b', 0, 256, 275).ack('1', 'w2', 290, 'b');
    const history = withTerms(b.end(700).build(), NO_EXTENSION);
    const result = check(boundedZombie, history);
    expect(result.valid, result.evidence[0]?.message).toBe('valid');
    expect(result.counts.zombies).toBe(1);
  });

  it('I9 flags an unexplained expiry under strict causes, and is n/a without extension', () => {
    expect(check(explainedExpiry, expiryWithoutFault(), { strictCauses: true }).valid).toBe(
      'invalid',
    );
    const result = check(explainedExpiry, withTerms(expiryWithoutFault(), NO_EXTENSION), {
      strictCauses: true,
    });
    expect(result.valid).toBe('n/a');
    expect(result.why).toMatch(/expires by design.*1 of 1 expiries had no fault/);
  });

  it('I3 is n/a for a job whose work outlasts the lease of a queue without extension, and still flags any other', () => {
    // Each claim of job 1 (300 ms of work, lease 200 ms) expires under it; job 2 (100 ms) was
    // simply never completed.
    const history = (totalMs: number, extendsLease: boolean) => {
      const b = new HistoryBuilder();
      b.enqueue('1', 0, { units: 3, maxUnitMs: 100, totalMs });
      b.grant('1', 'w1', 'a', 1).unit('1', 'w1', 'a', 0, 2).grant('1', 'w2', 'b', 210);
      const h = b.end(700).build();
      return extendsLease ? h : withTerms(h, NO_EXTENSION);
    };
    const na = check(noLostJob, history(300, false));
    expect(na.valid).toBe('n/a');
    expect(na.why).toMatch(
      /declares no lease extension.*1 job\(s\) not done need more than one 200ms lease of work \(the longest 300ms\)/,
    );
    expect(na.counts).toMatchObject({ needsExtension: 1, lost: 0 });
    // A queue that extends leases promised it; a short job was lost either way.
    expect(check(noLostJob, history(300, true)).valid).toBe('invalid');
    expect(check(noLostJob, history(100, false)).valid).toBe('invalid');
  });

  it("I3 takes the library's attempt limit over the lease where it is shorter (River's JobTimeout)", () => {
    // Lease (the rescue) 200 ms, but each attempt is cut at 100 ms: a 150 ms job never completes.
    const history = (terms: QueueTermsRecord) => {
      const b = new HistoryBuilder();
      b.enqueue('1', 0, { units: 3, maxUnitMs: 50, totalMs: 150 });
      b.grant('1', 'w1', 'a', 1).unit('1', 'w1', 'a', 0, 2);
      return withTerms(b.end(700).build(), terms);
    };
    expect(check(noLostJob, history(NO_EXTENSION)).valid).toBe('invalid');
    const na = check(noLostJob, history({ ...NO_EXTENSION, attemptLimitMs: 100 }));
    expect(na.valid).toBe('n/a');
    expect(na.why).toMatch(
      /need more than one 100ms attempt limit \(the library cuts it\) of work/,
    );
  });

  it('I6 judges a per-worker lease against that lease: a fetch joins its worker window', () => {
    // procrastinate: w1's heartbeat row was written at +100, so the job it fetches at +150 is
    // held until +300 (the window's end), not +350; its heartbeat at +250 moves it to +450.
    const history = (perWorkerLease: boolean, windowEnd: number) => {
      const b = new HistoryBuilder();
      b.enqueue('1', 0).grant('1', 'w1', 'a', 150, windowEnd).extend('1', 'w1', 250);
      b.ack('1', 'w1', 300, 'a');
      const h = b.end(500).build();
      return perWorkerLease
        ? withTerms(h, { ...NO_EXTENSION, extendsLease: true, perWorkerLease: 'workers' })
        : h;
    };
    const joined = check(leaseHonored, history(true, 300));
    expect(joined.valid, joined.evidence[0]?.message).toBe('valid');
    expect(joined.counts).toMatchObject({ joinedWorkerWindow: 1, offGrants: 0 });
    // Judged per job, the same grant is 50 ms short.
    expect(check(leaseHonored, history(false, 300)).valid).toBe('invalid');
    // A window that had already ended when the job was fetched is no lease at all.
    const closed = check(leaseHonored, history(true, 140));
    expect(closed.valid).toBe('invalid');
    expect(closed.evidence[0]?.message).toMatch(
      /window had already closed at \+140ms, 10ms before this fetch: a worker whose heartbeat was stale took a job/,
    );
  });

  it("I9 warns, never fails, on an expiry after a blocked loop the library's usage contract rules out", () => {
    const CONTRACT = 'heartbeats share the loop: "Wrap blocking code with asyncio.to_thread()"';
    const stalled = () => {
      const h = expiryWithoutFault();
      // w1's event loop is blocked from +50 to +260 (a stall fault), across its expiry at +200.
      const b = new HistoryBuilder().fault('stall', 'w1', 50, 260).build();
      return { ...h, events: [...h.events, ...b.events].sort((x, y) => x.t - y.t) };
    };
    const terms = { ...NO_EXTENSION, extendsLease: true, blockingLoopContract: CONTRACT };
    const result = check(explainedExpiry, withTerms(stalled(), terms), { strictCauses: true });
    expect(result.valid).toBe('valid');
    expect(result.counts).toMatchObject({ brokeUsageContract: 1, unexplained: 0 });
    expect(result.warnings?.[0]).toMatch(
      /1 of 1 expiries followed a blocked event loop .*Wrap blocking code/,
    );
    // Without the contract, a stall explains nothing: a heartbeat on its own thread beats through it.
    const plain = { ...terms, blockingLoopContract: undefined };
    expect(check(explainedExpiry, withTerms(stalled(), plain), { strictCauses: true }).valid).toBe(
      'invalid',
    );
    // With the contract, an expiry with no blocked loop is still unexplained.
    expect(
      check(explainedExpiry, withTerms(expiryWithoutFault(), terms), { strictCauses: true }).valid,
    ).toBe('invalid');
  });

  it('I1 judges a queue that promises the fenced contract only by it, and states the strict one beside', () => {
    const terms = { ...NO_EXTENSION, extendsLease: true, fencedOnly: 'a version fence' };
    // A late heartbeat and ack with nobody re-claiming: a strict violation, not a fenced one.
    const nobody = check(noStaleAck, withTerms(staleExtendNobodyReclaiming(), terms));
    expect(nobody.valid).toBe('valid');
    expect(nobody.counts).toMatchObject({ strictOnly: 2, stale: 0 });
    expect(nobody.warnings?.[0]).toMatch(
      /^the strict lease contract, which this queue does not promise: 2 write\(s\) .*\(fenced\): a version fence$/,
    );
    expect(nobody.evidence[0]!.message).toMatch(/a resurrected lease|with nobody re-claiming/);
    // Without the contract the same history is invalid (strict, the default).
    expect(check(noStaleAck, staleExtendNobodyReclaiming()).valid).toBe('invalid');
    // A write after another worker took the job breaks the fenced contract too.
    const replaced = check(noStaleAck, withTerms(checkpointByReplacedClaim(), terms));
    expect(replaced.valid).toBe('invalid');
    expect(replaced.counts).toMatchObject({ staleCheckpoints: 1 });
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
