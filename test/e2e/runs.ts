// Real runs for the end-to-end checker tests: each plan is built so that the fault reliably
// produces (or, for the reference, reliably fails to produce) the anomaly named.
import type { RunPlan } from '../../src/scenario/execute-run.js';
import type { UnitPlan } from '../../src/worker/types.js';

export const LEASE = { durationMs: 800, heartbeatMs: 200, extendByMs: 800, pollMs: 50 };

const job = (count: number, ms: number, options: Partial<UnitPlan> = {}): UnitPlan[] =>
  Array.from({ length: count }, () => ({ ms, sync: false, effect: true, ...options }));

const base = (scenario: string, queue: string): Omit<RunPlan, 'plans' | 'faults'> => ({
  scenario,
  seed: 1,
  queue,
  workers: 3,
  lease: LEASE,
  drainTimeoutMs: 20_000,
});

/** Pauses, partitions and a skewed clock at once: a correct queue passes every checker. */
export const mixedFaults = (queue: string): RunPlan => ({
  ...base('mixed-faults', queue),
  workers: 4,
  plans: Array.from({ length: 30 }, () => job(4, 60)),
  faults: [
    { kind: 'clock', atMs: 0, worker: 'w3', offsetMs: 90_000 },
    { kind: 'pause', atMs: 300, forMs: 1_500, worker: 'w1' },
    {
      kind: 'partition',
      atMs: 600,
      forMs: 1_500,
      workers: ['w2'],
      mode: 'blackhole',
      direction: 'both',
    },
  ],
});

/**
 * A worker paused in the middle of a synchronous unit for longer than its lease: when it is
 * continued, the unit ends at once and it acks before its heartbeat thread can tell it the claim
 * is gone — a stale ack that only the queue's conditional ack can refuse.
 */
export const pausePastLease = (queue: string): RunPlan => ({
  ...base('pause-past-lease', queue),
  workers: 2,
  plans: Array.from({ length: 4 }, () => job(1, 1_200, { sync: true, effect: false })),
  faults: [{ kind: 'pause', atMs: 300, forMs: 2_000, worker: 'w1' }],
});

/** One worker's clock an hour and a half ahead. */
export const skewedClock = (queue: string): RunPlan => ({
  ...base('skewed-clock', queue),
  workers: 2,
  plans: Array.from({ length: 10 }, () => job(3, 50)),
  faults: [{ kind: 'clock', atMs: 0, worker: 'w1', offsetMs: 90 * 60_000 }],
});

/** A worker's event loop blocked for longer than the lease while it holds jobs. */
export const blockedEventLoop = (queue: string): RunPlan => ({
  ...base('blocked-event-loop', queue),
  workers: 2,
  plans: Array.from({ length: 6 }, () => job(10, 100)),
  faults: [{ kind: 'stall', atMs: 300, worker: 'w1', forMs: 2_000 }],
});

/** A worker partitioned from its queue mid-job; its effects go on regardless. */
export const partitionMidJob = (queue: string): RunPlan => ({
  ...base('partition-mid-job', queue),
  workers: 2,
  plans: Array.from({ length: 2 }, () => job(25, 100)),
  faults: [
    {
      kind: 'partition',
      atMs: 300,
      forMs: 1_500,
      workers: ['w1'],
      mode: 'blackhole',
      direction: 'upstream',
    },
  ],
});
