// Which claim an ack was made under is decided by the call that made it (its backend), not by
// the order of the worker's reports: a loaded worker's times ran behind the database's, and a
// correct queue's ack of a re-claimed job was judged a stale ack of the expired claim before it.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { leaseHonored } from '../../src/checker/lease-honored.js';
import { noStaleAck } from '../../src/checker/no-stale-ack.js';
import { readHistory } from '../../src/history/jsonl.js';
import type { History } from '../../src/history/types.js';
import { HistoryBuilder } from './fixtures/history-builder.js';
import { check } from './support.js';

const MAIN_PID = 4101;
/** How far the worker's reported times lag the database clock, ms. */
const LAG = 8;

/**
 * w1's claim `a` expires while it is paused; its ack of `a` is rejected (writes nothing); w1
 * re-claims the job as `b` and acks it — the write commits before the lagging worker's report
 * of sending it. `staleCommits`: the wrong queue, whose rejected-looking ack of `a` commits
 * after `b` was granted (an unconditional ack), which must still be caught.
 */
function reclaimedByTheSameWorker(staleCommits: boolean): History {
  const b = new HistoryBuilder(['w1']);
  b.enqueue('1', 0).backend('w1', MAIN_PID).grant('1', 'w1', 'a', 1, 300);
  b.fault('pause', 'w1', 100, 500);
  b.say('w1', 505 + LAG, 'ack', { phase: 'invoke', job: '1', token: 'a' });
  if (staleCommits) {
    b.grant('1', 'w1', 'b', 520, 1_400);
    b.ack('1', 'w1', 530);
    b.say('w1', 531 + LAG, 'ack', {
      phase: 'complete',
      outcome: 'ok',
      job: '1',
      token: 'a',
      pid: MAIN_PID,
    });
    return b.end(1_500).build();
  }
  b.say('w1', 510 + LAG, 'ack', {
    phase: 'complete',
    outcome: 'fail',
    job: '1',
    token: 'a',
    pid: MAIN_PID,
  });
  b.grant('1', 'w1', 'b', 520, 1_400);
  // The ack of `b` commits at 900 (database clock); the worker reports sending it at 901 + LAG.
  b.ack('1', 'w1', 900);
  b.say('w1', 901 - 0.5 + LAG, 'ack', { phase: 'invoke', job: '1', token: 'b' });
  b.say('w1', 902 + LAG, 'ack', {
    phase: 'complete',
    outcome: 'ok',
    job: '1',
    token: 'b',
    pid: MAIN_PID,
  });
  return b.end(1_500).build();
}

describe('I1 attributes an ack to the call that made it', () => {
  it("passes a correct queue's ack of a re-claimed job that commits before the report of it", () => {
    const result = check(noStaleAck, reclaimedByTheSameWorker(false));
    expect(result.valid, JSON.stringify(result.evidence[0]?.message)).toBe('valid');
  });

  it('still catches the stale ack of the expired claim committing after the re-claim', () => {
    const result = check(noStaleAck, reclaimedByTheSameWorker(true));
    expect(result.valid).toBe('invalid');
    expect(result.evidence[0]?.message).toMatch(/^ack by w1 \(claim 1\).*re-claimed the job/);
  });

  it('passes the recorded history of the false alarm (lone-worker-pause, reference, loaded)', async () => {
    const file = fileURLToPath(
      new URL('./fixtures/late-worker-clock-ack.history.jsonl', import.meta.url),
    );
    const result = check(noStaleAck, await readHistory(file));
    expect(result.counts).toMatchObject({ acks: 4, stale: 0 });
    expect(result.valid).toBe('valid');
  });
});

describe('I6 counts a connection’s writes before calling an `ok` extension unmoved', () => {
  it('passes the recorded back-to-back extensions of a loaded run (offset uncertain by 95 ms)', async () => {
    const file = fileURLToPath(
      new URL('./fixtures/back-to-back-extensions.history.jsonl', import.meta.url),
    );
    const history = await readHistory(file);
    expect(history.header.clockUncertaintyMs).toBeGreaterThan(90);
    const result = check(leaseHonored, history);
    expect(result.counts.unmovedExtensions).toBe(0);
    expect(result.valid).not.toBe('invalid');
  });

  it('still catches an `ok` extension that wrote nothing when its calls run back to back', () => {
    const result = check(leaseHonored, backToBackExtensions(false));
    expect(result.valid).toBe('invalid');
    expect(result.counts.unmovedExtensions).toBe(1);
    expect(check(leaseHonored, backToBackExtensions(true)).counts.unmovedExtensions).toBe(0);
  });
});

/**
 * Two extensions sent back to back on the heartbeat connection, reported by a worker whose
 * times run 80 ms ahead of the database's: both writes commit after the second call's reported
 * answer, so the time cut between the calls gives both to the second. `writeFirst` false: the
 * first `ok` extension wrote nothing (the wrong queue).
 */
function backToBackExtensions(writeFirst: boolean): History {
  const ahead = 80;
  const HEARTBEAT_PID = 4102;
  const b = new HistoryBuilder(['w1']);
  b.enqueue('1', 0).backend('w1', MAIN_PID).grant('1', 'w1', 'a', 1, 1_000);
  b.say('w1', 100, 'extend', { phase: 'invoke', job: '1', token: 'a' });
  b.say('w1', 110, 'extend', {
    phase: 'complete',
    outcome: 'ok',
    job: '1',
    token: 'a',
    pid: HEARTBEAT_PID,
  });
  b.say('w1', 110.1, 'extend', { phase: 'invoke', job: '1', token: 'a' });
  b.say('w1', 120, 'extend', {
    phase: 'complete',
    outcome: 'ok',
    job: '1',
    token: 'a',
    pid: HEARTBEAT_PID,
  });
  b.backend('w1', HEARTBEAT_PID);
  if (writeFirst) b.extend('1', 'w1', 100 + ahead, 1_100);
  b.extend('1', 'w1', 115 + ahead, 1_200);
  b.backend('w1', MAIN_PID).ack('1', 'w1', 300);
  return b.end(1_500).build();
}
