import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  parseCpuPressure,
  UncontendedStopwatch,
  type CpuPressure,
} from '../../src/env/cpu-pressure.js';
import { runInLanes } from '../../src/scale-out/lanes.js';
import { machineRoom } from '../../src/scale-out/machine-room.js';
import {
  noteStarved,
  noteStarvedReport,
  worstRecentStarvation,
} from '../../src/pool/starvation-gauge.js';

const pressure = (avg10: number, totalUs = 0): CpuPressure => ({ avg10, avg60: avg10, totalUs });

describe('CPU pressure', () => {
  it('parses the `some` line of a PSI file', () => {
    const text =
      'some avg10=27.10 avg60=16.32 avg300=9.52 total=51571400\n' +
      'full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n';
    expect(parseCpuPressure(text)).toEqual({ avg10: 27.1, avg60: 16.32, totalUs: 51_571_400 });
    expect(parseCpuPressure('nonsense')).toBeUndefined();
  });

  it('a stopwatch counts only the time no task waited for a CPU', async () => {
    let totalUs = 1_000_000;
    const watch = UncontendedStopwatch.start(() => pressure(0, totalUs));
    await sleep(120);
    // 100 ms of the 120 the machine was contended: about 20 ms count.
    totalUs += 100_000;
    const { wallMs, contendedMs, uncontendedMs } = watch.elapsed();
    expect(contendedMs).toBe(100);
    expect(uncontendedMs).toBeCloseTo(wallMs - 100, 5);
    expect(uncontendedMs).toBeLessThan(wallMs);
  });

  it('without PSI, the stopwatch is the wall clock', async () => {
    const watch = UncontendedStopwatch.start(() => undefined);
    await sleep(30);
    const { wallMs, uncontendedMs } = watch.elapsed();
    expect(uncontendedMs).toBe(wallMs);
  });
});

describe('the starvation gauge', () => {
  it('keeps the worst starvation of the last window, and forgets older events', () => {
    const t0 = 1_000_000;
    noteStarved(30, t0);
    noteStarved(120, t0 + 1_000);
    noteStarved(15, t0 + 2_000);
    expect(worstRecentStarvation(10_000, t0 + 2_000)).toBe(120);
    expect(worstRecentStarvation(500, t0 + 2_000)).toBe(15);
    expect(worstRecentStarvation(10_000, t0 + 20_000)).toBe(0);
  });

  it("ignores a thread busy with its own work (a stall fault's loop), not an idle one kept waiting", () => {
    const t0 = 2_000_000;
    // A 2 s stall beside one other run: 2 s late, of which 520 ms on the run queue.
    noteStarvedReport({ ms: 520, lateMs: 2_000, waitMs: 520 }, t0);
    expect(worstRecentStarvation(10_000, t0)).toBe(0);
    // A heartbeat thread with nothing to do, 80 ms late, 75 ms of it waiting for a CPU.
    noteStarvedReport({ ms: 75, lateMs: 80, waitMs: 75 }, t0 + 100);
    expect(worstRecentStarvation(10_000, t0 + 100)).toBe(75);
    // Where Linux gives no wait, the heartbeat thread's lateness is all there is.
    noteStarvedReport({ ms: 90, lateMs: 90 }, t0 + 200);
    expect(worstRecentStarvation(10_000, t0 + 200)).toBe(90);
  });
});

describe('machineRoom: admission by harness starvation', () => {
  it('starts the first run at once, however starved the machine', async () => {
    const room = machineRoom({ read: () => 1_000, spacingMs: 0, pollMs: 5 });
    const started = performance.now();
    await room(() => 0);
    expect(performance.now() - started).toBeLessThan(50);
  });

  it('holds a run beside others while a worker under way is starved past the limit', async () => {
    let starved = 131;
    const waits: number[] = [];
    const room = machineRoom({
      read: () => starved,
      starvedMs: 50,
      spacingMs: 0,
      pollMs: 5,
      onWait: (ms) => waits.push(ms),
    });
    let admitted = false;
    const gate = room(() => 1).then(() => (admitted = true));
    await sleep(40);
    expect(admitted).toBe(false);
    starved = 12;
    await gate;
    expect(admitted).toBe(true);
    expect(waits).toEqual([131]);
  });

  it('lets a waiting run start as soon as the others have finished', async () => {
    let running = 1;
    const room = machineRoom({ read: () => 1_000, spacingMs: 0, pollMs: 5 });
    const gate = room(() => running);
    await sleep(20);
    running = 0;
    await gate;
  });

  it('spaces two starts beside each other, so that the load of the first can show', async () => {
    const room = machineRoom({ read: () => 0, spacingMs: 80, pollMs: 5 });
    await room(() => 0);
    const started = performance.now();
    await room(() => 1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(70);
  });

  it("holds the next start until the previous run's workers are ready, at most settleMs", async () => {
    let settling = 1;
    const room = machineRoom({ read: () => 0, spacingMs: 0, pollMs: 5, settling: () => settling });
    await room(() => 0);
    let admitted = false;
    const gate = room(() => 1).then(() => (admitted = true));
    await sleep(40);
    expect(admitted).toBe(false);
    settling = 0;
    await gate;
    // A setup that never ends holds a start back no longer than settleMs.
    const capped = machineRoom({
      read: () => 0,
      spacingMs: 0,
      pollMs: 5,
      settleMs: 60,
      settling: () => 1,
    });
    await capped(() => 0);
    const started = performance.now();
    await capped(() => 1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(50);
  });

  it('in runInLanes: while workers starve, the lanes thin out to one at a time', async () => {
    let running = 0;
    let peak = 0;
    const { results } = await runInLanes(
      [1, 2, 3],
      { lanes: 3, room: machineRoom({ read: () => 1_000, spacingMs: 0, pollMs: 5 }) },
      async (n) => {
        running += 1;
        peak = Math.max(peak, running);
        await sleep(20);
        running -= 1;
        return n * 2;
      },
    );
    expect(results).toEqual([2, 4, 6]);
    expect(peak).toBe(1);
  });

  it('in runInLanes: with no starvation, the lanes fill', async () => {
    let running = 0;
    let peak = 0;
    await runInLanes(
      [1, 2, 3],
      { lanes: 3, room: machineRoom({ read: () => 0, spacingMs: 0, pollMs: 5 }) },
      async () => {
        running += 1;
        peak = Math.max(peak, running);
        await sleep(30);
        running -= 1;
      },
    );
    expect(peak).toBe(3);
  });
});
