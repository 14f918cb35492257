import { describe, expect, it } from 'vitest';
import { leaseHonored } from '../../src/checker/lease-honored.js';
import { noStaleAck } from '../../src/checker/no-stale-ack.js';
import { deriveHistory } from '../../src/history/derive.js';
import {
  checkpointByReplacedClaim,
  cleanLoneWorker,
  extensionWithoutWrite,
  reusedTokenLateAck,
  staleCheckpointNobodyReclaiming,
  staleExtendNobodyReclaiming,
  staleFailNobodyReclaiming,
  unmovedExtension,
} from './fixtures/stale-writes.js';
import { staleCheckpointOnPendingRow } from './fixtures/anomalies.js';
import { check } from './support.js';
import {
  laggingWorkerExtensions,
  overlappingCallsOnOneConnection,
  withoutPids,
} from './fixtures/call-identity.js';
import { HistoryBuilder, T0 } from './fixtures/history-builder.js';
import type { History } from '../../src/history/types.js';

describe('no-stale-ack (I1) judges every write of a claim', () => {
  it('passes a lone worker whose heartbeats, checkpoint and ack all fall inside its lease', () => {
    for (const staleAck of ['strict', 'fenced'] as const) {
      const result = check(noStaleAck, cleanLoneWorker(), { staleAck });
      expect(result.valid).toBe('valid');
      expect(result.counts).toMatchObject({ acks: 1, writes: 3, stale: 0 });
    }
  });

  it('flags an extension that resurrects an expired lease nobody re-claimed (strict)', () => {
    const result = check(noStaleAck, staleExtendNobodyReclaiming());
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({ writes: 1, staleExtends: 1, acks: 1, afterExpiry: 1 });
    expect(result.evidence.map((e) => e.message).find((m) => m.startsWith('extend'))).toMatch(
      /^extend by w1 \(claim 1\) committed at \+900ms \(xid \d+\), 699ms after its claim expired at \+201ms, with nobody re-claiming — a resurrected lease$/,
    );
    expect(result.evidence[0]?.faults.map((f) => f.fault)).toEqual(['latency']);
    // Fenced judges only replacement: nobody replaced this claim.
    expect(check(noStaleAck, staleExtendNobodyReclaiming(), { staleAck: 'fenced' }).valid).toBe(
      'valid',
    );
  });

  it('flags a checkpoint after expiry (strict), valid when fenced', () => {
    const result = check(noStaleAck, staleCheckpointNobodyReclaiming());
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({ staleCheckpoints: 1, stale: 1 });
    expect(result.evidence[0]?.message).toMatch(
      /^checkpoint \(or an extension that left the deadline\) by w1 \(claim 1\) committed at \+501ms .* 300ms after its claim expired at \+201ms/,
    );
    const fenced = check(noStaleAck, staleCheckpointNobodyReclaiming(), { staleAck: 'fenced' });
    expect(fenced.valid).toBe('valid');
  });

  it('flags a fail after expiry (strict)', () => {
    const result = check(noStaleAck, staleFailNobodyReclaiming());
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({ staleFails: 1, stale: 1, acks: 1 });
    expect(result.evidence[0]?.message).toMatch(/^fail by w1 \(claim 1\) committed at \+400ms/);
  });

  it.each(['strict', 'fenced'] as const)('flags the write of a replaced claim (%s)', (staleAck) => {
    const result = check(noStaleAck, checkpointByReplacedClaim(), { staleAck });
    expect(result.valid).toBe('invalid');
    expect(result.counts.staleCheckpoints).toBe(1);
    expect(result.evidence[0]?.message).toMatch(/after w2 re-claimed the job at \+210.05ms/);
    expect(result.evidence[0]?.claims.map((c) => c.worker)).toEqual(['w1', 'w2']);
  });

  it('derives a re-claim under a reused token as a new grant, and flags the late ack', () => {
    const history = reusedTokenLateAck();
    const job = deriveHistory(history).jobs.get('1')!;
    expect(job.claims.map((c) => [c.worker, c.holder, c.end])).toEqual([
      ['w1', 'a', 'expired'],
      ['w2', 'a', 'acked'],
    ]);
    // w2's own heartbeat is an extension of w2's claim, not of w1's.
    expect(job.claims[1]!.extensions).toHaveLength(2);
    for (const staleAck of ['strict', 'fenced'] as const) {
      const result = check(noStaleAck, history, { staleAck });
      expect(result.valid).toBe('invalid');
      expect(result.counts).toMatchObject({ acks: 1, afterReplacement: 1 });
      expect(result.evidence[0]?.message).toMatch(/^ack by w1 \(claim 1\)/);
    }
  });
});

describe('lease-honored (I6) judges extensions the worker saw succeed', () => {
  it('passes extensions that moved the deadline to statement time + extendBy', () => {
    const result = check(leaseHonored, cleanLoneWorker());
    expect(result.valid).toBe('valid');
    expect(result.counts).toMatchObject({ workerExtensions: 2, unmovedExtensions: 0 });
  });

  it('flags an ok extension whose write left the deadline where it was', () => {
    const result = check(leaseHonored, unmovedExtension());
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({ workerExtensions: 2, unmovedExtensions: 2 });
    expect(result.evidence[0]?.message).toBe(
      'extension by w1 at +51ms reported success but the deadline stayed at +201ms ' +
        '(expected ≈ +251ms = statement time + extendByMs 200ms)',
    );
  });

  it('flags an ok extension that wrote nothing', () => {
    const result = check(leaseHonored, extensionWithoutWrite());
    expect(result.valid).toBe('invalid');
    expect(result.evidence[0]?.message).toBe(
      'extension by w1 at +50ms reported success but no write committed',
    );
  });
});

describe('the time a write is judged at (fenceT)', () => {
  /**
   * w1's extension: its statement (`stmtT`) starts 0.134 ms after the deadline (+200), its
   * transaction (`now()`, `txnT`) `before` ms earlier — as an autocommit statement over the
   * extended protocol starts its transaction at Parse and its statement at Bind. Then w1 acks.
   */
  const extendedAt = (before: number, stmt = 200.134): History => {
    const b = new HistoryBuilder();
    b.enqueue('1', 0).grant('1', 'w1', 'a', 0).unit('1', 'w1', 'a', 0, 1);
    b.extend('1', 'w1', stmt, 400);
    b.ack('1', 'w1', 300, 'a');
    const history = b.end(500).build();
    const extension = history.events.find(
      (e) => e.type === 'audit' && e.new?.deadline === T0 + 400,
    );
    if (extension?.type !== 'audit') throw new Error('no extension in the fixture');
    extension.txnT = extension.stmtT - before;
    return history;
  };

  it("judges an autocommit write at its transaction's start (`now()`, what its fence saw)", () => {
    // now() was 3.9 ms before the statement: 3.77 ms before the deadline — not stale.
    const result = check(noStaleAck, extendedAt(3.9));
    expect(result.valid).toBe('valid');
    expect(result.counts).toMatchObject({ staleExtends: 0 });
  });

  it('still judges a write late when its transaction began long before (a fence read early)', () => {
    // Its statement 10 ms past the deadline, its transaction begun 50 ms before that: judged
    // at most STATEMENT_START_SLACK_MS (5 ms) earlier than the statement, still 5 ms late.
    const result = check(noStaleAck, extendedAt(50, 210));
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({ staleExtends: 1 });
    expect(result.evidence.map((e) => e.message)).toContainEqual(
      expect.stringMatching(/extend by w1 .* a resurrected lease/),
    );
  });

  it('judges by the statement when both times agree, as before', () => {
    expect(check(noStaleAck, extendedAt(0)).valid).toBe('invalid');
  });
});

describe('lease-honored (I6) matches an extension to its writes by the connection, not the clock', () => {
  it('passes extensions whose writes lie outside ±ε of the lagging worker’s calls but carry their backend', () => {
    const result = check(leaseHonored, laggingWorkerExtensions());
    expect(result.valid).toBe('valid');
    expect(result.counts).toMatchObject({ workerExtensions: 2, unmovedExtensions: 0 });
  });

  it('still flags an extension reported ok with no write from its backend', () => {
    const result = check(leaseHonored, laggingWorkerExtensions(false));
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({ workerExtensions: 2, unmovedExtensions: 1 });
    expect(result.evidence[0]?.message).toBe(
      'extension by w1 at +108ms reported success but no write committed',
    );
  });

  it('keeps a write with its call when another job’s call on the same connection overlaps it', () => {
    const result = check(leaseHonored, overlappingCallsOnOneConnection());
    expect(result.counts).toMatchObject({ workerExtensions: 1, unmovedExtensions: 0 });
    expect(result.valid).toBe('valid');
  });

  it('falls back to the time window without pids — where the lag is the false alarm it was', () => {
    const result = check(leaseHonored, withoutPids(laggingWorkerExtensions()));
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({ unmovedExtensions: 2 });
  });
});

describe('a stale write named for what it is', () => {
  it('a checkpoint on a row a sweep returned to pending is a checkpoint, and no lease is resurrected', () => {
    const result = check(noStaleAck, staleCheckpointOnPendingRow());
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({ staleCheckpoints: 1, staleFails: 0 });
    expect(result.evidence.map((e) => e.message)).toEqual([
      expect.stringMatching(
        /^checkpoint \(or an extension that left the deadline\) by w1 \(claim 1\) committed at \+300ms \(xid \d+\), 100ms after its claim expired at \+200ms, with nobody re-claiming; the row stayed pending$/,
      ),
    ]);
  });
});

describe('liveness records (a lease kept alive in another table, procrastinate)', () => {
  it('extend the claim their holder still has, and stale ones read nothing into an ended claim', () => {
    const b = new HistoryBuilder(['w1']);
    b.enqueue('1', 0).grant('1', 'w1', '7', 1).unit('1', 'w1', '7', 0, 2, 150);
    // The worker's heartbeat extends job 1 while it is held…
    b.liveness('1', 'w1', '7', 100, 201);
    b.ack('1', 'w1', 250);
    // …and a heartbeat whose snapshot still saw job 1 as held commits after the ack.
    b.liveness('1', 'w1', '7', 252, 300);
    const history = b.end(700).build();
    const derived = deriveHistory(history);
    expect(derived.claims[0]!.extensions.length).toBe(1);
    expect(check(noStaleAck, history).valid).toBe('valid');
    expect(check(noStaleAck, history).counts).toMatchObject({ writes: 1, staleExtends: 0 });
  });

  it('a late heartbeat that revives a claim past its deadline is a stale extension (strict)', () => {
    const b = new HistoryBuilder(['w1']);
    b.enqueue('1', 0).grant('1', 'w1', '7', 1).unit('1', 'w1', '7', 0, 2, 150);
    b.fault('pause', 'w1', 20, 480);
    b.liveness('1', 'w1', '7', 500, 201);
    b.ack('1', 'w1', 520);
    const result = check(noStaleAck, b.end(800).build());
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({ staleExtends: 1 });
  });
});
