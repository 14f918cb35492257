import { openSync, readSync } from 'node:fs';
import type { WorkerEvent } from './types.js';
import { monotonicNow } from './types.js';

/** Which thread of a worker a probe watches. */
export type ProbedThread = 'main' | 'heartbeat';

/** How often a probe looks and how late counts as starved. */
export interface StarvationSettings {
  /** The probe's tick, ms. */
  periodMs: number;
  /** A tick whose starved time exceeds this (ms) is reported. */
  thresholdMs: number;
}

/** The defaults: a tick every 20 ms; 10 ms of starvation in one tick is reported. */
export const DEFAULT_STARVATION: Readonly<StarvationSettings> = Object.freeze({
  periodMs: 20,
  thresholdMs: 10,
});

/** Reads this thread's cumulative run-queue wait in ms, or undefined where Linux does not say. */
export type RunQueueReader = () => number | undefined;

// Opened once and re-read from offset 0 on every tick: an open and a close per tick cost more
// than the read, in 16 threads 50 times a second. Module state is per thread (a worker_thread
// loads its own copy), and the path resolves to the thread that opens it, so each thread keeps
// its own file, open for its life. `null`: the file cannot be opened here.
let schedstat: number | null | undefined;
const schedstatBuffer = Buffer.alloc(128);

/**
 * `/proc/thread-self/schedstat` (Linux ≥ 3.17 with schedstats): "time on CPU, time waiting on a
 * run queue, timeslices", in ns, for the calling thread only — so the heartbeat thread reads its
 * own wait, not the process's.
 */
export const procRunQueueWait: RunQueueReader = () => {
  try {
    if (schedstat === undefined) {
      try {
        schedstat = openSync('/proc/thread-self/schedstat', 'r');
      } catch {
        schedstat = null;
      }
    }
    if (schedstat === null) return undefined;
    const length = readSync(schedstat, schedstatBuffer, 0, schedstatBuffer.length, 0);
    const fields = schedstatBuffer.toString('latin1', 0, length).trim().split(/\s+/);
    const waitNs = Number(fields[1]);
    return Number.isFinite(waitNs) ? waitNs / 1e6 : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Measures how long this thread was kept from running by the machine — not by itself — and
 * reports each tick that lost more than the threshold as a `starved` event.
 *
 * A timer tick that fires late has two possible causes: the thread was busy (a synchronous unit,
 * a stall fault — the queue's or the scenario's doing, which a verdict must see) or it was
 * runnable and waited for a CPU (someone else's load — the harness's problem, which a verdict
 * must not blame on the queue). Where Linux reports the thread's run-queue wait, the starved
 * time of a tick is that wait, capped by the tick's lateness, so a thread busy with its own work
 * is never called starved. Elsewhere only the heartbeat thread, which does no work of its own,
 * reports its lateness; a main thread's lateness says nothing there.
 *
 * A SIGSTOPped process is not on a run queue: a pause makes its timers late but adds no wait, so
 * a pause fault is not mistaken for starvation either.
 */
export class StarvationProbe {
  private timer: NodeJS.Timeout | undefined;
  private expected = 0;
  private lastWait: number | undefined;

  constructor(
    private readonly thread: ProbedThread,
    private readonly settings: StarvationSettings,
    private readonly emit: (event: WorkerEvent) => void,
    private readonly readWait: RunQueueReader = procRunQueueWait,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Starts ticking; a started probe is left as it is. */
  start(): void {
    if (this.timer !== undefined) return;
    this.lastWait = this.readWait();
    this.expected = this.now() + this.settings.periodMs;
    this.timer = setInterval(() => this.tick(), this.settings.periodMs);
    // The probe must never be what keeps a worker alive.
    this.timer.unref();
  }

  /** Stops ticking; idempotent. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One tick: exported for tests, which drive it with a fake clock and a fake wait. */
  tick(): void {
    const now = this.now();
    const lateMs = Math.max(0, now - this.expected);
    this.expected = now + this.settings.periodMs;
    const wait = this.readWait();
    const waitedMs =
      wait === undefined || this.lastWait === undefined ? undefined : wait - this.lastWait;
    this.lastWait = wait;
    const starvedMs =
      waitedMs !== undefined
        ? Math.min(lateMs, waitedMs)
        : this.thread === 'heartbeat'
          ? lateMs
          : 0;
    if (starvedMs <= this.settings.thresholdMs) return;
    this.emit({
      kind: 'starved',
      at: monotonicNow(),
      thread: this.thread,
      ms: Math.round(starvedMs),
      lateMs: Math.round(lateMs),
      ...(waitedMs !== undefined && { waitMs: Math.round(waitedMs) }),
    });
  }
}
