import { describe, expect, it } from 'vitest';
import { atLeastOnceBound } from '../../src/checker/at-least-once-bound.js';
import {
  cleanRecoveryAfterPause,
  cleanRun,
  duplicateExecutionWithoutExpiry,
  workWithoutClaim,
} from './fixtures/anomalies.js';
import { HistoryBuilder } from './fixtures/history-builder.js';
import { check } from './support.js';

describe('at-least-once-bound (I5)', () => {
  it('flags a duplicate execution with no expiry before it', () => {
    const result = check(atLeastOnceBound, duplicateExecutionWithoutExpiry());
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({
      executions: 2,
      duplicates: 1,
      duplicateEffects: 1,
      unexplained: 1,
    });
    const [evidence] = result.evidence;
    expect(evidence?.job).toBe('1');
    expect(evidence?.message).toMatch(
      /execution 2 under w2's claim 2 .* only 0 earlier claim\(s\) expired/,
    );
    expect(evidence?.claims.map((c) => [c.worker, c.end])).toEqual([
      ['w1', 'acked'],
      ['w2', 'acked'],
    ]);
  });

  it('flags work under a token that is no claim of the job', () => {
    const result = check(atLeastOnceBound, workWithoutClaim());
    expect(result.valid).toBe('invalid');
    expect(result.evidence[0]?.message).toMatch(/w2 worked on the job under token rogue/);
    expect(result.evidence[0]?.events.map((e) => e.event.type)).toEqual(['worker', 'effect']);
  });

  it('counts a duplicate after an expiry without flagging it', () => {
    const result = check(atLeastOnceBound, cleanRecoveryAfterPause());
    expect(result.valid).toBe('valid');
    expect(result.counts).toMatchObject({ executions: 2, duplicates: 1, jobsWithDuplicates: 1 });
    expect(result.stats).toEqual({ maxExecutionsPerJob: 2 });
  });

  it('passes a retry after a reported failure, and clean runs', () => {
    const b = new HistoryBuilder(['w1']);
    b.enqueue('1', 0).grant('1', 'w1', 'a', 0).unit('1', 'w1', 'a', 0, 1).fail('1', 'w1', 10);
    b.grant('1', 'w1', 'b', 70).unit('1', 'w1', 'b', 0, 71, 90).ack('1', 'w1', 95, 'b');
    expect(check(atLeastOnceBound, b.end(200).build()).valid).toBe('valid');
    expect(check(atLeastOnceBound, cleanRun()).valid).toBe('valid');
  });
});
