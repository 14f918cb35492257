import { describe, expect, it } from 'vitest';
import { exclusiveClaim } from '../../src/checker/exclusive-claim.js';
import { cleanRecoveryAfterPause, cleanRun, twoUnexpiredClaims } from './fixtures/anomalies.js';
import { check, rel } from './support.js';

describe('exclusive-claim (I4)', () => {
  it('flags a grant while another claim was unexpired', () => {
    const result = check(exclusiveClaim, twoUnexpiredClaims());
    expect(result.valid).toBe('invalid');
    expect(result.counts).toEqual({ grants: 2, overlapping: 1 });
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
