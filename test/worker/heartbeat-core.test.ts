import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Claim } from '../../src/queue/types.js';
import { HeartbeatCore } from '../../src/worker/heartbeat-core.js';
import type { WorkerEvent } from '../../src/worker/types.js';

const LEASE = { durationMs: 1_000, heartbeatMs: 200, extendByMs: 1_000, pollMs: 50 };
const CLAIM: Claim = { jobId: '1', token: 't', attempt: 1, payload: {} };

beforeEach(() => {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'],
  });
});
afterEach(() => {
  vi.useRealTimers();
});

function start(extend: ((claim: Claim) => Promise<boolean>) | undefined, current?: () => boolean) {
  const events: WorkerEvent[] = [];
  const lost: string[] = [];
  const core = new HeartbeatCore(
    CLAIM,
    LEASE,
    extend,
    (e) => events.push(e),
    (r) => lost.push(r),
    performance.now(),
    current,
  );
  return { core, events, lost };
}

describe('HeartbeatCore', () => {
  it('extends every heartbeat period and keeps the claim while extensions succeed', async () => {
    const extend = vi.fn(() => Promise.resolve(true));
    const { core, lost } = start(extend);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(extend).toHaveBeenCalledTimes(15);
    expect(lost).toEqual([]);
    core.stop();
  });

  it('without extend (a queue with no lease extension) never beats and gives the claim up when the lease runs out', async () => {
    const { core, events, lost } = start(undefined);
    await vi.advanceTimersByTimeAsync(999);
    expect(lost).toEqual([]);
    expect(events).toEqual([]);
    await vi.advanceTimersByTimeAsync(2);
    expect(lost).toEqual(['lease ran out without a confirmed extension']);
    expect(events.map((e) => e.kind)).toEqual(['lost']);
    core.stop();
  });

  it('stops by itself once its claim is no longer current: no beat, no deadline, no lost', async () => {
    const extend = vi.fn(() => Promise.resolve(true));
    let current = true;
    const { events, lost } = start(extend, () => current);
    await vi.advanceTimersByTimeAsync(450);
    expect(extend).toHaveBeenCalledTimes(2);
    // The worker finished the job without telling the core, as the heartbeat thread is told.
    current = false;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(extend).toHaveBeenCalledTimes(2);
    expect(lost).toEqual([]);
    expect(events.filter((e) => e.kind === 'lost')).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('without extend, a claim no longer current is not given up when its lease runs out', async () => {
    let current = true;
    const { lost } = start(undefined, () => current);
    await vi.advanceTimersByTimeAsync(500);
    current = false;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(lost).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
