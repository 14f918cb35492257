import { describe, expect, it } from 'vitest';
import { noStaleAck } from '../../src/checker/no-stale-ack.js';
import {
  ackAfterExpiryNobodyReclaiming,
  cleanRecoveryAfterPause,
  cleanRun,
  staleAckAfterReclaimBothComplete,
  staleAckOverReclaim,
} from './fixtures/anomalies.js';
import { check, rel } from './support.js';

describe('no-stale-ack (I1)', () => {
  it('flags an ack committed 2 ms after expiry with nobody re-claiming (strict)', () => {
    const result = check(noStaleAck, ackAfterExpiryNobodyReclaiming());
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({ acks: 1, stale: 1, afterExpiry: 1 });
    const [evidence] = result.evidence;
    expect(evidence?.job).toBe('1');
    expect(evidence?.message).toMatch(
      /2ms after its claim expired at \+201ms, with nobody re-claiming/,
    );
    expect(evidence?.claims.map((c) => [c.worker, c.holder, rel(c.expiredAt!)])).toEqual([
      ['w1', 'a', 201],
    ]);
    const ack = evidence?.events.find((e) => e.role.startsWith('ack committed'));
    expect(ack && rel(ack.t)).toBe(203.05);
    expect(result.epsilonMs).toBe(5);
  });

  it('accepts the same ack when judging fenced: nobody replaced the claim', () => {
    expect(check(noStaleAck, ackAfterExpiryNobodyReclaiming(), { staleAck: 'fenced' }).valid).toBe(
      'valid',
    );
  });

  it.each(['strict', 'fenced'] as const)('flags an ack over a re-claim (%s)', (staleAck) => {
    const result = check(noStaleAck, staleAckOverReclaim(), { staleAck });
    expect(result.valid).toBe('invalid');
    expect(result.counts.afterReplacement).toBe(1);
    const [evidence] = result.evidence;
    expect(evidence?.claims.map((c) => `${c.worker}/${c.holder}`)).toEqual(['w1/a', 'w2/b']);
    expect(evidence?.message).toMatch(
      /ack by w1 \(claim 1\).*after w2 re-claimed the job at \+210.05ms/,
    );
    // The fault active at the time: w1 was paused.
    expect(evidence?.faults.map((f) => `${f.fault}@${f.target}`)).toEqual(['pause@w1']);
  });

  it.each(['strict', 'fenced'] as const)(
    'flags the late ack of a job completed twice (%s)',
    (staleAck) => {
      const result = check(noStaleAck, staleAckAfterReclaimBothComplete(), { staleAck });
      expect(result.valid).toBe('invalid');
      expect(result.counts).toMatchObject({ acks: 2, stale: 1 });
      expect(result.evidence[0]?.claims[0]?.worker).toBe('w1');
    },
  );

  it.each(['strict', 'fenced'] as const)('passes clean histories (%s)', (staleAck) => {
    expect(check(noStaleAck, cleanRun(), { staleAck }).valid).toBe('valid');
    expect(check(noStaleAck, cleanRecoveryAfterPause(), { staleAck }).valid).toBe('valid');
  });
});
