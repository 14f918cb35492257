import { describe, expect, it } from 'vitest';
import { explainedExpiry } from '../../src/checker/explained-expiry.js';
import {
  cleanRecoveryAfterPause,
  cleanRun,
  expiryOfALateGrant,
  expiryUnderStall,
  expiryWithoutFault,
  lateReclaimWhileWorkerFree,
} from './fixtures/anomalies.js';
import { check } from './support.js';
import { HistoryBuilder } from './fixtures/history-builder.js';

describe('explained-expiry (I9)', () => {
  it('warns about an expiry with no fault on the holder (valid by default)', () => {
    const result = check(explainedExpiry, expiryWithoutFault());
    expect(result.valid).toBe('valid');
    expect(result.counts).toMatchObject({ expired: 1, unexplained: 1 });
    expect(result.warnings?.[0]).toMatch(/1 of 1 expiries coincide with no fault on their holder/);
    expect(result.evidence[0]?.message).toMatch(
      /claim 1 of w1 expired at \+200ms with no fault on w1 or the database since its grant at \+0.05ms/,
    );
  });

  it('flags it under strictCauses', () => {
    const result = check(explainedExpiry, expiryWithoutFault(), { strictCauses: true });
    expect(result.valid).toBe('invalid');
    expect(result.evidence[0]?.claims.map((c) => c.worker)).toEqual(['w1']);
    expect(result.evidence[0]?.events.map((e) => e.role)).toEqual([
      'grant to w1',
      'next grant, to w2',
    ]);
  });

  it('does not count a fault that had no effect (its worker was down) as a cause', () => {
    const paused = (noEffect?: string) => {
      const b = new HistoryBuilder();
      b.enqueue('1', 0).grant('1', 'w1', 'a', 0).unit('1', 'w1', 'a', 0, 1);
      b.fault('pause', 'w1', 10, 300);
      b.grant('1', 'w2', 'b', 205).unit('1', 'w2', 'b', 0, 206, 220).ack('1', 'w2', 230, 'b');
      const history = b.end(400).build();
      const start = history.events.find((e) => e.type === 'nemesis' && e.phase === 'start');
      if (noEffect !== undefined && start?.type === 'nemesis') start.detail = { noEffect };
      return history;
    };
    expect(check(explainedExpiry, paused(), { strictCauses: true }).valid).toBe('valid');
    const result = check(explainedExpiry, paused('worker w1 is down'), { strictCauses: true });
    expect(result.valid).toBe('invalid');
    expect(result.evidence[0]?.faults).toEqual([]);
  });

  it('counts a graceful stop as a cause only once its shutdown timeout is over', () => {
    // w1 is stopped at +10ms with a shutdown timeout of `timeoutMs`; its claim expires at +200.
    const stopped = (timeoutMs: number) => {
      const b = new HistoryBuilder();
      b.enqueue('1', 0).grant('1', 'w1', 'a', 0).unit('1', 'w1', 'a', 0, 1);
      b.fault('stop', 'w1', 10, 1_000);
      b.grant('1', 'w2', 'b', 205).unit('1', 'w2', 'b', 0, 206, 220).ack('1', 'w2', 230, 'b');
      const history = b.end(1_100).build();
      const start = history.events.find((e) => e.type === 'nemesis' && e.phase === 'start');
      if (start?.type === 'nemesis') start.detail = { timeoutMs };
      return history;
    };
    // Cancelled at +110 and gone: its lease was left to expire, as a stop past its timeout does.
    const past = check(explainedExpiry, stopped(100), { strictCauses: true });
    expect(past.valid).toBe('valid');
    expect(past.counts).toMatchObject({ explained: 1, 'by:stop': 1 });
    // Still finishing its job until +510: it should have been heartbeating it.
    const during = check(explainedExpiry, stopped(500), { strictCauses: true });
    expect(during.valid).toBe('invalid');
    expect(during.evidence[0]?.message).toMatch(
      /the stop on w1 \(f1\) from \+10ms to \+1000ms does not explain it: a worker stopping gracefully heartbeats the job it finishes until its shutdown timeout is over/,
    );
  });

  it('does not count an event-loop stall as a cause, and shows it as the fault at the time', () => {
    const result = check(explainedExpiry, expiryUnderStall(), { strictCauses: true });
    expect(result.valid).toBe('invalid');
    expect(result.evidence[0]?.faults.map((f) => `${f.fault}@${f.target}`)).toEqual(['stall@w1']);
  });

  it('names a stall on the holder during the expiry and why it does not explain it', () => {
    const result = check(explainedExpiry, expiryUnderStall(), { strictCauses: true });
    expect(result.evidence[0]?.message).toBe(
      'claim 1 of w1 expired at +200ms with no fault that can cost a lease on w1 or the database ' +
        'since its grant at +0.05ms; the stall on w1 (f1) from +10ms to +300ms does not explain ' +
        'it: the heartbeat extends the lease on its own thread and connection, so a blocked ' +
        'event loop must not cost a lease',
    );
    expect(result.evidence[0]?.message).not.toMatch(/no fault on w1/);
  });

  it("does not judge an expiry under a stall when the holder's heartbeat thread was starved", () => {
    // The stall's busy loop takes one CPU of two; the heartbeat thread waited 150 ms for the
    // other: the machine's load, not the stall (which blocks only the main thread).
    const starved = (thread: 'main' | 'heartbeat') => {
      const history = expiryUnderStall();
      history.events.push({
        type: 'worker',
        t: history.header.startedAt + 190,
        worker: 'w1',
        kind: 'starved',
        thread,
        ms: 150,
      });
      history.events.sort((a, b) => (a.type === 'end' ? 1 : b.type === 'end' ? -1 : a.t - b.t));
      return history;
    };
    const heartbeat = check(explainedExpiry, starved('heartbeat'), { strictCauses: true });
    expect(heartbeat.valid).toBe('unknown');
    expect(heartbeat.why).toMatch(/harness starved: worker w1's heartbeat thread ran 150 ms late/);
    // The main thread's starvation during a stall is the stall's own doing: still judged.
    expect(check(explainedExpiry, starved('main'), { strictCauses: true }).valid).toBe('invalid');
  });

  it("explains an expiry by a fault on the holder's link while its claim statement was on the way", () => {
    const late = check(explainedExpiry, expiryOfALateGrant(), { strictCauses: true });
    expect(late.valid).toBe('valid');
    expect(late.counts).toMatchObject({ explained: 1, 'by:latency': 1 });
    // The same late grant with no fault at all stays unexplained.
    const bare = check(explainedExpiry, expiryOfALateGrant(false), { strictCauses: true });
    expect(bare.valid).toBe('invalid');
  });

  it('passes expiries explained by a pause or a crash', () => {
    const paused = check(explainedExpiry, cleanRecoveryAfterPause(), { strictCauses: true });
    expect(paused.valid).toBe('valid');
    expect(paused.counts).toMatchObject({ explained: 1, 'by:pause': 1 });
    expect(paused.warnings).toBeUndefined();
    expect(check(explainedExpiry, lateReclaimWhileWorkerFree()).counts['by:crash']).toBe(1);
    expect(check(explainedExpiry, cleanRun()).counts.expired).toBe(0);
  });
});
