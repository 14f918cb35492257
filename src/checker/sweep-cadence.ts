/**
 * The harness-run sweep's share of a recovery stall (I8).
 *
 * A queue with a background sweep (`QueueAdapter.maintenance`: pg-boss re-offers an expired job
 * only once `expire()` ran) is not expected to recover an expired claim before the sweep's
 * next pass: waiting for it is the queue's design, at the cadence it states. The harness runs
 * the passes, in the controller's event loop, which a loaded machine runs late — and that
 * lateness is the harness's, not the queue's. So I8 judges the queue from the end of the first
 * pass that started after the expiry: what came before is the sweep's cadence plus that pass's
 * lateness. What came after is the queue's again; where a later pass ran late for at least half
 * of the spell's excess over poll + ε' (half, as I9 asks of starvation: the pass's own
 * statements ran on the same loaded machine, unmeasured), the verdict is `unknown`.
 *
 * A sweep bug is still caught: a pass that ran on time after the expiry and did not release the
 * job (`maintenance.run` that returns without calling `expire()`) leaves a free worker waiting
 * past poll + ε' after that pass's end.
 */
import type { DerivedHistory } from '../history/derive-types.js';

/** One recorded pass (database clock). */
export interface SweepPassWindow {
  /** When it started. */
  start: number;
  /** When it ended. */
  end: number;
  /** How late it started, ms. */
  lateMs: number;
}

/** The sweep of a history: its stated interval and recorded passes; undefined without one. */
export interface Sweep {
  intervalMs: number;
  /** In start order; empty for a history recorded before passes were. */
  passes: SweepPassWindow[];
}

/** The history's sweep, or undefined when the queue has none. */
export function sweepOf(derived: DerivedHistory): Sweep | undefined {
  const maintenance = derived.history.header.queueTerms?.maintenance;
  if (maintenance === undefined) return undefined;
  const passes: SweepPassWindow[] = [];
  for (const e of derived.history.events) {
    if (e.type !== 'worker' || e.kind !== 'sweep') continue;
    passes.push({ start: e.invokedT ?? e.t, end: e.t, lateMs: e.ms ?? 0 });
  }
  passes.sort((a, b) => a.start - b.start);
  return { intervalMs: maintenance.intervalMs, passes };
}

/**
 * When the sweep had done its part for a claim that expired at `x`: the end of the first pass
 * that started after `x` (+ `tolerance`: a pass starting within ε' of the deadline may have
 * judged the claim unexpired), with that pass's lateness. Without recorded passes (an older
 * history), the worst an on-time sweep takes: `x` + intervalMs + tolerance. Infinity when no
 * pass came after `x`.
 */
export function sweptBy(sweep: Sweep, x: number, tolerance: number): { t: number; lateMs: number } {
  if (sweep.passes.length === 0) return { t: x + sweep.intervalMs + tolerance, lateMs: 0 };
  const first = sweep.passes.find((p) => p.start >= x + tolerance);
  return first === undefined ? { t: Infinity, lateMs: 0 } : { t: first.end, lateMs: first.lateMs };
}

/**
 * How long within [from, to] the sweep was running late (each pass's window from when it was
 * due to when it started, clipped to the interval, summed), and the latest such pass.
 */
export function sweepLatenessIn(
  sweep: Sweep,
  from: number,
  to: number,
): { ms: number; worst: SweepPassWindow | undefined } {
  let ms = 0;
  let worst: SweepPassWindow | undefined;
  for (const p of sweep.passes) {
    const overlap = Math.min(to, p.start) - Math.max(from, p.start - p.lateMs);
    if (!(p.lateMs > 0) || overlap <= 0) continue;
    ms += overlap;
    if (worst === undefined || p.lateMs > worst.lateMs) worst = p;
  }
  return { ms, worst };
}
