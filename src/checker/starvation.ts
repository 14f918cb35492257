/**
 * Harness starvation: windows in which the machine kept a worker's thread from running (its
 * probes' `starved` events), and how much of a violation they can account for.
 *
 * A timing verdict (I7, I8, I9) blames the queue for something being late. On a loaded CI runner
 * the lateness may be the machine's: a heartbeat thread that waited 640 ms for a CPU misses its
 * beat however correct the queue is. Such a violation is not evidence either way, so it is
 * `unknown` ("harness starved: …"), never `invalid` — but only when the starvation is large
 * enough to account for it: a 20 ms wait does not excuse a zombie that ran a second too long.
 *
 * Starvation during a fault injected on the same worker (a pause, a stall, a database restart)
 * is that fault's doing: it is left out, so the fault's own verdict stands. A stall freezes the
 * main thread only: the heartbeat thread's starvation during one is kept. The busy loop takes a
 * CPU of a two-core machine, and a heartbeat thread that then waits for the other one is starved
 * by the machine's load, which a correct queue cannot help — while the known-bad heartbeat on the
 * main thread has no heartbeat thread to report it, so its broken-heartbeat verdict stands.
 */
import type { DerivedHistory } from '../history/derive-types.js';
import type { WorkerHistoryEvent } from '../history/types.js';
import { at } from './evidence.js';
import { FROZEN_KINDS, PROCESS_FROZEN_KINDS, faultsOn } from './fault-windows.js';
import { round } from './stats.js';

/** One window in which a worker's thread was kept from running (database clock). */
export interface StarvedWindow {
  /** The worker. */
  worker: string;
  /** Which of its threads. */
  thread: 'main' | 'heartbeat';
  /** When it began (`end - ms`). */
  start: number;
  /** When the thread ran again. */
  end: number;
  /** How long, ms. */
  ms: number;
  /** Index of the `starved` event in `history.events`. */
  index: number;
}

/** How much starvation fell on a worker in an interval, and the worst window of it. */
export interface Starvation {
  /** Starved ms within the interval (windows clipped to it; threads counted apart, summed). */
  ms: number;
  /** The longest window that overlapped it; undefined when none did. */
  worst: StarvedWindow | undefined;
}

const cache = new WeakMap<DerivedHistory, Map<string, StarvedWindow[]>>();

/** The unexplained starved windows of each worker, in time order. */
export function starvedWindows(derived: DerivedHistory): Map<string, StarvedWindow[]> {
  let byWorker = cache.get(derived);
  if (byWorker !== undefined) return byWorker;
  byWorker = new Map();
  const events = derived.history.events;
  for (let index = 0; index < events.length; index += 1) {
    const e = events[index]!;
    if (e.type !== 'worker' || e.kind !== 'starved') continue;
    const window = windowOf(e, index);
    if (window === undefined) continue;
    const frozen = window.thread === 'heartbeat' ? PROCESS_FROZEN_KINDS : FROZEN_KINDS;
    if (faultsOn(derived, window.worker, frozen, window.start, window.end).length > 0) {
      continue;
    }
    let list = byWorker.get(window.worker);
    if (list === undefined) byWorker.set(window.worker, (list = []));
    list.push(window);
  }
  cache.set(derived, byWorker);
  return byWorker;
}

function windowOf(e: WorkerHistoryEvent, index: number): StarvedWindow | undefined {
  const ms = e.ms;
  if (ms === undefined || !(ms > 0) || e.thread === undefined) return undefined;
  return { worker: e.worker, thread: e.thread, start: e.t - ms, end: e.t, ms, index };
}

/** Unexplained starvation of `worker` (either of its threads) within [from, to]. */
export function starvationOn(
  derived: DerivedHistory,
  worker: string,
  from: number,
  to: number,
): Starvation {
  let ms = 0;
  let worst: StarvedWindow | undefined;
  for (const w of starvedWindows(derived).get(worker) ?? []) {
    if (w.end < from || w.start > to) continue;
    ms += Math.min(to, w.end) - Math.max(from, w.start);
    if (worst === undefined || w.ms > worst.ms) worst = w;
  }
  return { ms, worst };
}

/** The sentence an excused verdict carries: "harness starved: worker w2's heartbeat thread …". */
export function starvedReason(derived: DerivedHistory, w: StarvedWindow): string {
  return (
    `harness starved: worker ${w.worker}'s ${w.thread} thread ran ${round(w.ms)} ms late ` +
    `at ${at(derived, w.end)}`
  );
}

/**
 * Counts the violations a checker excused for starvation and says why it cannot judge them:
 * the first reason, and how many more there were.
 */
export class StarvedVerdicts {
  /** Violations excused. */
  count = 0;
  private first: string | undefined;

  constructor(private readonly derived: DerivedHistory) {}

  /** Records an excused violation, explained by window `w`. */
  excuse(w: StarvedWindow, what: string): void {
    this.excuseWith(starvedReason(this.derived, w), what);
  }

  /** Records an excused violation, explained by a starvation `reason` of the harness's own. */
  excuseWith(reason: string, what: string): void {
    this.count += 1;
    this.first ??= `${reason}, which accounts for ${what}`;
  }

  /** The `unknownWhy` of a checker that excused some violations, or undefined. */
  why(): string | undefined {
    if (this.first === undefined) return undefined;
    const more = this.count > 1 ? ` (and ${this.count - 1} more in starved windows)` : '';
    return `${this.first}${more}: not judged`;
  }
}
