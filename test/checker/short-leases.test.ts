import { describe, expect, it } from 'vitest';
import { leaseHonored } from '../../src/checker/lease-honored.js';
import { noLostJob } from '../../src/checker/no-lost-job.js';
import { cleanRun } from './fixtures/anomalies.js';
import { claimsInLongTransactions } from './fixtures/short-leases.js';
import { HistoryBuilder } from './fixtures/history-builder.js';
import { TXN_LEASE } from './fixtures/short-leases.js';
import { check } from './support.js';

// Issue 38 §3: every grant's deadline 1.2 s after its transaction began, written 1.2 s after
// that start, answered 0.5 s later; nine claims, none completed.
const ISSUE = { leadMs: 1_200, answerMs: 500, claims: 9 };

describe('short leases: a deadline from a transaction begun long before the write', () => {
  it('is honored by I6, with a warning that gives the lease left and why', () => {
    const result = check(leaseHonored, claimsInLongTransactions(ISSUE));
    expect(result.valid).toBe('valid');
    expect(result.counts).toMatchObject({ grants: 9, offGrants: 0, shortGrants: 9 });
    expect(result.warnings).toEqual([
      '9 of 9 grants left their holder short of the 2000ms lease (by more than ε + 10 %): ' +
        'a median 800ms at the write (worst 800ms), which the commit followed, and 300ms ' +
        '(worst 300ms) when the answer reached the worker, a median 500ms after the write. ' +
        "The deadline was counted from the transaction's start (now()), a median 1200ms " +
        '(worst 1200ms) before the write — right by I6, which accepts now() of the ' +
        'transaction, but a write that comes long after that start leaves its holder this much less',
    ]);
    // The example the reports pin on the timeline: one grant, with its figures.
    expect(result.evidence).toHaveLength(1);
    expect(result.evidence[0]?.message).toMatch(
      /^grant by w1 written at \+[\d.]+ms left 800ms of the 2000ms lease, 300ms when the answer reached w1 500ms later: .* counted from the transaction's start, 1200ms before the write$/,
    );
  });

  it("names the short leases in I3's evidence for the job never completed", () => {
    const result = check(noLostJob, claimsInLongTransactions(ISSUE));
    expect(result.valid).toBe('invalid');
    expect(result.evidence[0]?.message).toMatch(
      /^not completed after 9 claim\(s\) \(state held\) when the run ended at \+\d+ms: each of its 9 claims was left a median 800ms of the 2000ms lease at the write \(worst 800ms\), which the commit followed, and 300ms \(worst 300ms\) when the answer reached the worker, a median 500ms after the write; each deadline was counted from the transaction's start \(now\(\)\), a median 1200ms \(worst 1200ms\) before the write$/,
    );
  });

  it('finds the answers by time where the audit names no backends', () => {
    const result = check(leaseHonored, claimsInLongTransactions({ ...ISSUE, pids: false }));
    expect(result.warnings?.[0]).toMatch(
      /300ms \(worst 300ms\) when the answer reached the worker/,
    );
  });

  it('warns of an extension written long after its transaction began, apart from grants', () => {
    const b = new HistoryBuilder(['w1'], { lease: TXN_LEASE });
    b.enqueue('1', 0).grant('1', 'w1', 'a', 10);
    // Its transaction began at +1000; the UPDATE ran at +1600; deadline +1000 + extendBy.
    b.extend('1', 'w1', 1_600, 1_000 + TXN_LEASE.extendByMs).ack('1', 'w1', 1_700, 'a');
    const history = b.end(2_000).build();
    for (const e of history.events) {
      if (e.type === 'audit' && e.stmtT - history.header.startedAt === 1_600) e.txnT -= 600;
    }
    const result = check(leaseHonored, history);
    expect(result.counts).toMatchObject({ shortGrants: 0, shortExtensions: 1 });
    expect(result.warnings).toEqual([
      expect.stringMatching(
        /^1 of 1 extensions left their holder short of the 2000ms extension \(extendBy\) .*: a median 1400ms at the write .* counted from the transaction's start \(now\(\)\), a median 600ms/,
      ),
    ]);
  });

  it('says nothing of a lead within ε + 10 % of the lease, nor of a clean run', () => {
    // 2000 × 10 % + ε 5 = 205 ms: a lead of 200 ms is within it, 210 ms is not.
    const within = claimsInLongTransactions({ leadMs: 200, answerMs: 1, claims: 3 });
    expect(check(leaseHonored, within).warnings).toBeUndefined();
    expect(check(leaseHonored, within).counts.shortGrants).toBe(0);
    expect(check(noLostJob, within).evidence[0]?.message).toMatch(
      /\(state held\) when the run ended at \+\d+ms$/,
    );
    const beyond = claimsInLongTransactions({ leadMs: 210, answerMs: 1, claims: 3 });
    expect(check(leaseHonored, beyond).counts.shortGrants).toBe(3);
    const clean = check(leaseHonored, cleanRun());
    expect(clean.warnings).toBeUndefined();
    expect(clean.counts).toMatchObject({ shortGrants: 0, shortExtensions: 0 });
  });
});
