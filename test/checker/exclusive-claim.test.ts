import { describe, expect, it } from 'vitest';
import { exclusiveClaim } from '../../src/checker/exclusive-claim.js';
import {
  cleanRecoveryAfterPause,
  cleanRun,
  otherWorkerFailsHeldClaim,
  releaseOfClaim,
  sweepRevokesEarly,
  twoUnexpiredClaims,
} from './fixtures/anomalies.js';
import { lateSweep } from './fixtures/sweep.js';
import { check, rel } from './support.js';

describe('exclusive-claim (I4)', () => {
  it('flags a grant while another claim was unexpired', () => {
    const result = check(exclusiveClaim, twoUnexpiredClaims());
    expect(result.valid).toBe('invalid');
    expect(result.counts).toEqual({ grants: 2, overlapping: 1, revokedEarly: 0 });
    const [evidence] = result.evidence;
    expect(evidence?.job).toBe('1');
    expect(evidence?.claims.map((c) => [c.worker, c.end])).toEqual([
      ['w1', 'replaced'],
      ['w2', 'acked'],
    ]);
    expect(evidence?.message).toMatch(
      /granted to w2 at \+100ms while w1's claim 1 was unexpired until \+250ms \(150ms left\)/,
    );
    expect(evidence?.events.map((e) => [e.role, rel(e.t)])).toEqual([
      ['grant to w1', 0.05],
      ['last extension', 50.05],
      ['grant to w2 over an unexpired claim', 100.05],
    ]);
  });

  it('passes a re-claim after expiry, and clean runs', () => {
    expect(check(exclusiveClaim, cleanRecoveryAfterPause()).valid).toBe('valid');
    expect(check(exclusiveClaim, cleanRun()).valid).toBe('valid');
  });
});

describe('exclusive-claim (I4): a claim revoked before its deadline', () => {
  it('flags a sweep that releases a lease early, naming the transaction, its app and the re-grant', () => {
    const result = check(exclusiveClaim, sweepRevokesEarly());
    expect(result.valid).toBe('invalid');
    expect(result.counts).toEqual({ grants: 2, overlapping: 0, revokedEarly: 1 });
    const [evidence] = result.evidence;
    expect(evidence?.message).toMatch(
      /^w1's claim 1 was revoked at \+100ms, 100ms before its deadline \+200ms: leaseproof-maintenance \(transaction \d+\) set it to pending; w2 was granted the job at \+110\.05ms, 89\.95ms before that deadline$/,
    );
    expect(evidence?.events.map((e) => e.role)).toEqual([
      'grant to w1',
      expect.stringMatching(/^revoked by leaseproof-maintenance \(transaction \d+\) 100ms early$/),
      're-grant to w2',
    ]);
  });

  it("flags another worker's fail of a held claim", () => {
    const result = check(exclusiveClaim, otherWorkerFailsHeldClaim());
    expect(result.valid).toBe('invalid');
    expect(result.evidence[0]?.message).toMatch(
      /revoked at \+60ms, 140ms before .*: w2 \(transaction/,
    );
  });

  it('passes a sweep after the deadline, or within ε of it', () => {
    expect(check(exclusiveClaim, lateSweep()).valid).toBe('valid');
    expect(check(exclusiveClaim, releaseOfClaim('leaseproof-maintenance', 201)).valid).toBe(
      'valid',
    );
    expect(check(exclusiveClaim, releaseOfClaim('leaseproof-maintenance', 197)).valid).toBe(
      'valid',
    );
    // ε decides: 3 ms early is within the default 5 ms, not within 1 ms.
    expect(
      check(exclusiveClaim, releaseOfClaim('leaseproof-maintenance', 197), { epsilonMs: 1 }).valid,
    ).toBe('invalid');
  });

  it("passes the holder's own early fail and the harness's own purge", () => {
    expect(check(exclusiveClaim, releaseOfClaim('w1', 50)).valid).toBe('valid');
    expect(check(exclusiveClaim, releaseOfClaim('leaseproof-controller', 50)).valid).toBe('valid');
    // The same purge by anyone else's connection is a revocation.
    expect(check(exclusiveClaim, releaseOfClaim('leaseproof-maintenance', 50)).valid).toBe(
      'invalid',
    );
  });
});
