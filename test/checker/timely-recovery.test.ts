import { describe, expect, it } from 'vitest';
import { timelyRecovery } from '../../src/checker/timely-recovery.js';
import {
  cleanRecoveryAfterPause,
  cleanRun,
  expiryWithoutFault,
  lateReclaimNoFreeWorker,
  lateReclaimWhileWorkerFree,
} from './fixtures/anomalies.js';
import { HistoryBuilder, T0 } from './fixtures/history-builder.js';
import { check } from './support.js';
import { lateSweep, onTimeSweepSameStall, partlyLateSweep } from './fixtures/sweep.js';

describe('timely-recovery (I8)', () => {
  it('flags a re-claim long after expiry while a worker was free', () => {
    const result = check(timelyRecovery, lateReclaimWhileWorkerFree());
    expect(result.valid).toBe('invalid');
    expect(result.counts).toEqual({
      expired: 1,
      recovered: 1,
      slow: 1,
      starved: 0,
      unrecovered: 0,
    });
    const [evidence] = result.evidence;
    expect(evidence?.job).toBe('1');
    expect(evidence?.message).toMatch(
      /claim 1 of w1 expired at \+200ms and was re-claimed only at \+800ms, 600ms later, while w2 was free from \+200ms to \+800ms/,
    );
    expect(evidence?.message).toMatch(
      /holder crashed at \+30ms, a stall of 770ms against lease \+ poll = 220ms/,
    );
    expect(evidence?.claims.map((c) => c.worker)).toEqual(['w1', 'w2']);
    expect(evidence?.faults.map((f) => `${f.fault}@${f.target}`)).toEqual(['crash@w1']);
    expect(result.stats?.stallMs).toEqual({ count: 1, p50: 600, p99: 600, max: 600 });
    expect(result.stats?.crashStallMs).toMatchObject({ max: 770 });
  });

  it('passes the same stall when no worker was free (w2 busy, w1 crashed)', () => {
    const result = check(timelyRecovery, lateReclaimNoFreeWorker());
    expect(result.valid).toBe('valid');
    expect(result.stats?.stallMs).toMatchObject({ count: 1, max: 595 });
  });

  // A database restart: w1's claim expires during it; once it is over, w2's first claim is
  // refused ("starting up") and w2 reconnects before it can claim.
  function afterRestart(connectAt: number) {
    const b = new HistoryBuilder();
    b.enqueue('1', 0).grant('1', 'w1', 'a', 0).unit('1', 'w1', 'a', 0, 1);
    b.fault('db-restart', 'db', 50, 300);
    b.say('w1', 301, 'claim', { outcome: 'info', detail: 'the database system is starting up' });
    b.say('w2', 302, 'claim', { outcome: 'info', detail: 'the database system is starting up' });
    b.say('w2', connectAt, 'connect');
    b.grant('1', 'w2', 'b', 385).unit('1', 'w2', 'b', 0, 386, 400).ack('1', 'w2', 410, 'b');
    b.say('w1', 390, 'connect');
    return b.end(500).build();
  }

  it('counts a worker free after a fault from when it reaches the database, not its failed claim', () => {
    expect(check(timelyRecovery, afterRestart(380)).valid).toBe('valid');
    // Reconnected at +310 and still 75 ms without claiming the expired job: slow.
    const slow = check(timelyRecovery, afterRestart(310));
    expect(slow.valid).toBe('invalid');
    expect(slow.evidence[0]?.message).toMatch(/while w2 was free from \+310ms to \+385/);
  });

  it('counts a worker busy from when it sent the claim, however late the database started it', () => {
    // w2 reconnects at +310 and sends its claim at +312; the database, just restarted, starts
    // the statement only at +385.
    const b = new HistoryBuilder();
    b.enqueue('1', 0).grant('1', 'w1', 'a', 0).unit('1', 'w1', 'a', 0, 1);
    b.fault('db-restart', 'db', 50, 300);
    b.say('w2', 310, 'connect');
    b.grant('1', 'w2', 'b', 385);
    b.say('w2', 386, 'claim', {
      phase: 'complete',
      outcome: 'ok',
      job: '1',
      token: 'b',
      invokedT: T0 + 312,
    });
    b.unit('1', 'w2', 'b', 0, 386, 400).ack('1', 'w2', 410, 'b');
    b.say('w1', 390, 'connect');
    const history = b.end(500).build();
    expect(check(timelyRecovery, history).valid).toBe('valid');
    // Without the send time, the same history reads as 75 ms of idling.
    for (const e of history.events) if (e.type === 'worker') delete e.invokedT;
    expect(check(timelyRecovery, { ...history, events: [...history.events] }).valid).toBe(
      'invalid',
    );
  });

  it('passes re-claims within the poll interval', () => {
    expect(check(timelyRecovery, cleanRecoveryAfterPause()).valid).toBe('valid');
    expect(check(timelyRecovery, expiryWithoutFault()).valid).toBe('valid');
    expect(check(timelyRecovery, cleanRun()).counts.expired).toBe(0);
  });

  it('says unknown for an expired claim not yet re-claimed when the history was cut', () => {
    const b = new HistoryBuilder(['w1', 'w2']);
    b.enqueue('1', 0).enqueue('2', 0).grant('1', 'w1', 'a', 0).fault('crash', 'w1', 10);
    b.grant('2', 'w2', 'b', 0);
    for (let t = 50; t <= 250; t += 50) b.extend('2', 'w2', t);
    const result = check(timelyRecovery, b.build());
    expect(result.valid).toBe('unknown');
    expect(result.why).toMatch(/not re-claimed before the history was cut/);
  });
});

describe('timely-recovery (I8) and a harness-run sweep', () => {
  it('does not blame the queue for the wait a late sweep pass made', () => {
    const result = check(timelyRecovery, lateSweep());
    expect(result.valid).toBe('valid');
    expect(result.counts).toMatchObject({ expired: 1, sweepWait: 1, sweepLate: 1, slow: 0 });
  });

  it('flags the same stall when the sweep ran on time (a pass that left the expired job held)', () => {
    const result = check(timelyRecovery, onTimeSweepSameStall());
    expect(result.valid).toBe('invalid');
    expect(result.evidence[0]?.message).toMatch(/w2 was free from \+216ms to \+345ms/);
  });

  it('is unknown when a later pass ran late for at least half of the excess', () => {
    const result = check(timelyRecovery, partlyLateSweep());
    expect(result.valid).toBe('unknown');
    expect(result.why).toMatch(
      /^harness starved: the sweep ran 107 ms late at \+420ms, which accounts for/,
    );
  });

  it('judges an older history without recorded passes by the stated interval', () => {
    const history = onTimeSweepSameStall();
    history.events = history.events.filter((e) => !(e.type === 'worker' && e.kind === 'sweep'));
    // Expiry +200, + 100 ms interval + ε': judged from +305.5, and w2 waited until +345.
    expect(check(timelyRecovery, history).valid).toBe('invalid');
  });
});
