import { describe, expect, it } from 'vitest';
import { exclusiveClaim } from '../../src/checker/exclusive-claim.js';
import { noStaleAck } from '../../src/checker/no-stale-ack.js';
import { deriveHistory } from '../../src/history/derive.js';
import {
  earlyReapByAnotherWorkersClaim,
  lateErrorPathFailAfterTakeover,
  reapByAnotherWorkersClaim,
  reapOfOwnExpiredClaim,
} from './fixtures/poll-path-reap.js';
import { staleFailNobodyReclaiming } from './fixtures/stale-writes.js';
import { check } from './support.js';

describe('a write is judged by the call that made it: a release of an expired claim is a sweep', () => {
  it("passes another worker's claim call that returns an expired claim to the queue first", () => {
    const history = reapByAnotherWorkersClaim();
    expect(deriveHistory(history).sweeps.size).toBe(1);
    for (const staleAck of ['strict', 'fenced'] as const) {
      const result = check(noStaleAck, history, { staleAck });
      expect(result.valid, result.evidence.map((e) => e.message).join('\n')).toBe('valid');
      expect(result.counts).toMatchObject({ sweeps: 1, stale: 0 });
    }
    expect(check(exclusiveClaim, history).valid).toBe('valid');
  });

  it('passes a worker whose own poll returns its own expired claim to the queue', () => {
    const history = reapOfOwnExpiredClaim();
    const result = check(noStaleAck, history);
    expect(result.valid, result.evidence.map((e) => e.message).join('\n')).toBe('valid');
    expect(result.counts).toMatchObject({ sweeps: 1, staleFails: 0 });
    // The sweep closed the claim; its worker did not fail it.
    expect(deriveHistory(history).claims[0]!.closedBy).toBe('reap');
  });

  it('still flags a reap before the deadline as an early revocation (I4)', () => {
    const history = earlyReapByAnotherWorkersClaim();
    expect(deriveHistory(history).sweeps.size).toBe(0);
    const result = check(exclusiveClaim, history);
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({ revokedEarly: 1 });
    expect(result.evidence[0]!.message).toMatch(
      /^w1's claim 1 was revoked at \+120ms, 81ms before/,
    );
  });

  it("still flags an error path's late fail by job id that releases another worker's live claim", () => {
    const history = lateErrorPathFailAfterTakeover();
    expect(deriveHistory(history).sweeps.size).toBe(0);
    const i4 = check(exclusiveClaim, history);
    expect(i4.valid).toBe('invalid');
    expect(i4.evidence[0]!.message).toMatch(/^w2's claim 2 was revoked at \+400ms, \d+ms before/);
    const i1 = check(noStaleAck, history);
    expect(i1.valid).toBe('invalid');
    expect(i1.counts).toMatchObject({ staleFails: 1, sweeps: 0 });
    expect(i1.evidence[0]!.message).toMatch(
      /^fail by w1 \(claim 1\) committed at \+400ms .*after w2 re-claimed the job at \+260/,
    );
  });

  it("still flags the holder's own fail call committing after its lease ran out (I1, strict)", () => {
    const result = check(noStaleAck, staleFailNobodyReclaiming());
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({ staleFails: 1, sweeps: 0 });
  });
});
