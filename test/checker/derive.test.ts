import { describe, expect, it } from 'vitest';
import { deriveHistory } from '../../src/history/derive.js';
import type { History } from '../../src/history/types.js';
import {
  cleanRecoveryAfterPause,
  lateReclaimWhileWorkerFree,
  neverCompleted,
} from './fixtures/anomalies.js';
import { HistoryBuilder, T0 } from './fixtures/history-builder.js';
import { rel } from './support.js';

describe('deriveHistory', () => {
  it('derives claims, their ends, executions and completions', () => {
    const derived = deriveHistory(cleanRecoveryAfterPause());
    const job = derived.jobs.get('1')!;
    expect(job.completed).toBe(true);
    const [first, second] = job.claims;
    expect(first).toMatchObject({
      attempt: 1,
      holder: 'a',
      worker: 'w1',
      end: 'expired',
      closedBy: 'grant',
    });
    expect(rel(first!.expiredAt)).toBe(200);
    expect(first!.effects).toHaveLength(1);
    expect(first!.work).toHaveLength(2); // unit 0, then the abort
    expect(rel(first!.lastActivityT)).toBe(500.2);
    expect(second).toMatchObject({
      attempt: 2,
      holder: 'b',
      worker: 'w2',
      end: 'acked',
      closedBy: 'ack',
    });
    expect(second!.extensions).toHaveLength(1);
    expect(rel(second!.deadline)).toBe(455);
    expect(job.completions).toHaveLength(1);
    expect(job.completions[0]!.by).toBe(second);
    expect(derived.faults.map((f) => [f.fault, f.target, rel(f.start), rel(f.end)])).toEqual([
      ['pause', 'w1', 10, 500],
    ]);
    expect(derived.endIndex).toBe(derived.history.events.length - 1);
  });

  it('is computed once per history object', () => {
    const history = cleanRecoveryAfterPause();
    expect(deriveHistory(history)).toBe(deriveHistory(history));
  });

  it('tells a cut history by its missing end', () => {
    const derived = deriveHistory(neverCompleted({ cut: true }));
    expect(derived.endIndex).toBe(-1);
    expect(rel(derived.endT)).toBe(30.05);
  });

  it('marks a crashed worker down until it speaks again', () => {
    const worker = deriveHistory(lateReclaimWhileWorkerFree()).workers.get('w1')!;
    expect(worker.down.map(rel)).toEqual([30, 1000]);
  });

  it('marks a worker whose claim failed (a dead connection) down until it works again', () => {
    const b = new HistoryBuilder(['w1', 'w2']);
    b.enqueue('1', 0).grant('1', 'w2', 'a', 0);
    b.say('w1', 500, 'claim', { phase: 'complete', outcome: 'info' });
    b.say('w1', 520, 'claim', { phase: 'complete', outcome: 'info' });
    b.say('w1', 650, 'connect');
    const worker = deriveHistory(b.end(800).build()).workers.get('w1')!;
    expect(worker.down.map(rel)).toEqual([500, 650]);
  });

  it('keeps a restarted worker whose loop sets itself up after go down until its first claim', () => {
    const b = new HistoryBuilder(['w1', 'w2']);
    b.enqueue('1', 0).enqueue('2', 0).grant('1', 'w1', 'a', 0).unit('1', 'w1', 'a', 0, 1);
    b.fault('crash', 'w1', 30, 1000);
    // A native program: ready says it is loaded, not that its library's loop is fetching.
    b.say('w1', 1000, 'ready', { startsOnGo: true });
    b.grant('2', 'w1', 'c', 1090);
    const worker = deriveHistory(b.end(1200).build()).workers.get('w1')!;
    expect(worker.down.map(rel)).toEqual([30, 1090.2]);
  });

  it('reads a delete by a worker as a completion, or as a dead-letter after its fail', () => {
    const b = new HistoryBuilder(['w1']);
    b.enqueue('1', 0).enqueue('2', 0).grant('1', 'w1', 'a', 0).grant('2', 'w1', 'b', 1);
    const history = b.end(100).build();
    const at = (t: number, job: string) => ({
      type: 'audit' as const,
      t: T0 + t,
      stmtT: T0 + t,
      txnT: T0 + t,
      xid: 'x',
      app: 'w1',
      op: 'delete' as const,
      job,
      old: { holder: job === '1' ? 'a' : 'b', deadline: T0 + 200, state: 'held' as const },
      new: null,
    });
    const events = history.events.slice(0, -1);
    events.push(at(10, '1'));
    events.push({
      type: 'worker',
      t: T0 + 19,
      worker: 'w1',
      kind: 'fail',
      phase: 'invoke',
      job: '2',
      token: 'b',
    });
    events.push(at(20, '2'), history.events[history.events.length - 1]!);
    const derived = deriveHistory({ header: history.header, events } satisfies History);
    expect(derived.jobs.get('1')).toMatchObject({ state: 'completed', deleted: true });
    expect(derived.jobs.get('1')!.completions[0]!.kind).toBe('delete');
    expect(derived.jobs.get('2')).toMatchObject({ state: 'dead', deleted: true });
    expect(derived.jobs.get('2')!.claims[0]!.end).toBe('failed');
  });

  it('attributes work to claims whose holder is the worker id', () => {
    const b = new HistoryBuilder(['w1']);
    b.enqueue('1', 0)
      .grant('1', 'w1', 'w1', 0)
      .unit('1', 'w1', 'some-token', 0, 1, 10)
      .ack('1', 'w1', 20);
    const job = deriveHistory(b.end(50).build()).jobs.get('1')!;
    expect(job.claims[0]!.effects).toHaveLength(1);
    expect(job.orphans).toHaveLength(0);
  });
});
