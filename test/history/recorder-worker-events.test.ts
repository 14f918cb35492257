import { describe, expect, it } from 'vitest';
import { orderEvents } from '../../src/history/order-events.js';
import type { HistoryEvent } from '../../src/history/types.js';
import { workerHistoryEvent } from '../../src/history/worker-events.js';
import type { WorkerEvent } from '../../src/worker/types.js';

const OFFSET = 2.5;
const AT = 1_790_000_000_000.75;
const convert = (event: WorkerEvent) =>
  workerHistoryEvent({ workerId: 'w3', event, receivedAt: AT + 1_000 }, OFFSET);
const base = { type: 'worker', t: AT - OFFSET, worker: 'w3' };

describe('a worker event in the history', () => {
  it('is timed by the worker (at − offset), never by when the controller received it', () => {
    expect(convert({ kind: 'ready', at: AT, pid: 4242, wireFormat: 1 })).toEqual({
      ...base,
      kind: 'ready',
      detail: 'pid 4242',
    });
  });

  it('keeps an operation with its phase, outcome, job, token and error', () => {
    const op = { at: AT, jobId: '7', token: 'tk' } as const;
    expect(convert({ kind: 'ack', phase: 'invoke', ...op })).toEqual({
      ...base,
      kind: 'ack',
      phase: 'invoke',
      job: '7',
      token: 'tk',
    });
    expect(
      convert({ kind: 'extend', phase: 'complete', outcome: 'info', error: 'no reply', ...op }),
    ).toEqual({
      ...base,
      kind: 'extend',
      phase: 'complete',
      outcome: 'info',
      job: '7',
      token: 'tk',
      detail: 'no reply',
    });
  });

  it('makes a claim a completion, with or without a granted job', () => {
    expect(
      convert({ kind: 'claim', at: AT, outcome: 'ok', jobId: '7', token: 'tk', attempt: 2 }),
    ).toEqual({ ...base, kind: 'claim', phase: 'complete', outcome: 'ok', job: '7', token: 'tk' });
    expect(convert({ kind: 'claim', at: AT, outcome: 'info', error: 'timeout' })).toEqual({
      ...base,
      kind: 'claim',
      phase: 'complete',
      outcome: 'info',
      detail: 'timeout',
    });
  });

  it('carries units, losses, aborts, effects, stalls, clocks, errors and exits', () => {
    const ids = { jobId: '7', token: 'tk' } as const;
    const cases: [WorkerEvent, Record<string, unknown>][] = [
      [
        { kind: 'unit', at: AT, ...ids, unit: 3, effect: true },
        { job: '7', token: 'tk', unit: 3 },
      ],
      [
        { kind: 'abort', at: AT, ...ids, unit: 4 },
        { job: '7', token: 'tk', unit: 4 },
      ],
      [
        { kind: 'lost', at: AT, ...ids, reason: 'expired' },
        { job: '7', token: 'tk', detail: 'expired' },
      ],
      [
        { kind: 'effect', at: AT, ...ids, unit: 1, recorded: true },
        { job: '7', token: 'tk', unit: 1 },
      ],
      [
        { kind: 'effect', at: AT, ...ids, unit: 1, recorded: false },
        { job: '7', token: 'tk', unit: 1, detail: 'not recorded' },
      ],
      [{ kind: 'stall', at: AT, ms: 800 }, { detail: '800ms' }],
      [{ kind: 'clock', at: AT, workerNow: 5_000, realNow: 2_000 }, { detail: 'skew 3000ms' }],
      [{ kind: 'error', at: AT, message: 'boom' }, { detail: 'boom' }],
      [{ kind: 'exit', at: AT, reason: 'SIGTERM' }, { detail: 'SIGTERM' }],
    ];
    for (const [event, fields] of cases) {
      expect(convert(event)).toEqual({ ...base, kind: event.kind, ...fields });
    }
  });
});

describe('orderEvents', () => {
  it('orders by t and keeps the order of sources, then of each source, for equal t', () => {
    const job: HistoryEvent = { type: 'job', t: 10, job: '1', units: 1, maxUnitMs: 5 };
    const effect: HistoryEvent = {
      type: 'effect',
      t: 10,
      worker: 'w1',
      job: '1',
      token: 't',
      unit: 0,
    };
    const w = (t: number, kind: string): HistoryEvent => ({
      type: 'worker',
      t,
      worker: 'w1',
      kind,
    });
    const ordered = orderEvents([[job], [effect], [w(12, 'a'), w(10, 'b'), w(10, 'c'), w(9, 'd')]]);
    expect(ordered.map((e) => (e.type === 'worker' ? e.kind : e.type))).toEqual([
      'd',
      'job',
      'effect',
      'b',
      'c',
      'a',
    ]);
  });
});
