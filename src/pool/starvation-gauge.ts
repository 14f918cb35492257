/**
 * What the machine is costing the workers of this process right now: every `starved` event a
 * worker's probe reports (a thread that waited for a CPU), kept for a short while. The suite's
 * admission of one more run beside others (scale-out/machine-room.ts) reads it: the signal that
 * matters for a verdict is not how busy the machine is — a run that drains jobs at full speed
 * keeps both cores busy and harms nobody — but whether the heartbeat and main threads of the
 * runs under way are being kept from running, which is what turns a timing verdict `unknown`.
 */

/** How long a starved event counts, ms. */
export const GAUGE_WINDOW_MS = 10_000;

const recent: { at: number; ms: number }[] = [];

/** Records a starved event of `ms` seen now (the pool calls it for every worker's event). */
export function noteStarved(ms: number, at = performance.now()): void {
  recent.push({ at, ms });
  forget(at);
}

/** What a probe's `starved` event says, as far as the gauge reads it. */
export interface StarvedReport {
  /** The run-queue wait, capped by the tick's lateness (the event's `ms`). */
  ms: number;
  /** How late the tick ran. */
  lateMs: number;
  /** The thread's run-queue wait over the tick, where Linux reports it. */
  waitMs?: number;
}

/**
 * Records a worker's `starved` event — unless its thread spent most of the late tick running
 * its own work (a stall fault's busy loop, a synchronous unit) and waited only for the rest.
 * Such a thread is on the run queue whenever anything else is runnable, on a machine with room
 * too: a 2 s stall fault beside one other run reported 520–686 ms, and held every start back for
 * 10 s while a single run went on. An idle thread kept from a CPU is late by about its wait.
 */
export function noteStarvedReport(report: StarvedReport, at = performance.now()): void {
  if (report.waitMs !== undefined && report.waitMs < report.lateMs / 2) return;
  noteStarved(report.ms, at);
}

/** The longest starvation any worker of this process reported within the last `windowMs`. */
export function worstRecentStarvation(windowMs = GAUGE_WINDOW_MS, now = performance.now()): number {
  forget(now);
  let worst = 0;
  for (const e of recent) if (e.at >= now - windowMs && e.ms > worst) worst = e.ms;
  return worst;
}

function forget(now: number): void {
  while (recent.length > 0 && recent[0]!.at < now - GAUGE_WINDOW_MS) recent.shift();
}
