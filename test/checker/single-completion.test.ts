import { describe, expect, it } from 'vitest';
import { singleCompletion } from '../../src/checker/single-completion.js';
import {
  cleanRecoveryAfterPause,
  cleanRun,
  duplicateExecutionWithoutExpiry,
  staleAckAfterReclaimBothComplete,
  staleAckOverReclaim,
} from './fixtures/anomalies.js';
import { check, rel } from './support.js';

describe('single-completion (I2)', () => {
  it('flags a job completed by w2 and again by a late ack of w1', () => {
    const result = check(singleCompletion, staleAckAfterReclaimBothComplete());
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({ completedTwice: 1, extraCompletions: 1 });
    const [evidence] = result.evidence;
    expect(evidence?.job).toBe('1');
    expect(evidence?.events.map((e) => [e.role, rel(e.t)])).toEqual([
      ['completion 1 by w2', 300.05],
      ['completion 2 by w1', 405.05],
    ]);
    expect(evidence?.claims.map((c) => c.worker)).toEqual(['w2', 'w1']);
  });

  it('flags a completed job handed out and completed again', () => {
    expect(check(singleCompletion, duplicateExecutionWithoutExpiry()).valid).toBe('invalid');
  });

  it('passes one stale ack that completed the job once', () => {
    expect(check(singleCompletion, staleAckOverReclaim()).valid).toBe('valid');
  });

  it('passes clean histories', () => {
    expect(check(singleCompletion, cleanRun()).counts).toMatchObject({ jobs: 3, completed: 3 });
    expect(check(singleCompletion, cleanRun()).valid).toBe('valid');
    expect(check(singleCompletion, cleanRecoveryAfterPause()).valid).toBe('valid');
  });
});
