import { setPriority } from 'node:os';
import { describe, expect, it } from 'vitest';
import { StartedCpuHog } from '../../src/env/cpu-hog.js';
import { procRunQueueWait, StarvationProbe } from '../../src/worker/starvation-probe.js';
import type { WorkerEvent } from '../../src/worker/types.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ROOT } from '../support/run-node.js';

/** The JSON lines a child prints, one per `next()`. */
function jsonLines(child: ChildProcess): { next(): Promise<unknown> } {
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return {
    async next() {
      const line = await lines.next();
      if (line.done === true) throw new Error('the probe child exited early');
      return JSON.parse(line.value) as unknown;
    },
  };
}

const SETTINGS = { periodMs: 20, thresholdMs: 10 };

/** A probe on a fake clock and a fake run-queue counter; `step` advances both and ticks. */
function probeOf(thread: 'main' | 'heartbeat', schedstat: boolean) {
  let now = 0;
  let wait = 0;
  const events: WorkerEvent[] = [];
  const probe = new StarvationProbe(
    thread,
    SETTINGS,
    (e) => events.push(e),
    () => (schedstat ? wait : undefined),
    () => now,
  );
  probe.start();
  probe.stop();
  return {
    events,
    /** The next tick runs `lateMs` late, of which the thread waited `waitedMs` for a CPU. */
    step(lateMs: number, waitedMs: number): void {
      now += SETTINGS.periodMs + lateMs;
      wait += waitedMs;
      probe.tick();
    },
  };
}

describe('the starvation probe', () => {
  it('reports a late tick spent waiting for a CPU, as that wait', () => {
    const p = probeOf('main', true);
    p.step(100, 80);
    expect(p.events).toMatchObject([
      { kind: 'starved', thread: 'main', ms: 80, lateMs: 100, waitMs: 80 },
    ]);
  });

  it('does not call a thread busy with its own work starved', () => {
    // A synchronous unit or a stall: the tick is late, but the thread ran all along.
    const main = probeOf('main', true);
    main.step(400, 3);
    const heartbeat = probeOf('heartbeat', true);
    heartbeat.step(400, 3);
    expect([...main.events, ...heartbeat.events]).toEqual([]);
  });

  it('caps the wait by the lateness, and ignores what stays under the threshold', () => {
    const p = probeOf('heartbeat', true);
    p.step(30, 200); // waited mostly while it had nothing due
    p.step(8, 8);
    expect(p.events.map((e) => (e.kind === 'starved' ? e.ms : -1))).toEqual([30]);
  });

  it('without schedstat, trusts the lateness of the heartbeat thread only', () => {
    const heartbeat = probeOf('heartbeat', false);
    heartbeat.step(120, 0);
    const main = probeOf('main', false);
    main.step(120, 0);
    expect(heartbeat.events).toMatchObject([{ thread: 'heartbeat', ms: 120, lateMs: 120 }]);
    expect(heartbeat.events[0]).not.toHaveProperty('waitMs');
    expect(main.events).toEqual([]);
  });

  it.skipIf(procRunQueueWait() === undefined)(
    'sees a real process starved by busy neighbours on every core',
    { timeout: 60_000 },
    async () => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'test/fixtures/probe-child.ts', '1500'],
        { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
      );
      const lines = jsonLines(child);
      expect(await lines.next()).toBe('ready');
      // Neighbours at nice 0 against a probe at nice 19: the probe's thread waits for a CPU.
      setPriority(child.pid!, 19);
      await using hog = await StartedCpuHog.start({ processes: 4 });
      expect(hog.processes).toBe(4);
      child.stdin.write('go\n');
      const events = (await lines.next()) as WorkerEvent[];
      const starved = events.filter((e) => e.kind === 'starved');
      expect(starved.length).toBeGreaterThan(0);
      expect(starved.every((e) => e.waitMs !== undefined && e.waitMs >= e.ms)).toBe(true);
    },
  );
});
