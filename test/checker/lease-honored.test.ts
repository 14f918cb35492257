import { describe, expect, it } from 'vitest';
import { leaseHonored } from '../../src/checker/lease-honored.js';
import type { AuditEvent } from '../../src/history/types.js';
import {
  cleanRecoveryAfterPause,
  cleanRun,
  deadlineOffDatabaseClock,
  extensionOnClockHourBehind,
} from './fixtures/anomalies.js';
import { HistoryBuilder } from './fixtures/history-builder.js';
import { check, rel } from './support.js';

function grantOffBy(ms: number) {
  const b = new HistoryBuilder(['w1']);
  b.enqueue('1', 0)
    .grant('1', 'w1', 'a', 0, 200 + ms)
    .ack('1', 'w1', 10, 'a');
  return b.end(50).build();
}

describe('lease-honored (I6)', () => {
  it('flags a grant deadline 90 s off the database clock', () => {
    const result = check(leaseHonored, deadlineOffDatabaseClock());
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({ grants: 1, offGrants: 1 });
    expect(result.stats).toEqual({ maxOffsetMs: 90_000 });
    const [evidence] = result.evidence;
    expect(evidence?.message).toMatch(
      /grant by w1 at \+0ms .* 90000ms later than statement time \+ durationMs \(200ms\)/,
    );
    expect(evidence?.events.map((e) => [e.event.type, rel(e.t)])).toEqual([['audit', 0.05]]);
  });

  it('flags an extension made on a worker clock an hour behind', () => {
    const result = check(leaseHonored, extensionOnClockHourBehind());
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({ extensions: 1, offExtensions: 1 });
    expect(result.evidence[0]?.message).toMatch(
      /extension .* 3600000ms earlier than statement time \+ extendByMs/,
    );
  });

  it('tolerates ε and no more', () => {
    expect(check(leaseHonored, grantOffBy(4)).valid).toBe('valid');
    expect(check(leaseHonored, grantOffBy(6)).valid).toBe('invalid');
    expect(check(leaseHonored, grantOffBy(6), { epsilonMs: 10 }).valid).toBe('valid');
  });

  it('accepts a deadline from now() of a longer transaction (txnT)', () => {
    const history = grantOffBy(0);
    const grant = history.events.find(
      (e): e is AuditEvent => e.type === 'audit' && e.new?.state === 'held',
    )!;
    grant.txnT = grant.stmtT - 30;
    grant.new = { ...grant.new!, deadline: grant.txnT + 200 };
    expect(check(leaseHonored, history).valid).toBe('valid');
  });

  it('passes clean histories', () => {
    expect(check(leaseHonored, cleanRun()).valid).toBe('valid');
    expect(check(leaseHonored, cleanRecoveryAfterPause()).valid).toBe('valid');
  });
});
